"""The modules that docs/*/deploy/torchscript.md traces and scripts.

They live in a file because `torch.jit.script` compiles a function from its source text,
which it reads from the function's .py file (see the page's section "Script needs the
source").
Its name does not start with "torch": torch hides TracerWarnings raised in modules whose
names match `torch.(?!jit)` (its own, torchvision, ...), so a trace of these modules would
print no warning in a plain script.
"""

import torch
from torch import nn


class Gate(nn.Module):
    """A branch on a value: doubles x when its sum is positive, negates it otherwise."""

    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return -x


class KeepTop(nn.Module):
    """A branch on a shape: keeps the k largest scores when there are more than k."""

    def __init__(self, k: int = 4):
        super().__init__()
        self.k = k

    def forward(self, scores):
        if scores.shape[0] > self.k:
            scores = scores.topk(self.k).values
        return scores


@torch.jit.script_if_tracing
def gate(x):
    """Gate's branch as a function, compiled when a trace calls it."""
    if x.sum() > 0:
        return x * 2
    return -x


class GateThenAdd(nn.Module):
    """A module that only tracing sees; its branch is in the scripted `gate`."""

    def forward(self, x):
        return gate(x) + 1


class First(nn.Module):
    """The first k elements; k is not annotated, so TorchScript takes it for a Tensor."""

    def forward(self, x, k):
        return x[:k]


class FirstDefault(nn.Module):
    """The same with a default, `k=3`, not annotated: scripting itself fails."""

    def forward(self, x, k=3):
        return x[:k]


class FirstAnnotated(nn.Module):
    """The same with `k: int`."""

    def forward(self, x, k: int):
        return x[:k]


class Net(nn.Module):
    """A small model to save and load."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).relu()
