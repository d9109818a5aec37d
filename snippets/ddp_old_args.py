"""Launch-era argument parsing: the local rank must come on the command line."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, required=True)
args = parser.parse_args()
print("local_rank:", args.local_rank)
