"""A DataLoader with two workers started by "spawn", the default start method on macOS and
Windows: each worker is a new interpreter that imports this file again (as ``__mp_main__``).

Only definitions sit at the top level, so that import is harmless: the Dataset and the
collate_fn are found by name in the workers. Everything that runs is under the guard.
"""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Sequences(Dataset):
    """Sample i is the sequence 1, 2, ..., length of i."""

    lengths = [3, 5, 2, 4]

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        return torch.arange(1, self.lengths[i] + 1)


def pad_collate(batch):
    """Pad to the longest sequence of the batch; also return the true lengths."""
    lengths = torch.tensor([len(seq) for seq in batch])
    return pad_sequence(batch, batch_first=True), lengths


def main():
    loader = DataLoader(Sequences(), batch_size=2, collate_fn=pad_collate, num_workers=2,
                        multiprocessing_context="spawn")
    batch_lengths = []
    for padded, lengths in loader:
        print(tuple(padded.shape), lengths.tolist(), padded.tolist())
        batch_lengths.append(lengths.tolist())
    assert batch_lengths == [[3, 5], [2, 4]]  # every batch came back from the workers


if __name__ == "__main__":
    main()
