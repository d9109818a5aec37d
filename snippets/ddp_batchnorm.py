"""BatchNorm under DDP: per-rank batch statistics, and what SyncBatchNorm changes."""
import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--sync", action="store_true", help="convert to nn.SyncBatchNorm")
parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
args = parser.parse_args()

local_rank = int(os.environ["LOCAL_RANK"])
if args.device == "cuda":
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
else:
    device = torch.device("cpu")
dist.init_process_group("nccl" if args.device == "cuda" else "gloo")
rank, world_size = dist.get_rank(), dist.get_world_size()


def gather(t):
    rows = [torch.empty_like(t) for _ in range(world_size)]
    dist.all_gather(rows, t.contiguous())
    return torch.stack(rows)


model = nn.Sequential(nn.BatchNorm1d(2))
if args.sync:
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
bn = model[0]
ddp = DDP(model.to(device), device_ids=[local_rank] if args.device == "cuda" else None)

g = torch.Generator().manual_seed(rank)
batches = [(torch.randn(4, 2, generator=g) + 10 * rank).to(device) for _ in range(2)]
means = []  # running_mean on every rank after each step
for x in batches:
    ddp(x).sum().backward()
    means.append(gather(bn.running_mean))

if rank == 0:
    print(type(bn).__name__, "| running_mean after each step, one row per rank:")
    for step, m in enumerate(means):
        print(f"  step {step}:", [[round(v, 3) for v in row] for row in m.tolist()])

batch_means = gather(torch.stack([x.mean(dim=0) for x in batches]))  # [rank][step]
if args.sync:
    for m in means:
        assert torch.allclose(m, m[0].expand_as(m))  # equal on every rank
    assert torch.allclose(means[0][0], 0.1 * batch_means[:, 0].mean(dim=0))  # the global batch
else:
    # step 0: each rank's own batch only (momentum 0.1, running_mean starts at 0)
    assert torch.allclose(means[0], 0.1 * batch_means[:, 0])
    if world_size > 1:
        assert not torch.allclose(means[0][0], means[0][1])
    # step 1: DDP first copies rank 0's buffers to every rank, then each rank updates with its batch
    assert torch.allclose(means[1], 0.9 * means[0][0] + 0.1 * batch_means[:, 1], atol=1e-6)
dist.destroy_process_group()
# torch 2.13 + gloo: DDP keeps the group's worker threads alive, and one that is still
# releasing the last collective can abort Python's shutdown. Skip the shutdown.
sys.stdout.flush()
os._exit(0)
