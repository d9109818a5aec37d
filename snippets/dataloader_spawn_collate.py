"""A collate_fn that "spawn" can pickle: a function at the top level of this module, found
by name in each worker; functools.partial carries its extra argument. The same loader with
a lambda fails (see the DataLoader page).
"""

from functools import partial

import torch
from torch.utils.data import DataLoader


def stack(batch, scale):
    return torch.stack(batch) * scale


def main():
    loader = DataLoader(torch.arange(4), batch_size=2, num_workers=1,
                        multiprocessing_context="spawn", collate_fn=partial(stack, scale=10))
    batches = [batch.tolist() for batch in loader]
    print(batches)
    assert batches == [[0, 10], [20, 30]]


if __name__ == "__main__":
    main()
