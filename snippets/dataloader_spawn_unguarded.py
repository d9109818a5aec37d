"""The loader of dataloader_spawn.py without its ``if __name__ == "__main__":`` guard: each
spawned worker imports this file, reaches the loop at the top level, and tries to start
workers of its own. The start method is the first argument ("spawn" if none is given).
"""

import sys

from torch.utils.data import DataLoader

from dataloader_spawn import Sequences, pad_collate  # the same Dataset and collate_fn

method = sys.argv[1] if len(sys.argv) > 1 else "spawn"
loader = DataLoader(Sequences(), batch_size=2, collate_fn=pad_collate, num_workers=2,
                    multiprocessing_context=method)
for padded, lengths in loader:
    print(tuple(padded.shape), lengths.tolist(), padded.tolist())
