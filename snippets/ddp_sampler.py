"""DistributedSampler: disjoint shards, set_epoch, padding and drop_last (2 processes)."""
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group("gloo")
world_size = dist.get_world_size()


def indices(n, epochs=1, set_epoch=True, seed=0, **kwargs):
    """For each epoch, the dataset indices that each rank's DataLoader yields."""
    dataset = list(range(n))  # item i is i, so the loader yields the indices themselves
    sampler = DistributedSampler(dataset, shuffle=True, seed=seed, **kwargs)
    loader = DataLoader(dataset, batch_size=2, sampler=sampler)
    mine = []
    for epoch in range(epochs):
        if set_epoch:
            sampler.set_epoch(epoch)
        mine.append([i for batch in loader for i in batch.tolist()])
        if n % world_size == 0:  # one shuffle of all the indices, the same on every rank
            seed_now = seed + (epoch if set_epoch else 0)
            order = torch.randperm(n, generator=torch.Generator().manual_seed(seed_now))
            assert mine[-1] == order.tolist()[dist.get_rank()::world_size]
    everyone = [None] * world_size
    dist.all_gather_object(everyone, mine)
    return [[everyone[r][e] for r in range(world_size)] for e in range(epochs)]  # [epoch][rank]


def show(title, runs):
    if dist.get_rank() == 0:
        print(title)
        for epoch, ranks in enumerate(runs):
            print(f"  epoch {epoch}:", "  ".join(f"rank {r} {ix}" for r, ix in enumerate(ranks)))


without = indices(8, epochs=2, set_epoch=False)
show("8 samples, no set_epoch:", without)
assert without[0] == without[1]  # the same shuffle every epoch

with_ = indices(8, epochs=2)
show("8 samples, set_epoch(epoch):", with_)
assert with_[0] != with_[1]
for ranks in without + with_:
    assert sorted(sum(ranks, [])) == list(range(8))  # disjoint shards that cover everything

padded = indices(7)
show("7 samples (drop_last=False):", padded)
flat = sum(padded[0], [])
assert len(flat) == 8 and sorted(set(flat)) == list(range(7))
if dist.get_rank() == 0:
    print("  seen twice:", sorted(i for i in set(flat) if flat.count(i) == 2))
# A metric over the padded shards: gather each sample's result with its index, one per index.
results = [None] * world_size
mine = padded[0][dist.get_rank()]
dist.all_gather_object(results, [(i, i % 2 == 0) for i in mine])  # (index, correct?)
pairs = sum(results, [])
with_padding = sum(ok for _, ok in pairs) / len(pairs)
per_sample = dict(pairs)  # one result per index: the padding drops out
accuracy = sum(per_sample.values()) / len(per_sample)
assert len(per_sample) == 7 and accuracy == 4 / 7 and with_padding != accuracy
if dist.get_rank() == 0:
    print(f"  accuracy: {with_padding:.4f} with the padding, {accuracy:.4f} per sample")

dropped = indices(7, drop_last=True)
show("7 samples, drop_last=True:", dropped)
flat = sum(dropped[0], [])
assert len(flat) == len(set(flat)) == 6
if dist.get_rank() == 0:
    print("  never seen:", sorted(set(range(7)) - set(flat)))
mixed = indices(8, seed=dist.get_rank())  # a different seed on each rank: wrong
show("8 samples, seed=rank:", mixed)
flat = sum(mixed[0], [])
assert len(set(flat)) < 8
if dist.get_rank() == 0:
    print("  on both ranks:", sorted(i for i in set(flat) if flat.count(i) == 2))
dist.barrier()  # every rank gets here before the group is torn down
dist.destroy_process_group()
