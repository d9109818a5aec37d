"""Registers the op fieldnotes::clip01 when imported, as torchvision registers its ops
(torchvision::nms) when it is imported; and a module that calls it.
Used by docs/*/deploy/torchscript.md."""

import torch
from torch import nn


@torch.library.custom_op("fieldnotes::clip01", mutates_args=(), schema="(Tensor x) -> Tensor")
def clip01(x: torch.Tensor) -> torch.Tensor:
    return x.clamp(0, 1)


class Clip(nn.Module):
    def forward(self, x):
        return torch.ops.fieldnotes.clip01(x) * 2
