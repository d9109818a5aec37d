"""Output-size arithmetic of ``nn.Conv2d``, and the zero-inserted kernel behind dilation.

The page on ``nn.Conv2d`` checks torch against these functions: the size formula of the
torch docs, written out per dimension, and a dilated kernel built by hand.
"""

import torch


def effective_kernel_size(kernel_size: int, dilation: int = 1) -> int:
    """Return the span ``dilation * (kernel_size - 1) + 1`` that a dilated kernel covers.

    Args:
        kernel_size: Number of taps along one dimension.
        dilation: Distance between neighbouring taps (1: adjacent, no gaps).

    Returns:
        The number of consecutive input positions from the first tap to the last.

    Examples:
        >>> effective_kernel_size(3, 2)
        5
    """
    return dilation * (kernel_size - 1) + 1


def conv_output_length(size: int, kernel_size: int, stride: int = 1, padding: int = 0,
                       dilation: int = 1) -> int:
    """Return the output length of a convolution along one dimension.

    ``floor((size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``, the
    formula of the ``nn.Conv2d`` docs, with Python's floor division, so that a result below 1
    means the (padded) input is shorter than the dilated kernel.

    Args:
        size: Input length along this dimension (H or W).
        kernel_size: Number of taps along this dimension.
        stride: Step between two output positions.
        padding: Number of positions added on each side of the input.
        dilation: Distance between neighbouring taps.

    Returns:
        The output length; a value below 1 means torch raises instead.

    Examples:
        >>> conv_output_length(224, 3, stride=2, padding=1)
        112
        >>> conv_output_length(2, 3)
        0
    """
    span = effective_kernel_size(kernel_size, dilation)
    return (size + 2 * padding - span) // stride + 1


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


def conv2d_output_size(h: int, w: int, kernel_size: int | tuple[int, int],
                       stride: int | tuple[int, int] = 1,
                       padding: int | tuple[int, int] | str = 0,
                       dilation: int | tuple[int, int] = 1) -> tuple[int, int]:
    """Return ``(H_out, W_out)`` of ``nn.Conv2d`` for an input of height ``h`` and width ``w``.

    Each of ``kernel_size``, ``stride``, ``padding`` and ``dilation`` is an int (the same for
    both dimensions) or a pair ``(for H, for W)``, as in ``nn.Conv2d``. ``padding`` may also be
    ``'valid'`` (no padding) or ``'same'`` (output as large as the input; stride 1 only).

    Args:
        h: Input height.
        w: Input width.
        kernel_size: Kernel size, int or ``(kH, kW)``.
        stride: Stride, int or ``(sH, sW)``.
        padding: Padding on each side, int or ``(pH, pW)``, or ``'valid'`` / ``'same'``.
        dilation: Dilation, int or ``(dH, dW)``.

    Returns:
        ``(H_out, W_out)``; a value below 1 means torch raises instead.

    Raises:
        ValueError: ``padding='same'`` with a stride other than 1, as in torch, or an
            unknown padding string.

    Examples:
        >>> conv2d_output_size(32, 32, 3, stride=2, padding=1)
        (16, 16)
        >>> conv2d_output_size(10, 20, (3, 5), stride=(1, 2), padding=(1, 0), dilation=(2, 1))
        (8, 8)
        >>> conv2d_output_size(7, 9, 4, padding="same")
        (7, 9)
    """
    stride = _pair(stride)
    if isinstance(padding, str):
        if padding == "same":
            if stride != (1, 1):
                raise ValueError("padding='same' is not supported for strided convolutions")
            return (h, w)
        if padding != "valid":
            raise ValueError(f"Invalid padding string {padding!r}, should be 'valid' or 'same'")
        padding = 0
    k, p, d = _pair(kernel_size), _pair(padding), _pair(dilation)
    return (conv_output_length(h, k[0], stride[0], p[0], d[0]),
            conv_output_length(w, k[1], stride[1], p[1], d[1]))


def dilate_kernel(weight: torch.Tensor, dilation: int | tuple[int, int]) -> torch.Tensor:
    """Return ``weight`` with ``dilation - 1`` zeros inserted between neighbouring taps.

    A convolution with the returned kernel and ``dilation=1`` computes the same as a
    convolution with ``weight`` and ``dilation=dilation``.

    Args:
        weight: A conv2d weight of shape ``(out_channels, in_channels // groups, kH, kW)``.
        dilation: Dilation, int or ``(dH, dW)``.

    Returns:
        A tensor of shape ``(out_channels, in_channels // groups, dH * (kH - 1) + 1,
        dW * (kW - 1) + 1)``, zero except at every ``dH``-th row and ``dW``-th column.

    Examples:
        >>> dilate_kernel(torch.ones(1, 1, 2, 2), 2)[0, 0]
        tensor([[1., 0., 1.],
                [0., 0., 0.],
                [1., 0., 1.]])
    """
    dh, dw = _pair(dilation)
    kh, kw = weight.shape[-2:]
    out = weight.new_zeros(*weight.shape[:-2], effective_kernel_size(kh, dh),
                           effective_kernel_size(kw, dw))
    out[..., ::dh, ::dw] = weight
    return out
