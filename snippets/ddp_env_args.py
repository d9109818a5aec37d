"""torchrun style: the local rank comes from the environment, argparse is for our own options."""
import argparse
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()
local_rank = int(os.environ["LOCAL_RANK"])
assert 0 <= local_rank < int(os.environ["LOCAL_WORLD_SIZE"])  # one of this machine
# ... torch.cuda.set_device(local_rank), init_process_group(), training ...
sys.stdout.write(f"rank {os.environ['RANK']}: local_rank={local_rank} epochs={args.epochs}\n")  # one write: see ddp_portable_args.py
