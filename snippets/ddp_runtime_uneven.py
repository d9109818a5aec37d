"""Uneven inputs: rank 0 has 3 batches, rank 1 has 2. With model.join(), and without (--no-join)."""
import contextlib
import copy
import datetime
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def gather(t):
    """Stack t from every rank: row r is rank r's tensor."""
    rows = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(rows, t.contiguous())
    return torch.stack(rows)


def flat(tensors):
    return torch.cat([t.detach().flatten() for t in tensors])


dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=3))
rank, world_size = dist.get_rank(), dist.get_world_size()
join = "--no-join" not in sys.argv

torch.manual_seed(0)
model = nn.Linear(3, 1)
ddp = DDP(model)
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
g = torch.Generator().manual_seed(rank)
batches = [torch.randn(4, 3, generator=g) for _ in range(3 if rank == 0 else 2)]

local_grads, ddp_grads = [], []
try:
    with ddp.join() if join else contextlib.nullcontext():
        for x in batches:
            plain = copy.deepcopy(model)  # the gradient of this rank alone, for comparison
            plain(x).sum().backward()
            local_grads.append(flat(p.grad for p in plain.parameters()))
            ddp(x).sum().backward()
            ddp_grads.append(flat(p.grad for p in model.parameters()))
            optimizer.step()
            optimizer.zero_grad()
    dist.barrier()  # what comes after the loop: validation, a checkpoint ...
except RuntimeError as e:
    where = f"batch {len(ddp_grads)}" if len(ddp_grads) < len(batches) else "dist.barrier()"
    # The message is a time-out on the rank that gives up first; on the other, a time-out or the
    # connection the first one dropped, depending on timing. So only the kind is printed.
    sys.stdout.write(f"rank {rank}, in {where}: RuntimeError\n")  # one write per line
    sys.stdout.flush()
    os._exit(1)

# Only rank 0 ran batch 2: its .grad was its own gradient divided by the world size.
if rank == 0:
    assert torch.allclose(ddp_grads[2], local_grads[2] / world_size)
params = gather(flat(model.parameters()))
assert torch.equal(params[0], params[1])  # still equal on every rank
if rank == 0:
    fmt = lambda t: "[" + ", ".join(f"{v:+.4f}" for v in t.tolist()) + "]"
    print("batches: rank 0 has 3, rank 1 has 2; with join(): all ranks finished")
    print(f"rank 0, batch 2: own gradient          {fmt(local_grads[2])}")
    print(f"rank 0, batch 2: DDP .grad             {fmt(ddp_grads[2])}")
    print(f"parameters at the end, rank 0 {fmt(params[0])}")
    print(f"                       rank 1 {fmt(params[1])}")
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)
