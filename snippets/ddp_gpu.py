"""The same DDP check on GPUs: NCCL, one process per GPU."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def gather(t):
    rows = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(rows, t.contiguous())
    return torch.stack(rows)


def flat_grad(module):
    return torch.cat([p.grad.flatten() for p in module.parameters()])


def flat_params(module):
    return torch.cat([p.detach().flatten() for p in module.parameters()])


local_rank = int(os.environ["LOCAL_RANK"])  # which GPU of this machine
torch.cuda.set_device(local_rank)  # before anything touches the GPU
assert torch.cuda.current_device() == local_rank  # not GPU 0 in every process
dist.init_process_group("nccl")
rank, world_size = dist.get_rank(), dist.get_world_size()
device = torch.device("cuda", local_rank)

torch.manual_seed(rank)
model = nn.Linear(3, 1).to(device)
ddp = DDP(model, device_ids=[local_rank])
wrapped = gather(flat_params(model))
assert (wrapped == wrapped[0]).all()

g = torch.Generator().manual_seed(100 + rank)
x, y = torch.randn(4, 3, generator=g).to(device), torch.randn(4, 1, generator=g).to(device)
loss_fn = nn.MSELoss()

plain = nn.Linear(3, 1).to(device)
plain.load_state_dict(model.state_dict())
loss_fn(plain(x), y).backward()
local = gather(flat_grad(plain))

loss_fn(ddp(x), y).backward()
synced = gather(flat_grad(model))
assert torch.allclose(synced, local.mean(dim=0).expand_as(synced), atol=1e-6)

torch.optim.SGD(ddp.parameters(), lr=0.1).step()
stepped = gather(flat_params(model))
assert (stepped == stepped[0]).all()

if rank == 0:
    print("world size:", world_size, "| backend:", dist.get_backend(), "| device of rank 0:", device)
    print("checked: .grad is the mean of the local gradients, parameters equal after step()")
dist.destroy_process_group()
