"""A layer frozen when DDP is built, unfrozen afterwards: DDP never all-reduces its gradient.

DDP registers its hooks and buckets for the parameters that require grad at construction."""
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


dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))  # [0] the backbone, [1] the head
backbone = model[0]
backbone.requires_grad_(False)  # frozen for the first epochs
ddp = DDP(model)
g = torch.Generator().manual_seed(rank)  # different data on each rank

backbone.requires_grad_(True)  # unfrozen later, with the same DDP wrapper
for wrapper in ("the same wrapper", "a new DDP wrapper"):
    if wrapper == "a new DDP wrapper":
        ddp = DDP(model)  # built after the change: registers the backbone again
    model.zero_grad()
    ddp(torch.randn(4, 3, generator=g)).sum().backward()
    backbone_grads = gather(backbone.weight.grad.flatten())
    head_grads = gather(model[1].weight.grad.flatten())
    synced = torch.equal(backbone_grads[0], backbone_grads[1])
    if rank == 0:
        print(f"unfrozen, {wrapper}: head grad equal on all ranks: "
              f"{torch.equal(head_grads[0], head_grads[1])}, backbone grad equal: {synced}")
    assert torch.equal(head_grads[0], head_grads[1])
    assert synced == (wrapper == "a new DDP wrapper")
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)
