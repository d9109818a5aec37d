"""The same loader without the ``if __name__ == "__main__":`` guard: each spawned worker
imports this file, reaches the loop at the top level, and tries to start workers of its own.
"""

import torch
from torch.utils.data import DataLoader

loader = DataLoader(torch.arange(8), batch_size=2, num_workers=2,
                    multiprocessing_context="spawn")
for batch in loader:
    print(batch.tolist())
