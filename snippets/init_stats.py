"""Expected spread of the ``torch.nn.init`` initializers, from the formulas in their docs.

The functions restate each formula with plain ``math``, independently of torch, so a page can
compare what torch samples against the formula instead of asserting it in prose.
"""

import math

import torch


def fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """Return ``(fan_in, fan_out)`` of a weight of this shape, as ``nn.init`` counts them.

    Dimension 0 is the output size, dimension 1 the input size, and every further dimension
    (a convolution's kernel) multiplies both: ``fan_in = shape[1] * prod(shape[2:])`` and
    ``fan_out = shape[0] * prod(shape[2:])``.

    Args:
        shape: A weight shape with at least 2 dimensions, e.g. ``(out_features, in_features)``
            or ``(out_channels, in_channels // groups, kH, kW)``.

    Returns:
        The pair ``(fan_in, fan_out)``.

    Examples:
        >>> fans((10, 784))
        (784, 10)
        >>> fans((64, 3, 7, 7))
        (147, 3136)
    """
    if len(shape) < 2:
        raise ValueError("fan_in and fan_out need at least 2 dimensions")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def leaky_relu_gain(negative_slope: float) -> float:
    """Return ``sqrt(2 / (1 + negative_slope**2))``, the gain for a leaky ReLU.

    Examples:
        >>> round(leaky_relu_gain(0.0), 6)  # plain ReLU
        1.414214
        >>> round(leaky_relu_gain(math.sqrt(5)), 6)  # nn.Linear's default a=sqrt(5)
        0.57735
    """
    return math.sqrt(2.0 / (1 + negative_slope ** 2))


def expected_spread(init: str, shape: tuple[int, ...], gain: float = 1.0,
                    mode: str = "fan_in") -> tuple[float, float | None]:
    """Return ``(std, bound)`` of a fan-based initializer; ``bound`` is ``None`` for a normal one.

    ======================  =========================================  ====================
    ``init``                std                                        bound
    ======================  =========================================  ====================
    ``"xavier_uniform_"``   ``gain * sqrt(2 / (fan_in + fan_out))``    ``sqrt(3) * std``
    ``"xavier_normal_"``    ``gain * sqrt(2 / (fan_in + fan_out))``    ``None``
    ``"kaiming_uniform_"``  ``gain / sqrt(fan)``                       ``sqrt(3) * std``
    ``"kaiming_normal_"``   ``gain / sqrt(fan)``                       ``None``
    ======================  =========================================  ====================

    ``fan`` is ``fan_in`` or ``fan_out`` as ``mode`` says (Kaiming only), and
    ``sqrt(3) * std`` is the bound of a uniform distribution with that std:
    ``U(-b, b)`` has std ``b / sqrt(3)``.

    Args:
        init: One of the four names above.
        shape: The weight shape (see :func:`fans`).
        gain: The gain (for Kaiming, what ``calculate_gain(nonlinearity, a)`` returns).
        mode: ``"fan_in"`` or ``"fan_out"``; Kaiming only.

    Returns:
        ``(std, bound)``.

    Examples:
        >>> std, bound = expected_spread("xavier_uniform_", (1000, 1000))
        >>> round(std, 6), round(bound, 6)
        (0.031623, 0.054772)
        >>> expected_spread("kaiming_normal_", (10, 40), gain=2.0)
        (0.31622776601683794, None)
    """
    fan_in, fan_out = fans(shape)
    if init.startswith("xavier_"):
        std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    elif init.startswith("kaiming_"):
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"mode must be 'fan_in' or 'fan_out', not {mode!r}")
        std = gain / math.sqrt(fan_in if mode == "fan_in" else fan_out)
    else:
        raise ValueError(f"not a fan-based initializer: {init!r}")
    bound = math.sqrt(3.0) * std if init.endswith("uniform_") else None
    return std, bound


def spread_report(name: str, t: torch.Tensor, std: float, bound: float | None = None,
                  rtol: float = 0.01) -> str:
    """Compare the sample ``t`` with an expected ``std`` (and ``bound``); return one line.

    Raises ``AssertionError`` unless the sample std is within ``rtol`` of ``std``, and, when a
    ``bound`` is given, ``max|t| <= bound`` and ``max|t| >= (1 - rtol) * bound``.

    Examples:
        >>> g = torch.Generator().manual_seed(0)
        >>> t = torch.empty(100_000).uniform_(-1, 1, generator=g)
        >>> print(spread_report("U(-1, 1)", t, std=1 / math.sqrt(3), bound=1.0))
        U(-1, 1)          std 0.57735 (measured 0.57648)  bound 1.00000 (max|x| 0.99999)
    """
    measured_std = t.std().item()
    line = f"{name:17} std {std:.5f} (measured {measured_std:.5f})"
    assert math.isclose(measured_std, std, rel_tol=rtol), line
    if bound is not None:
        top = t.abs().max().item()
        line += f"  bound {bound:.5f} (max|x| {top:.5f})"
        assert (1 - rtol) * bound <= top <= bound, line
    return line
