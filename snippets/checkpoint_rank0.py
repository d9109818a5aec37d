"""Rank 0 writes the checkpoint; every rank reads it after a barrier.

Run: OMP_NUM_THREADS=1 torchrun --standalone --nproc_per_node 2 snippets/checkpoint_rank0.py
"""
import os
import sys
import shutil
import tempfile

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def build(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    # with NCCL: torch.cuda.set_device(local_rank) first, or barriers may use GPU 0
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    device = torch.device("cpu")  # with one GPU per rank: torch.device("cuda", local_rank)

    ddp = DDP(build(seed=rank))  # DDP copies rank 0's weights to every rank
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    torch.manual_seed(10 + rank)  # each rank sees its own batch
    ddp(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()

    # one directory that all ranks agree on: rank 0 creates it, then broadcasts the path
    where = [tempfile.mkdtemp() if rank == 0 else None]
    dist.broadcast_object_list(where, src=0)
    path = os.path.join(where[0], "model.pt")

    if rank == 0:
        torch.save({"model": ddp.module.state_dict(), "step": 1}, path)
    dist.barrier()  # nobody reads before rank 0 has finished writing

    ckpt = torch.load(path, map_location=device, weights_only=True)
    fresh = build(seed=100 + rank)  # different random weights on every rank
    fresh.load_state_dict(ckpt["model"])  # strict: the keys have no "module." prefix
    same = all(torch.equal(a, b) for a, b in zip(fresh.parameters(), ddp.module.parameters()))
    assert same, f"rank {rank} did not load the weights rank 0 saved"
    where_to = ckpt["model"]["0.weight"].device
    report = f"rank {rank}: step {ckpt['step']}, loaded to {where_to}, equal to the DDP model: {same}"

    reports = [None] * dist.get_world_size()
    dist.all_gather_object(reports, report)
    if rank == 0:
        print("rank 0 saved", os.path.basename(path), "with keys", list(ckpt["model"]))
        print("\n".join(reports))
    dist.barrier()  # every rank has read the file before rank 0 deletes it
    if rank == 0:
        shutil.rmtree(where[0])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    # torch 2.13 + gloo: DDP keeps the group's worker threads alive, and one that is still
    # releasing the last collective can abort Python's shutdown (see the DDP page). Skip it.
    sys.stdout.flush()
    os._exit(0)
