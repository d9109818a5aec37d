"""Tests of snippets/scatter_reference.py: the loop references agree with torch.

The pages check torch against these functions, so the functions themselves must be right:
here they are compared with torch on many random shapes (no duplicate targets, where the
result of ``scatter_`` is defined), and their docstring examples are run.
"""

from __future__ import annotations

import doctest
import itertools

import pytest
import torch
import torch.nn.functional as F

import scatter_reference as ref


def distinct_index(dim: int, index_shape: tuple[int, ...], size: int,
                   generator: torch.Generator) -> torch.Tensor:
    """An int64 index of ``index_shape``, values in ``range(size)``, never repeated along ``dim``."""
    shape = list(index_shape)
    shape[dim] = size
    keys = torch.rand(shape, generator=generator)
    return keys.argsort(dim=dim).narrow(dim, 0, index_shape[dim])


SHAPES = [(5,), (3, 4), (4, 5, 6), (2, 3, 2, 3)]
CASES = [(shape, dim) for shape in SHAPES for dim in range(len(shape))]


@pytest.mark.parametrize("self_shape, dim", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_scatter_reference_matches_torch(self_shape, dim, seed):
    g = torch.Generator().manual_seed(seed)
    index_shape = tuple(int(torch.randint(1, n + 1, (), generator=g)) for n in self_shape)
    index = distinct_index(dim, index_shape, self_shape[dim], g)
    src_shape = tuple(n + int(torch.randint(0, 2, (), generator=g)) for n in index_shape)
    src = torch.randn(src_shape, generator=g)
    self = torch.randn(self_shape, generator=g)

    expected = self.clone().scatter_(dim, index, src)
    assert torch.equal(ref.scatter_reference(self, dim, index, src), expected)
    assert torch.equal(ref.scatter_reference(self, dim, index, 2.5),
                       self.clone().scatter_(dim, index, 2.5))


def test_scatter_reference_leaves_self_untouched():
    self = torch.zeros(2, 3)
    out = ref.scatter_reference(self, 1, torch.tensor([[2], [0]]), 5.0)
    assert torch.equal(self, torch.zeros(2, 3))
    assert out.data_ptr() != self.data_ptr()
    assert torch.equal(out, torch.tensor([[0., 0., 5.], [5., 0., 0.]]))


def test_scatter_reference_negative_dim():
    self = torch.zeros(2, 3)
    index = torch.tensor([[2, 0], [1, 2]])
    src = torch.tensor([[1., 2.], [3., 4.]])
    assert torch.equal(ref.scatter_reference(self, -1, index, src),
                       self.clone().scatter_(-1, index, src))


def test_scatter_reference_writes_the_3d_rule():
    self = torch.zeros(2, 2, 2)
    index = torch.tensor([[[1, 0], [0, 1]]])
    src = torch.tensor([[[1., 2.], [3., 4.]]])
    out = ref.scatter_reference(self, 0, index, src)
    for i, j, k in itertools.product(range(1), range(2), range(2)):
        assert out[index[i, j, k], j, k] == src[i, j, k]
    assert int((out != 0).sum()) == index.numel()


@pytest.mark.parametrize("self_shape, dim", CASES)
def test_gather_reference_matches_torch(self_shape, dim):
    g = torch.Generator().manual_seed(len(self_shape) * 10 + dim)
    index_shape = list(self_shape)
    index_shape[dim] = self_shape[dim] + 2  # larger along dim, with repeats: allowed for gather
    index = torch.randint(0, self_shape[dim], index_shape, generator=g)
    input = torch.randn(self_shape, generator=g)
    out = ref.gather_reference(input, dim, index)
    assert out.dtype == input.dtype
    assert torch.equal(out, torch.gather(input, dim, index))


def test_gather_reference_undoes_scatter():
    g = torch.Generator().manual_seed(0)
    index = distinct_index(1, (3, 4), 6, g)
    src = torch.randn(3, 4, generator=g)
    written = ref.scatter_reference(torch.zeros(3, 6), 1, index, src)
    assert torch.equal(ref.gather_reference(written, 1, index), src)


def test_gather_reference_keeps_integer_dtype():
    input = torch.arange(6).view(2, 3)
    out = ref.gather_reference(input, 0, torch.tensor([[1, 0, 1]]))
    assert out.dtype == torch.int64
    assert out.tolist() == [[3, 1, 5]]


@pytest.mark.parametrize("num_classes", [1, 2, 7])
def test_one_hot_matches_functional(num_classes):
    labels = torch.randint(0, num_classes, (11,), generator=torch.Generator().manual_seed(1))
    out = ref.one_hot(labels, num_classes)
    assert out.shape == (11, num_classes)
    assert out.dtype == torch.get_default_dtype()
    assert torch.equal(out, F.one_hot(labels, num_classes).float())
    assert torch.equal(out.sum(dim=1), torch.ones(11))


def test_one_hot_accepts_int32_labels():
    labels = torch.tensor([2, 0, 1])
    assert torch.equal(ref.one_hot(labels.to(torch.int32), 3), ref.one_hot(labels, 3))


def test_one_hot_empty():
    assert ref.one_hot(torch.tensor([], dtype=torch.long), 4).shape == (0, 4)


def test_one_hot_rejects_out_of_range_label():
    with pytest.raises(RuntimeError, match="out of bounds"):
        ref.one_hot(torch.tensor([3]), 3)


def test_docstring_examples():
    result = doctest.testmod(ref, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3
    assert result.failed == 0


def test_public_functions_have_google_docstrings():
    for name in ("scatter_reference", "gather_reference", "one_hot"):
        doc = getattr(ref, name).__doc__
        for section in ("Args:", "Returns:", "Examples:"):
            assert section in doc, f"{name} lacks {section}"


REDUCES = ("sum", "prod", "mean", "amax", "amin")


@pytest.mark.parametrize("self_shape, dim", CASES)
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_reference_matches_torch(self_shape, dim, reduce, include_self):
    # Duplicate targets on purpose: that is what a reduction is for.
    g = torch.Generator().manual_seed(len(self_shape) * 10 + dim)
    index_shape = [int(torch.randint(1, n + 1, (), generator=g)) for n in self_shape]
    index_shape[dim] = self_shape[dim] + 2
    index = torch.randint(0, self_shape[dim], index_shape, generator=g)
    src = torch.rand(index_shape, generator=g) + 0.5  # away from 0 so that "prod" stays tame
    self = torch.rand(self_shape, generator=g) + 0.5
    expected = self.scatter_reduce(dim, index, src, reduce, include_self=include_self)
    out = ref.scatter_reduce_reference(self, dim, index, src, reduce, include_self)
    assert out.dtype == self.dtype
    assert torch.allclose(out, expected, rtol=1e-5, atol=0)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_reference_integers_exact(reduce, include_self):
    # Integer mean rounds down (toward -inf), like //, not toward zero.
    self = torch.tensor([-5, 5, 7, 1])
    index = torch.tensor([0, 0, 1, 1, 2, 0])
    src = torch.tensor([-1, 2, 3, -4, 2, 0])
    expected = self.scatter_reduce(0, index, src, reduce, include_self=include_self)
    assert torch.equal(ref.scatter_reduce_reference(self, 0, index, src, reduce, include_self),
                       expected)


def test_scatter_reduce_reference_untouched_targets_keep_self():
    self = torch.tensor([7., 8., 9.])
    for reduce in REDUCES:
        out = ref.scatter_reduce_reference(self, 0, torch.tensor([1, 1]), torch.tensor([2., 3.]),
                                           reduce, include_self=False)
        assert out[0] == 7. and out[2] == 9.
    assert torch.equal(self, torch.tensor([7., 8., 9.]))


def test_scatter_reduce_reference_sum_is_scatter_add():
    g = torch.Generator().manual_seed(3)
    index = torch.randint(0, 4, (3, 6), generator=g)
    src = torch.randn(3, 6, generator=g)
    self = torch.randn(3, 4, generator=g)
    assert torch.allclose(ref.scatter_reduce_reference(self, 1, index, src, "sum"),
                          self.clone().scatter_add_(1, index, src))


def test_scatter_reduce_reference_rejects_unknown_reduce():
    with pytest.raises(ValueError, match="reduce must be one of"):
        ref.scatter_reduce_reference(torch.zeros(2), 0, torch.tensor([0]), torch.ones(1), "max")


def test_scatter_reduce_reference_has_google_docstring():
    doc = ref.scatter_reduce_reference.__doc__
    for section in ("Args:", "Returns:", "Raises:", "Examples:"):
        assert section in doc
