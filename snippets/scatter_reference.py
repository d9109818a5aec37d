"""Reference implementations that the pages compare torch against.

Each function spells out, with plain Python loops, the rule that the docs state for a torch
operation, so a page can check ``torch`` against the rule instead of asserting it in prose.
They are slow and meant for tiny tensors only.
"""

import itertools

import torch


def scatter_reference(self: torch.Tensor, dim: int, index: torch.Tensor,
                      src: torch.Tensor | float) -> torch.Tensor:
    """Return a copy of ``self`` with ``src`` written at ``index`` along ``dim``, by loops.

    For every position ``p`` of ``index`` (a tuple such as ``(i, j, k)``), the target is
    ``p`` with its ``dim``-th coordinate replaced by ``index[p]``:
    ``out[p[:dim] + (index[p],) + p[dim+1:]] = src[p]``. For a 3-D tensor and ``dim=0``
    that is ``out[index[i][j][k]][j][k] = src[i][j][k]``.

    Args:
        self: The tensor written into (it is not modified; a copy is returned).
        dim: The axis along which ``index`` selects the position to write.
        index: An integer tensor (int64; torch 2.13 also accepts int32) with as many
            dimensions as ``self``, no larger than ``self`` in any dimension except ``dim``.
        src: A tensor read at the same positions as ``index``, or one scalar for all of them.

    Returns:
        A new tensor: what ``self.clone().scatter_(dim, index, src)`` gives when ``index``
        holds no duplicate targets.

    Examples:
        >>> import torch
        >>> scatter_reference(torch.zeros(2, 3), 1, torch.tensor([[2], [0]]), 5.0)
        tensor([[0., 0., 5.],
                [5., 0., 0.]])
    """
    dim = dim if dim >= 0 else dim + index.dim()
    out = self.clone()
    for p in itertools.product(*(range(n) for n in index.shape)):
        target = p[:dim] + (int(index[p]),) + p[dim + 1:]
        out[target] = src[p] if isinstance(src, torch.Tensor) else src
    return out


def gather_reference(input: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    """Return ``torch.gather(input, dim, index)`` computed by loops: the inverse read of a scatter.

    For every position ``p`` of ``index``, ``out[p]`` is read from ``p`` with its ``dim``-th
    coordinate replaced by ``index[p]``: ``out[p] = input[p[:dim] + (index[p],) + p[dim+1:]]``.
    For a 2-D tensor and ``dim=1`` that is ``out[i][j] = input[i][index[i][j]]``.

    Args:
        input: The tensor read from.
        dim: The axis along which ``index`` selects the position to read.
        index: An integer tensor with as many dimensions as ``input``.

    Returns:
        A new tensor with the shape of ``index`` and the dtype of ``input``.

    Examples:
        >>> import torch
        >>> x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> gather_reference(x, 1, torch.tensor([[2], [0]]))
        tensor([[3.],
                [4.]])
    """
    dim = dim if dim >= 0 else dim + index.dim()
    out = torch.empty(index.shape, dtype=input.dtype)
    for p in itertools.product(*(range(n) for n in index.shape)):
        out[p] = input[p[:dim] + (int(index[p]),) + p[dim + 1:]]
    return out


def one_hot(labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    """One-hot encode integer class labels with ``scatter_``.

    Args:
        labels: An int64 tensor of shape ``(N,)`` with values in ``[0, num_classes)``
            (``scatter_`` on torch 2.13 also takes int32; ``F.one_hot`` does not).
        num_classes: The number of classes ``C``.

    Returns:
        A float tensor of shape ``(N, C)`` with a single ``1.0`` per row, equal to
        ``torch.nn.functional.one_hot(labels, num_classes).float()``.

    Examples:
        >>> import torch
        >>> one_hot(torch.tensor([2, 0]), 3)
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    return torch.zeros(len(labels), num_classes).scatter_(1, labels.unsqueeze(1), 1.0)


def scatter_reduce_reference(self: torch.Tensor, dim: int, index: torch.Tensor,
                             src: torch.Tensor, reduce: str,
                             include_self: bool = True) -> torch.Tensor:
    """Return ``self.scatter_reduce(dim, index, src, reduce, include_self=...)`` by loops.

    Every position ``p`` of ``index`` sends ``src[p]`` to the target ``p`` with its
    ``dim``-th coordinate replaced by ``index[p]`` (the rule of ``scatter_reference``).
    Each target then holds the reduction of the values it received, in the order of ``p``,
    preceded by its old value from ``self`` when ``include_self`` is true. A ``"mean"``
    counts that old value as one more element, and on integer tensors rounds down (floor
    division, as ``//`` does). A target that receives nothing keeps its value from ``self``,
    whatever ``include_self`` says.

    Args:
        self: The tensor reduced into (it is not modified; a copy is returned).
        dim: The axis along which ``index`` selects the target.
        index: An integer tensor with as many dimensions as ``self``, no larger than ``src``
            in any dimension, nor than ``self`` in any dimension except ``dim``.
        src: The values to reduce, read at the positions of ``index``; same dtype as ``self``.
        reduce: One of ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``.
        include_self: Whether the old value of a target takes part in its reduction.

    Returns:
        A new tensor with the shape and dtype of ``self``.

    Raises:
        ValueError: If ``reduce`` is not one of the five names above.

    Examples:
        >>> import torch
        >>> start = torch.tensor([4., 4., 4.])
        >>> index, src = torch.tensor([0, 0, 1]), torch.tensor([1., 3., 5.])
        >>> scatter_reduce_reference(start, 0, index, src, "mean")
        tensor([2.6667, 4.5000, 4.0000])
        >>> scatter_reduce_reference(start, 0, index, src, "mean", include_self=False)
        tensor([2., 5., 4.])
    """
    combine = {"sum": torch.add, "mean": torch.add, "prod": torch.mul,
               "amax": torch.maximum, "amin": torch.minimum}
    if reduce not in combine:
        raise ValueError(f"reduce must be one of {', '.join(combine)}, got {reduce!r}")
    dim = dim if dim >= 0 else dim + index.dim()
    received: dict[tuple, list[torch.Tensor]] = {}
    for p in itertools.product(*(range(n) for n in index.shape)):
        target = p[:dim] + (int(index[p]),) + p[dim + 1:]
        received.setdefault(target, []).append(src[p])
    out = self.clone()
    for target, values in received.items():
        if include_self:
            values = [self[target]] + values
        acc = values[0]
        for v in values[1:]:
            acc = combine[reduce](acc, v)
        if reduce == "mean":
            n = len(values)
            acc = acc / n if acc.is_floating_point() else torch.div(acc, n, rounding_mode="floor")
        out[target] = acc
    return out
