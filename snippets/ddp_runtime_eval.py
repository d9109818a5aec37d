"""Evaluation on rank 0 only: through ddp.module, and through the DDP wrapper (which hangs).

The model has a BatchNorm layer, so it has buffers: DDP's forward broadcasts them from rank 0
(broadcast_buffers=True, the default), a collective that the other rank does not join.

--module-only  evaluate through ddp.module only: the fix"""
import datetime
import os
import re
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=3))  # the default is 30 min
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
ddp = DDP(model)
ddp(torch.randn(4, 3)).sum().backward()  # a training step on every rank


def wait_for(path, seconds=60):
    """Files in the shared working folder tell the other rank how far this one got."""
    for _ in range(seconds * 20):
        if Path(path).exists():
            return
        time.sleep(0.05)


def evaluate_on_rank_0(net, name):
    """Rank 0 evaluates with net, then every rank meets at a barrier."""
    where = "dist.barrier()"
    try:
        if rank == 0:
            where = f"{name}(x)"
            Path(f"{name}.started").touch()
            net.eval()
            with torch.no_grad():
                net(torch.randn(2, 3))
            net.train()
            where = "dist.barrier()"
        else:
            wait_for(f"{name}.started")  # rank 0 is evaluating
            if name == "ddp":
                time.sleep(1.5)  # reach the barrier well after rank 0's broadcast: its time-out comes first
        dist.barrier()
        sys.stdout.write(f"rank {rank}, {name}: passed the barrier\n")
    except RuntimeError as e:
        message = re.sub(r"^\[\S+\] ", "", str(e).splitlines()[0])  # the C++ source location
        if rank == 0 and re.search(r"Timed out waiting 3000ms|Application timeout caused pair closure", message):
            message = "timed out after 3000 ms"  # gloo words it one way or the other, depending on timing
        if rank != 0:  # its own time-out, or the connection rank 0 closed at its time-out: timing
            message = "(not shown)"
        sys.stdout.write(f"rank {rank}, {name}: RuntimeError in {where}: {message}\n")
        sys.stdout.flush()
        Path(f"rank{rank}.failed").touch()
        wait_for(f"rank{1 - rank}.failed")  # exit after the other rank has reported: torchrun then
        os._exit(1)                         # stops the rest, which must not cut a report short
    sys.stdout.flush()
    return True  # on an error the rank has exited above


assert evaluate_on_rank_0(ddp.module, "ddp.module")  # the plain model: no collective
dist.barrier()
if "--module-only" not in sys.argv:
    evaluate_on_rank_0(ddp, "ddp")  # the wrapper: broadcasts the buffers, rank 1 never joins
dist.destroy_process_group()
os._exit(0)
