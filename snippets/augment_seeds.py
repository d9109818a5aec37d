"""Datasets that draw one random number per sample, as a random augmentation does.

They live in a module, not in a page, so that DataLoader workers started with "spawn" or
"forkserver" can import them: such a worker receives the dataset pickled and finds its
class again by module and name.
"""

import torch
from torch.utils.data import Dataset


class GlobalNoise(Dataset):
    """Draws from torch's global generator: the worker's, or the main process's."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> float:
        return torch.rand(1).item()


class IndexNoise(GlobalNoise):
    """Draws from a generator seeded by the sample's index and the epoch."""

    def __init__(self, seed: int = 0, epoch: int = 0):
        self.seed, self.epoch = seed, epoch

    def __getitem__(self, i: int) -> float:
        g = torch.Generator().manual_seed(self.seed + self.epoch * len(self) + i)
        return torch.rand(1, generator=g).item()
