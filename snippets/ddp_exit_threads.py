"""Are a gloo group's worker threads still running after destroy_process_group()? (Linux)"""
import gc
import os
import pathlib
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def gloo_workers():
    tasks = pathlib.Path("/proc/self/task").iterdir()  # one entry per thread of this process
    return sum((t / "comm").read_text().strip() == "pt_gloo_runloop" for t in tasks)


for use_ddp in (False, True):
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    if use_ddp:
        DDP(nn.Linear(3, 1))(torch.randn(2, 3)).sum().backward()
    else:
        dist.all_reduce(torch.ones(1))
    dist.destroy_process_group()
    gc.collect()  # the DDP object is gone
    print(f"{'with' if use_ddp else 'without'} DDP: {gloo_workers()} gloo worker threads left")
sys.stdout.flush()
os._exit(0)
