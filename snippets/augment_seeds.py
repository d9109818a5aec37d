"""Datasets that draw one random number per sample, as a random augmentation does.

They live in a module, not in a page, so that DataLoader workers started with "spawn" or
"forkserver" can import them: such a worker receives the dataset pickled and finds its
class again by module and name.
"""

import numpy as np
import torch
from torch.utils.data import Dataset


class GlobalNoise(Dataset):
    """Draws from torch's global generator: the worker's, or the main process's."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> float:
        return torch.rand(1).item()


class IndexNoise(GlobalNoise):
    """Draws from a generator seeded by the run's seed, the epoch and the index."""

    def __init__(self, seed: int = 0, epoch: int = 0):
        self.seed, self.epoch = seed, epoch

    def __getitem__(self, i: int) -> float:
        # one seed per (seed, epoch, i): SeedSequence mixes them; a sum would collide
        state = np.random.SeedSequence([self.seed, self.epoch, i]).generate_state(1)[0]
        g = torch.Generator().manual_seed(int(state))
        return torch.rand(1, generator=g).item()


class SharedEpochNoise(IndexNoise):
    """IndexNoise with its epoch in shared memory: persistent workers see it change."""

    def __init__(self, seed: int = 0, epoch: int = 0):
        self.shared_epoch = torch.tensor([epoch]).share_memory_()
        super().__init__(seed, epoch)

    @property
    def epoch(self) -> int:
        return int(self.shared_epoch)

    @epoch.setter
    def epoch(self, value: int) -> None:
        self.shared_epoch.fill_(value)  # the workers' copies share this memory
