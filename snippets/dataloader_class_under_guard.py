"""A Dataset class defined under the ``if __name__ == "__main__":`` guard. A worker
started by "spawn" imports this file as ``__mp_main__``, so the guarded block does not
run there: the worker never defines ``Squares``, and cannot unpickle the dataset.
"""

import torch
from torch.utils.data import DataLoader, Dataset

if __name__ == "__main__":

    class Squares(Dataset):  # defined here, in the main process only
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return torch.tensor(i * i)

    loader = DataLoader(Squares(), batch_size=2, num_workers=1,
                        multiprocessing_context="spawn")
    print(next(iter(loader)).tolist())
