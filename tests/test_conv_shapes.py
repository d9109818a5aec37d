"""Tests of snippets/conv_shapes.py: the size formula and the dilated kernel agree with torch.

The nn.Conv2d page checks torch against these functions, so the functions themselves must be
right: here the formula is compared with the shape torch produces (and with torch raising when
the formula gives less than 1) on every configuration of a grid, and the zero-inserted kernel
with torch's dilated convolution.
"""

from __future__ import annotations

import doctest
import itertools

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import conv_shapes as cs

GRID = list(itertools.product((1, 2, 3, 5, 8, 11), (1, 2, 3, 5), (1, 2, 3), (0, 1, 2), (1, 2, 3)))


@pytest.mark.parametrize("k, d", [(1, 1), (1, 5), (3, 1), (3, 2), (3, 3), (4, 2)])
def test_effective_kernel_size(k, d):
    x = torch.zeros(1, 1, 1, 40, requires_grad=True)
    F.conv2d(x, torch.ones(1, 1, 1, k), dilation=(1, d))[0, 0, 0, 0].backward()
    taps = x.grad[0, 0, 0].nonzero().flatten()
    assert int(taps[-1] - taps[0]) + 1 == cs.effective_kernel_size(k, d)


def test_conv_output_length_matches_torch_or_torch_raises():
    for size, k, s, p, d in GRID:
        expected = cs.conv_output_length(size, k, s, p, d)
        x, w = torch.zeros(1, 1, 1, size), torch.zeros(1, 1, 1, k)
        if expected < 1:
            with pytest.raises(RuntimeError):
                F.conv2d(x, w, stride=(1, s), padding=(0, p), dilation=(1, d))
        else:
            out = F.conv2d(x, w, stride=(1, s), padding=(0, p), dilation=(1, d))
            assert out.shape[-1] == expected, (size, k, s, p, d)


def test_conv2d_output_size_with_pairs_matches_module():
    valid = [c for c in GRID if cs.conv_output_length(*c) >= 1]
    for i, (h_cfg, w_cfg) in enumerate(zip(valid, valid[7:] + valid[:7])):
        (h, kh, sh, ph, dh), (w, kw, sw, pw, dw) = h_cfg, w_cfg
        conv = nn.Conv2d(1, 1, (kh, kw), stride=(sh, sw), padding=(ph, pw), dilation=(dh, dw))
        with torch.no_grad():
            shape = tuple(conv(torch.zeros(1, 1, h, w)).shape[-2:])
        assert shape == cs.conv2d_output_size(h, w, (kh, kw), (sh, sw), (ph, pw), (dh, dw))


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("k", [1, 2, 3, 4, (2, 5)])
@pytest.mark.parametrize("d", [1, 2, (3, 1)])
def test_conv2d_output_size_strings(k, d):
    conv_same = nn.Conv2d(1, 1, k, padding="same", dilation=d)
    conv_valid = nn.Conv2d(1, 1, k, padding="valid", dilation=d)
    x = torch.zeros(1, 1, 13, 14)
    with torch.no_grad():
        assert tuple(conv_same(x).shape[-2:]) == cs.conv2d_output_size(13, 14, k, 1, "same", d)
        assert tuple(conv_valid(x).shape[-2:]) == cs.conv2d_output_size(13, 14, k, 1, "valid", d)


def test_conv2d_output_size_rejects_same_with_stride_like_torch():
    with pytest.raises(ValueError, match="strided"):
        nn.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="strided"):
        cs.conv2d_output_size(8, 8, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string"):
        cs.conv2d_output_size(8, 8, 3, padding="full")


@pytest.mark.parametrize("d", [1, 2, 3, (2, 3)])
@pytest.mark.parametrize("groups", [1, 2])
def test_dilate_kernel_matches_dilated_conv(d, groups):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 4, 15, 16, generator=g)
    w = torch.randn(6, 4 // groups, 3, 2, generator=g)
    wd = cs.dilate_kernel(w, d)
    dh, dw = (d, d) if isinstance(d, int) else d
    assert wd.shape == (6, 4 // groups, 2 * dh + 1, dw + 1)
    assert int((wd != 0).sum()) == int((w != 0).sum())
    expected = F.conv2d(x, w, dilation=d, groups=groups)
    assert torch.allclose(F.conv2d(x, wd, groups=groups), expected, atol=1e-5)


def test_dilate_kernel_keeps_dtype_and_input():
    w = torch.ones(1, 1, 2, 2, dtype=torch.float64)
    wd = cs.dilate_kernel(w, 3)
    assert wd.dtype == torch.float64
    assert torch.equal(w, torch.ones(1, 1, 2, 2, dtype=torch.float64))


def test_docstring_examples():
    result = doctest.testmod(cs, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 6
    assert result.failed == 0


def test_public_functions_have_google_docstrings():
    for name in ("effective_kernel_size", "conv_output_length", "conv2d_output_size",
                 "dilate_kernel"):
        doc = getattr(cs, name).__doc__
        for section in ("Args:", "Returns:", "Examples:"):
            assert section in doc, f"{name} lacks {section}"
