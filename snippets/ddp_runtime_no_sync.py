"""Gradient accumulation under DDP: no_sync() skips the all-reduce, and what decides it."""
import contextlib
import copy
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP


def gather(t):
    """Stack t from every rank: row r is rank r's tensor."""
    rows = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(rows, t.contiguous())
    return torch.stack(rows)


def flat_grad(module):
    return torch.cat([p.grad.flatten() for p in module.parameters()])


dist.init_process_group("gloo")
rank, world_size = dist.get_rank(), dist.get_world_size()

torch.manual_seed(0)
model = nn.Linear(3, 1)
single = copy.deepcopy(model)  # one process, one large batch
ddp = DDP(model)

# Count the all-reduces: a comm hook runs once per gradient bucket that DDP reduces.
calls = {"n": 0}


def counting_allreduce(state, bucket):
    state["n"] += 1
    return default_hooks.allreduce_hook(None, bucket)  # DDP's usual reduction: sum / world size


ddp.register_comm_hook(calls, counting_allreduce)

accum = 2  # micro-batches of 4 samples per rank and optimizer step
g = torch.Generator().manual_seed(rank)
micro = [(torch.randn(4, 3, generator=g), torch.randn(4, 1, generator=g)) for _ in range(accum)]

log = []
for i, (x, y) in enumerate(micro):
    last = i == accum - 1
    with contextlib.nullcontext() if last else ddp.no_sync():  # sync only on the last one
        loss = F.mse_loss(ddp(x), y) / accum
        loss.backward()
    grads = gather(flat_grad(model))
    log.append((calls["n"], torch.equal(grads[0], grads[1])))
assert log == [(0, False), (1, True)]  # no all-reduce inside no_sync(), one after the last backward

# The same gradient as one process on the global batch: 2 ranks x 2 micro-batches x 4 samples.
big_x = torch.cat([gather(x).flatten(0, 1) for x, _ in micro])
big_y = torch.cat([gather(y).flatten(0, 1) for _, y in micro])
F.mse_loss(single(big_x), big_y).backward()
accumulated = flat_grad(model)
assert torch.allclose(accumulated, flat_grad(single))

# What decides is where the forward pass ran: forward outside, backward inside no_sync().
model.zero_grad()
calls["n"] = 0
x, y = micro[0]
out = ddp(x)  # outside
with ddp.no_sync():
    F.mse_loss(out, y).backward()
outside = (calls["n"], torch.equal(*gather(flat_grad(model))))
assert outside == (1, True)  # synchronised anyway

model.zero_grad()
calls["n"] = 0
with ddp.no_sync():
    out = ddp(x)  # inside
F.mse_loss(out, y).backward()  # outside
inside = (calls["n"], torch.equal(*gather(flat_grad(model))))
assert inside == (0, False)  # not synchronised

if rank == 0:
    fmt = lambda t: "[" + ", ".join(f"{v:+.4f}" for v in t.tolist()) + "]"
    for i, (n, equal) in enumerate(log):
        where = "outside" if i == accum - 1 else "inside no_sync()"
        print(f"micro-batch {i} ({where}): all-reduces so far {n}, .grad equal on all ranks: {equal}")
    print(f"accumulated DDP .grad                      {fmt(accumulated)}")
    print(f"one process, mean loss over all {len(big_x)} samples {fmt(flat_grad(single))}")
    for name, (n, equal) in (("forward outside, backward inside", outside),
                             ("forward inside, backward outside", inside)):
        print(f"{name} no_sync(): all-reduces {n}, .grad equal on all ranks: {equal}")
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)
