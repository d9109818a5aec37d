"""Tests of snippets/worker_seeds.py: the datasets of the DataLoader seeding section.

The training-loop pitfalls page shows that a NumPy Generator created in ``__init__`` gives
every worker the same stream, that NumPy's global generator does not, and that
``reseed_worker`` fixes the first. Here the same facts are checked under every start method
the platform offers, which is why the datasets live in an importable module.
"""

from __future__ import annotations

import multiprocessing

import pytest
import torch
from torch.utils.data import DataLoader

import worker_seeds

METHODS = [m for m in ("fork", "spawn", "forkserver")
           if m in multiprocessing.get_all_start_methods()]
FAST = "fork" if "fork" in METHODS else None  # for the tests that do not depend on the method


def draws(dataset, context=None, seed=0, **kwargs):
    loader = DataLoader(dataset, batch_size=2, num_workers=2, multiprocessing_context=context,
                        generator=torch.Generator().manual_seed(seed), **kwargs)
    rows = []
    for workers, values in loader:
        rows += zip(workers.tolist(), values.tolist())
    return rows


def by_worker(rows):
    return [[v for w, v in rows if w == k] for k in (0, 1)]


def test_main_process_has_no_worker():
    assert worker_seeds.worker_id() == -1
    assert worker_seeds.GeneratorNoise()[0][0] == -1


def test_same_seed_same_stream_in_main_process():
    a, b = worker_seeds.GeneratorNoise(seed=3), worker_seeds.GeneratorNoise(seed=3)
    assert [a[i] for i in range(4)] == [b[i] for i in range(4)]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("context", METHODS)
def test_generator_in_init_repeats_across_workers(context):
    rows = draws(worker_seeds.GeneratorNoise(), context)
    assert [w for w, _ in rows] == [0, 0, 1, 1, 0, 0, 1, 1]
    first, second = by_worker(rows)
    assert first == second


@pytest.mark.timeout(120)
@pytest.mark.parametrize("context", METHODS)
def test_reseed_worker_gives_distinct_streams(context):
    ds = worker_seeds.GeneratorNoise()
    first, second = by_worker(draws(ds, context, worker_init_fn=worker_seeds.reseed_worker))
    assert first != second


def test_reseed_worker_is_reproducible():
    ds = worker_seeds.GeneratorNoise()
    once = draws(ds, FAST, seed=5, worker_init_fn=worker_seeds.reseed_worker)
    assert draws(ds, FAST, seed=5, worker_init_fn=worker_seeds.reseed_worker) == once
    assert draws(ds, FAST, seed=6, worker_init_fn=worker_seeds.reseed_worker) != once


def test_global_numpy_is_seeded_per_worker():
    first, second = by_worker(draws(worker_seeds.GlobalNumpyNoise(), FAST))
    assert first != second
