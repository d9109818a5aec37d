"""Runs under torchrun and under torch.distributed.launch (with or without --use-env)."""
import argparse
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--local-rank", "--local_rank", type=int, default=0)  # both spellings
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()
local_rank = int(os.environ.get("LOCAL_RANK", args.local_rank))  # the environment first
assert local_rank == int(os.environ["LOCAL_RANK"])  # the launcher's, not the default
# One write per line: torchrun's workers write unbuffered, and the two parts of a print()
# from two ranks could interleave within a line.
sys.stdout.write(f"rank {os.environ['RANK']}: LOCAL_RANK={os.environ.get('LOCAL_RANK')} "
                 f"--local-rank option={args.local_rank} -> local_rank={local_rank}\n")
