"""Evaluation on rank 0 only: through ddp.module, and through the DDP wrapper (which hangs).

The model has a BatchNorm layer, so it has buffers: DDP's forward broadcasts them from rank 0
(broadcast_buffers=True, the default), a collective that the other rank does not join."""
import datetime
import os
import re
import sys
import time

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


def evaluate_on_rank_0(net, name):
    """Rank 0 evaluates with net, then every rank meets at a barrier."""
    where = "dist.barrier()"
    try:
        if rank == 0:
            where = f"{name}(x)"
            net.eval()
            with torch.no_grad():
                net(torch.randn(2, 3))
            net.train()
            where = "dist.barrier()"
        else:
            time.sleep(1)  # rank 1 arrives later, so that rank 0's time-out always comes first
        dist.barrier()
        sys.stdout.write(f"rank {rank}, {name}: passed the barrier\n")
    except RuntimeError as e:
        message = re.sub(r"^\[\S+\] ", "", str(e).splitlines()[0])  # the C++ source location
        if rank != 0:  # a time-out, or the connection that rank 0 closed: it depends on timing
            message = "(not shown)"
        sys.stdout.write(f"rank {rank}, {name}: RuntimeError in {where}: {message}\n")
        sys.stdout.flush()
        time.sleep(2.5)  # stay up while the other rank reports its error
        os._exit(1)
    sys.stdout.flush()


evaluate_on_rank_0(ddp.module, "ddp.module")  # the plain model: no collective
dist.barrier()
evaluate_on_rank_0(ddp, "ddp")  # the wrapper: broadcasts the buffers, rank 1 never joins
dist.destroy_process_group()
os._exit(0)
