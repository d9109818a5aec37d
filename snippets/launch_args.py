"""Print what a launcher hands to each process: its arguments and environment."""
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")  # reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
env = {k: os.environ.get(k) for k in ("LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR")}
env["MASTER_PORT"] = "set" if "MASTER_PORT" in os.environ else None  # the value varies
seen = [None] * dist.get_world_size()
dist.all_gather_object(seen, (sys.argv[1:], env))
if dist.get_rank() == 0:
    for argv, env in seen:  # in rank order
        print("argv:", argv)
        print("    ", " ".join(f"{k}={v}" for k, v in env.items()))
    print("dist.get_world_size():", dist.get_world_size(),
          "| torch.cuda.device_count():", torch.cuda.device_count())
dist.barrier()  # every rank gets here before the group is torn down
dist.destroy_process_group()
