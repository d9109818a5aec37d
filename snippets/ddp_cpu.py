"""DDP on CPU with gloo: gradients are averaged over ranks, parameters stay equal."""
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


def flat_grad(module):
    return torch.cat([p.grad.flatten() for p in module.parameters()])


def flat_params(module):
    return torch.cat([p.detach().flatten() for p in module.parameters()])


dist.init_process_group("gloo")  # the launcher set RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
rank, world_size = dist.get_rank(), dist.get_world_size()

torch.manual_seed(rank)  # on purpose: different initial weights on each rank
model = nn.Linear(3, 1)
initial = gather(flat_params(model))
ddp = DDP(model)  # copies rank 0's parameters (and buffers) to every rank
wrapped = gather(flat_params(model))
assert not torch.equal(initial[0], initial[1])
assert (wrapped == wrapped[0]).all()

# Each rank trains on its own data.
g = torch.Generator().manual_seed(100 + rank)
x, y = torch.randn(4, 3, generator=g), torch.randn(4, 1, generator=g)
loss_fn = nn.MSELoss()

# The local gradient, without DDP: a plain copy of the same weights on the same data.
plain = nn.Linear(3, 1)
plain.load_state_dict(model.state_dict())
loss_fn(plain(x), y).backward()
local = gather(flat_grad(plain))

loss_fn(ddp(x), y).backward()  # DDP all-reduces the gradients during backward
synced = gather(flat_grad(model))
assert not torch.allclose(local[0], local[1])
assert torch.allclose(synced, local.mean(dim=0).expand_as(synced))  # every rank: the mean

optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
optimizer.step()
stepped = gather(flat_params(model))
assert (stepped == stepped[0]).all()

if rank == 0:
    fmt = lambda t: "[" + ", ".join(f"{v:+.4f}" for v in t.tolist()) + "]"
    print("world size:", world_size)
    for r in range(world_size):
        print(f"rank {r}: initial params {fmt(initial[r])} -> after DDP() {fmt(wrapped[r])}")
    for r in range(world_size):
        print(f"rank {r}: local grad {fmt(local[r])} | .grad after DDP backward {fmt(synced[r])}")
    print(f"mean of local grads:  {fmt(local.mean(dim=0))}")
    for r in range(world_size):
        print(f"rank {r}: params after optimizer.step() {fmt(stepped[r])}")
dist.destroy_process_group()
# torch 2.13 + gloo: DDP keeps the group's worker threads alive, and one that is still
# releasing the last collective can abort Python's shutdown. Skip the shutdown.
sys.stdout.flush()
os._exit(0)
