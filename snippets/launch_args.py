"""Print what a launcher hands to each process: its arguments and environment."""
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")  # reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
env = {k: os.environ.get(k) for k in ("LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR")}
env["MASTER_PORT"] = "set" if "MASTER_PORT" in os.environ else None  # the value varies
node = os.environ.get("GROUP_RANK")  # which machine: the launcher's node rank
seen = [None] * dist.get_world_size()
dist.all_gather_object(seen, (sys.argv[1:], env, node))
if dist.get_rank() == 0:
    for argv, env, _ in seen:  # in rank order
        print("argv:", argv)
        print("    ", " ".join(f"{k}={v}" for k, v in env.items()))
    print("dist.get_world_size():", dist.get_world_size(),
          "| torch.cuda.device_count():", torch.cuda.device_count())
    # The processes of one machine: LOCAL_WORLD_SIZE, not dist.get_world_size().
    nodes = [n for _, _, n in seen]
    for _, env, n in seen:
        if env["LOCAL_WORLD_SIZE"] is not None:  # set by a launcher
            assert int(env["LOCAL_WORLD_SIZE"]) == nodes.count(n)
dist.destroy_process_group()
