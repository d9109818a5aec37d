"""A parameter that forward never uses: the error, and the DDP options that fix it.

Each argument names a DDP option to set to True (find_unused_parameters, static_graph);
the script trains a fresh model with each in turn. Without arguments: the defaults."""
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


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(3, 1)
        self.unused = nn.Linear(3, 1)  # say, an auxiliary head this model no longer calls

    def forward(self, x):
        return self.used(x)


dist.init_process_group("gloo")
rank = dist.get_rank()
if rank == 0:
    # One write per line: torchrun's workers write unbuffered, and the two parts of a print()
    # (the text, then the newline) could have another rank's traceback between them.
    sys.stdout.write("parameter indices: " + ", ".join(f"{i} {n}" for i, (n, _) in enumerate(TwoHeads().named_parameters())) + "\n")

options = {"find_unused_parameters": dict(find_unused_parameters=True),
           "static_graph": dict(static_graph=True)}
for kwargs in [options[name] for name in sys.argv[1:]] or [{}]:
    torch.manual_seed(0)
    model = TwoHeads()
    ddp = DDP(model, **kwargs)
    g = torch.Generator().manual_seed(rank)  # different data on each rank
    for step in range(3):
        ddp(torch.randn(4, 3, generator=g)).sum().backward()  # no fix: step 1 raises here
        grads = gather(model.used.weight.grad.flatten())
        synced = torch.equal(grads[0], grads[1])
        if rank == 0:
            sys.stdout.write(f"{kwargs or 'defaults'}, step {step}: used.weight.grad equal on all ranks: "
                             f"{synced}, unused.weight.grad: {model.unused.weight.grad}\n")
            sys.stdout.flush()
        assert synced == bool(kwargs)  # with the defaults, step 0 silently skipped the all-reduce
        assert model.unused.weight.grad is None
        model.zero_grad()

if "find_unused_parameters" in sys.argv:  # the flag on a model that uses every parameter
    ddp = DDP(nn.Linear(3, 1), find_unused_parameters=True)
    for step in range(2):
        ddp(torch.randn(4, 3)).sum().backward()  # warns on stderr, once per process
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)
