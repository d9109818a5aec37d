"""Tests of snippets/init_stats.py: the restated formulas agree with torch.nn.init.

The init page compares torch's samples against these formulas, so the formulas must match
what torch computes: ``fans`` against torch's (private) fan helper on many shapes, and
``expected_spread`` against samples drawn by torch with a seeded generator.
"""

from __future__ import annotations

import doctest
import math

import pytest
import torch
from torch import nn

import init_stats

SHAPES = [(3, 5), (10, 784), (784, 10), (16, 3, 3), (64, 3, 7, 7), (8, 4, 2, 3, 3), (1, 1)]


@pytest.mark.parametrize("shape", SHAPES)
def test_fans_match_torch(shape):
    assert init_stats.fans(shape) == nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


@pytest.mark.parametrize("shape", [(), (5,)])
def test_fans_need_two_dims(shape):
    with pytest.raises(ValueError):
        init_stats.fans(shape)
    with pytest.raises(ValueError):
        nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


@pytest.mark.parametrize("slope", [0.0, 0.01, 0.2, math.sqrt(5)])
def test_leaky_relu_gain_matches_torch(slope):
    assert math.isclose(init_stats.leaky_relu_gain(slope),
                        nn.init.calculate_gain("leaky_relu", slope))


SPREAD_SHAPES = [(400, 600), (600, 400), (64, 32, 3, 3)]


@pytest.mark.parametrize("shape", SPREAD_SHAPES)
@pytest.mark.parametrize("gain", [1.0, 5 / 3])
def test_xavier_spread(shape, gain):
    for name in ("xavier_uniform_", "xavier_normal_"):
        g = torch.Generator().manual_seed(0)
        t = getattr(nn.init, name)(torch.empty(shape), gain=gain, generator=g)
        std, bound = init_stats.expected_spread(name, shape, gain=gain)
        init_stats.spread_report(name, t, std, bound, rtol=0.02)


@pytest.mark.parametrize("shape", SPREAD_SHAPES)
@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
@pytest.mark.parametrize("a", [0.0, 0.2, math.sqrt(5)])
def test_kaiming_spread(shape, mode, a):
    gain = init_stats.leaky_relu_gain(a)
    for name in ("kaiming_uniform_", "kaiming_normal_"):
        g = torch.Generator().manual_seed(0)
        t = getattr(nn.init, name)(torch.empty(shape), a=a, mode=mode, generator=g)
        std, bound = init_stats.expected_spread(name, shape, gain=gain, mode=mode)
        init_stats.spread_report(name, t, std, bound, rtol=0.02)


def test_expected_spread_rejects_unknown():
    with pytest.raises(ValueError):
        init_stats.expected_spread("normal_", (3, 3))
    with pytest.raises(ValueError):
        init_stats.expected_spread("kaiming_normal_", (3, 3), mode="fan_avg")


def test_spread_report_catches_a_wrong_std():
    t = torch.empty(10_000).normal_(0, 1, generator=torch.Generator().manual_seed(0))
    init_stats.spread_report("ok", t, 1.0)
    with pytest.raises(AssertionError):
        init_stats.spread_report("too small", t, 0.5)
    with pytest.raises(AssertionError):
        init_stats.spread_report("bound exceeded", t, 1.0, bound=2.0)


def test_docstring_examples():
    result = doctest.testmod(init_stats, globs={"torch": torch, "math": math, **vars(init_stats)})
    assert result.attempted > 0 and result.failed == 0
