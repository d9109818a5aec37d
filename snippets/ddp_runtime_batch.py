"""What DDP averages: the per-process batch, the global batch, and the learning rate."""
import copy
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def gather(t):
    """Stack t from every rank: row r is rank r's tensor."""
    rows = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(rows, t.contiguous())
    return torch.stack(rows)


def flat_grad(module):
    return torch.cat([p.grad.flatten() for p in module.parameters()])


def flat_params(module):
    return torch.cat([p.detach().flatten() for p in module.parameters()])


dist.init_process_group("gloo")
rank, world_size = dist.get_rank(), dist.get_world_size()

g = torch.Generator().manual_seed(0)
dataset = TensorDataset(torch.randn(16, 3, generator=g), torch.randn(16, 1, generator=g))
sampler = DistributedSampler(dataset, shuffle=False)
loader = DataLoader(dataset, batch_size=4, sampler=sampler)  # batch_size is per process
x, y = next(iter(loader))
first_ids = gather(torch.tensor(list(sampler)[:4]))  # which samples each rank's batch holds

torch.manual_seed(0)
model = nn.Linear(3, 1)
single = copy.deepcopy(model)  # one process that sees the whole global batch
ddp = DDP(model)

loss = F.mse_loss(ddp(x), y)  # the mean over this rank's 4 samples
loss.backward()
losses = gather(loss.detach())

global_x, global_y = gather(x).flatten(0, 1), gather(y).flatten(0, 1)  # 8 samples
global_loss = F.mse_loss(single(global_x), global_y)
global_loss.backward()
assert torch.allclose(flat_grad(model), flat_grad(single))  # DDP .grad = grad of the global mean loss
assert torch.allclose(losses.mean(), global_loss)  # but each rank's `loss` is only its own

# With reduction="sum" DDP still divides by the world size.
summed, summed_single = copy.deepcopy(single), copy.deepcopy(single)
for m in (summed, summed_single):
    m.zero_grad()
ddp_summed = DDP(summed)  # a name, not DDP(summed)(x): a freed DDP object syncs nothing
F.mse_loss(ddp_summed(x), y, reduction="sum").backward()
F.mse_loss(summed_single(global_x), global_y, reduction="sum").backward()
assert torch.allclose(flat_grad(summed), flat_grad(summed_single) / world_size)

# The same learning rate on both: DDP does not scale it.
torch.optim.SGD(model.parameters(), lr=0.1).step()
torch.optim.SGD(single.parameters(), lr=0.1).step()
assert torch.allclose(flat_params(model), flat_params(single))

# The fix: decide the global batch (a one-process recipe: batch 4 at lr=0.1), and give each
# process its share of it. The step is then the recipe's step.
global_batch = 4
share = DataLoader(dataset, batch_size=global_batch // world_size, sampler=sampler)
xs, ys = next(iter(share))  # rank 0: samples 0 and 2, rank 1: samples 1 and 3
torch.manual_seed(0)
kept = nn.Linear(3, 1)
recipe = copy.deepcopy(kept)
ddp_kept = DDP(kept)
F.mse_loss(ddp_kept(xs), ys).backward()
F.mse_loss(recipe(dataset[:global_batch][0]), dataset[:global_batch][1]).backward()
torch.optim.SGD(kept.parameters(), lr=0.1).step()
torch.optim.SGD(recipe.parameters(), lr=0.1).step()
assert torch.allclose(flat_params(kept), flat_params(recipe))

if rank == 0:
    fmt = lambda t: "[" + ", ".join(f"{v:+.4f}" for v in t.tolist()) + "]"
    print(f"batch_size=4 per process x world size {world_size} = global batch {len(global_x)}")
    for r in range(world_size):
        print(f"rank {r}: samples {first_ids[r].tolist()}, loss {losses[r].item():.4f}")
    print(f"mean of the ranks' losses {losses.mean().item():.4f} | "
          f"one process, mean loss over all 8: {global_loss.item():.4f}")
    print(f"DDP .grad                         {fmt(flat_grad(model))}")
    print(f"grad of the mean loss over all 8  {fmt(flat_grad(single))}")
    print(f"reduction='sum': DDP .grad        {fmt(flat_grad(summed))}")
    print(f"grad of the summed loss / {world_size}       {fmt(flat_grad(summed_single) / world_size)}")
    print(f"DDP, after SGD(lr=0.1).step()     {fmt(flat_params(model))}")
    print(f"one process, SGD(lr=0.1), batch 8 {fmt(flat_params(single))}")
    print(f"batch_size={global_batch // world_size} per process, global batch {global_batch}, "
          f"lr=0.1: the one-process step with batch {global_batch} (asserted)")
dist.destroy_process_group()
# torch 2.13 + gloo: skip Python's shutdown, see ddp.md#crash-at-exit.
sys.stdout.flush()
os._exit(0)
