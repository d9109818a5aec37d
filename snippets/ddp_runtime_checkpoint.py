"""One layer applied twice, each time under reentrant activation checkpointing.

Each reentrant checkpoint runs a backward pass of its own, so DDP's hook on each of the
layer's parameters fires twice in one iteration. The script compares the gradients with one
process on both ranks' data, for each way of wrapping."""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


def gather(t):
    """Stack t from every rank: row r is rank r's tensor."""
    rows = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(rows, t.contiguous())
    return torch.stack(rows)


class Twice(nn.Module):
    def __init__(self, checkpoint_kwargs):
        super().__init__()
        self.block = nn.Linear(3, 3)
        self.checkpoint_kwargs = checkpoint_kwargs

    def forward(self, x):
        for _ in range(2):  # the same block twice, say a weight-shared layer
            x = checkpoint(self.block, x, **self.checkpoint_kwargs)
        return x


dist.init_process_group("gloo")
rank = dist.get_rank()
reentrant = dict(use_reentrant=True)
cases = [("use_reentrant=True", reentrant, {}),
         ("use_reentrant=True, find_unused_parameters=True", reentrant,
          dict(find_unused_parameters=True)),
         ("use_reentrant=True, static_graph=True", reentrant, dict(static_graph=True)),
         ("use_reentrant=False", dict(use_reentrant=False), {})]  # the two fixes: these two
for name, checkpoint_kwargs, kwargs in cases:
    use_reentrant = checkpoint_kwargs["use_reentrant"]
    torch.manual_seed(0)
    model = Twice(checkpoint_kwargs)
    ddp = DDP(model, **kwargs)
    g = torch.Generator().manual_seed(rank)  # different data on each rank
    x = torch.randn(4, 3, generator=g, requires_grad=True)
    try:
        ddp(x).sum().backward()
    except RuntimeError as e:
        lines = str(e).splitlines()
        if rank == 0:
            # one write per line: torchrun's workers write unbuffered (see ddp_runtime_unused.py)
            sys.stdout.write(f"{name}: RuntimeError: {lines[0].split('. ')[0]}.\n")
            sys.stdout.write("  " + lines[-1].replace("  ", " ") + "\n")  # names the parameter
        assert kwargs == {"find_unused_parameters": True}
        continue
    grads = gather(model.block.weight.grad.flatten())
    torch.manual_seed(0)
    single = Twice(checkpoint_kwargs)  # one process, both ranks' samples
    single(gather(x.detach()).flatten(0, 1).requires_grad_()).sum().backward()
    right = torch.allclose(grads[0], single.block.weight.grad.flatten() / 2)
    if rank == 0:
        sys.stdout.write(f"{name}: grad equal on all ranks: {torch.equal(grads[0], grads[1])}, "
                         f"equal to one process: {right}\n")
    assert right == (kwargs != {} or not use_reentrant)  # the plain reentrant case is silently wrong
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)
