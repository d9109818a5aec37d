"""Datasets that draw one random number per sample, to show how DataLoader workers are seeded.

Each sample is ``(worker id, random draw)``; the worker id is -1 in the main process.
They live in a module, not in a page, so that worker processes can import them under any
start method: with "spawn" or "forkserver" a worker receives the dataset pickled, and finds
its class again by module and name.
"""

import random

import numpy as np
import torch
from torch.utils.data import Dataset, get_worker_info


def worker_id() -> int:
    """Id of the DataLoader worker running this code, -1 in the main process."""
    info = get_worker_info()
    return -1 if info is None else info.id


class GlobalNumpyNoise(Dataset):
    """Draws from NumPy's global generator (``np.random.randint``)."""

    def __init__(self, n: int = 8):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return worker_id(), int(np.random.randint(1000))


class TorchNoise(GlobalNumpyNoise):
    """Draws from torch's global generator (``torch.randint``)."""

    def __getitem__(self, i: int):
        return worker_id(), int(torch.randint(1000, ()))


class PythonRandomNoise(GlobalNumpyNoise):
    """Draws from Python's global generator (``random.randrange``)."""

    def __getitem__(self, i: int):
        return worker_id(), random.randrange(1000)


class GeneratorNoise(Dataset):
    """Draws from a ``np.random.Generator`` created once, in ``__init__``."""

    def __init__(self, n: int = 8, seed: int = 0):
        self.n = n
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return worker_id(), int(self.rng.integers(1000))


def reseed_worker(worker: int) -> None:
    """``worker_init_fn``: give this worker's copy of the dataset its own generator.

    ``get_worker_info().seed`` is ``base_seed + worker id``; the DataLoader draws a new
    ``base_seed`` from the main process's torch generator (or from its ``generator=``)
    each time an iterator starts its workers.
    """
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)
