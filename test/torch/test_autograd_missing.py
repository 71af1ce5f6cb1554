"""The last formulas of issue 6 (ops that had none): digamma and polygamma, quantile and
nanquantile, normal with tensor mean/std, repeat_interleave, as_strided, and in-place views.
gradcheck and gradgradcheck in float64 (broadcasting, non-contiguous inputs), and gradients
compared with values PyTorch 2.13 gives on the same inputs (written out below)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from gradcheck_cases import gradcheck_tests


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
    # quantile/nanquantile: distinct values (ties make the sort's choice, not a derivative, decide).
    "quantile_scalar": (lambda a: torch.quantile(a, 0.35), lambda: (rand(7),)),
    "quantile_dim": (lambda a: torch.quantile(a, 0.6, dim=0, keepdim=True), lambda: (noncontig(4, 3),)),
    "quantile_tensor_q": (lambda a, q: torch.quantile(a, q, dim=1), lambda: (rand(3, 5), t64([0.1, 0.55, 0.9]))),
    "quantile_method_0d_q": (lambda a, q: a.quantile(q, -1), lambda: (rand(2, 6), t64(0.45))),
    "quantile_lower": (lambda a: torch.quantile(a, t64([0.2, 0.7]).detach(), 1, interpolation="lower"),
                       lambda: (rand(3, 4),)),
    "quantile_higher": (lambda a: torch.quantile(a, 0.3, 0, interpolation="higher"), lambda: (rand(5, 2),)),
    "quantile_midpoint": (lambda a: torch.quantile(a, 0.45, interpolation="midpoint"), lambda: (rand(2, 3),)),
    "quantile_nearest": (lambda a: torch.quantile(a, 0.45, 1, True, interpolation="nearest"), lambda: (rand(2, 5),)),
    "nanquantile": (lambda a: torch.nanquantile(a, 0.3, dim=1), lambda: (t64([[1.5, float("nan"), -0.2, 3.0],
                                                                            [0.3, 2.2, -1.0, 0.8]]),)),
    "nanquantile_tensor_q": (lambda a, q: a.nanquantile(q, 0), lambda: (rand(5, 2), t64([0.3, 0.8]))),
    "nanquantile_midpoint": (lambda a: torch.nanquantile(a, 0.5, interpolation="midpoint"), lambda: (rand(6),)),
    # repeat_interleave with a tensor of repeats (and an int, through its decomposition)
    "repeat_interleave_dim0": (lambda a: torch.repeat_interleave(a, torch.tensor([2, 0, 3]), 0),
                               lambda: (noncontig(3, 2),)),
    "repeat_interleave_dim1": (lambda a: a.repeat_interleave(torch.tensor([1, 3]), dim=1), lambda: (rand(2, 2),)),
    "repeat_interleave_flat": (lambda a: torch.repeat_interleave(a, torch.tensor(2)), lambda: (rand(2, 3),)),
    "repeat_interleave_int": (lambda a: a.repeat_interleave(3, dim=0), lambda: (rand(2, 2),)),
    # as_strided: plain, overlapping output, offset into a view, expanded (overlapping) input
    "as_strided": (lambda a: a.as_strided((2, 2), (1, 2), 1), lambda: (rand(6),)),
    "as_strided_overlapping": (lambda a: a.as_strided((3, 3), (1, 1)), lambda: (rand(6),)),
    "as_strided_of_view": (lambda a: a[1:].as_strided((2, 2), (2, 1), 2), lambda: (rand(7),)),
    "as_strided_of_noncontig": (lambda a: a.as_strided((3,), (3,)), lambda: (noncontig(3, 4),)),
    "as_strided_expanded_input": (lambda a: a.unsqueeze(1).expand(3, 2).as_strided((2, 2), (1, 1)),
                                  lambda: (rand(3),)),
    # einsum with '...', implicit outputs, repeated subscripts, broadcast dims
    "einsum_ellipsis_batch": (lambda a, b: torch.einsum("...ij,jk->...ik", a, b), lambda: (rand(2, 3, 4), rand(4, 2))),
    "einsum_ellipsis_broadcast": (lambda a, b: torch.einsum("...i,...i->...", a, b),
                                  lambda: (rand(2, 1, 3), rand(4, 3))),
    "einsum_ellipsis_middle": (lambda a, b: torch.einsum("a...b,b->...a", a, b), lambda: (rand(2, 3, 4), rand(4))),
    "einsum_implicit": (lambda a, b: torch.einsum("bij,bjk", a, b), lambda: (rand(2, 3, 2), rand(2, 2, 4))),
    "einsum_trace": (lambda a: torch.einsum("ii", a), lambda: (rand(3, 3),)),
    "einsum_diagonal": (lambda a, b: torch.einsum("iji,j->ij", a, b), lambda: (rand(3, 2, 3), rand(2))),
    "einsum_batch_diagonal": (lambda a: torch.einsum("...ii->...i", a), lambda: (rand(2, 3, 3),)),
    # in-place views on non-leaf tensors (and on a view of one)
    "t_": (lambda a: (a * 1).t_(), lambda: (rand(2, 3),)),
    "transpose_": (lambda a: (a * 1).transpose_(0, 2), lambda: (rand(2, 3, 2),)),
    "swapdims_": (lambda a: (a * 1).swapdims_(0, 1), lambda: (rand(2, 3),)),
    "swapaxes_": (lambda a: (a * 1).swapaxes_(1, 0), lambda: (rand(3, 2),)),
    "squeeze_": (lambda a: (a * 1).squeeze_(), lambda: (rand(2, 1, 3, 1),)),
    "squeeze_dim": (lambda a: (a * 1).squeeze_(1), lambda: (rand(2, 1, 3),)),
    "squeeze_dims": (lambda a: (a * 1).squeeze_((0, 2)), lambda: (rand(1, 3, 1),)),
    "unsqueeze_": (lambda a: (a * 1).unsqueeze_(1), lambda: (rand(2, 3),)),
    "t_of_view": (lambda a: (a * 1)[1:].t_(), lambda: (rand(3, 2),)),
    "transpose_then_op": (lambda a: (a * 2).transpose_(0, 1).exp(), lambda: (noncontig(2, 3),)),
}

# Random draws: the gradient is zero (PyTorch's formula); gradcheck of a random function cannot
# compare numerically, so these are checked by value below.


test_gradcheck, test_gradgradcheck = gradcheck_tests(CASES)


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


# -- quantile, nanquantile --------------------------------------------------------------------------

def test_quantile_gradients_match_pytorch():
    """Values from PyTorch 2.13: ties send the gradient where the sort put the tied values, q gets
    (n - 1) * (above - below) for linear interpolation only, NaN slices send it to the NaN."""
    x = t64([[3.0, 1.0, 2.0, 5.0], [1.0, 1.0, 1.0, 0.0]])
    q = t64([0.3, 0.5])
    torch.quantile(x, q, dim=1).sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([[0.5, 0.1, 1.4, 0.0], [1.4, 0.5, 0.0, 0.1]], dtype=torch.float64))
    assert q.grad.tolist() == [6.0, 3.0]
    expected = {"lower": [[0.0, 2.0, 0.0, 0.0], [1.0, 0.0, 3.0, 4.0]],
                "higher": [[1.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 0.0]],
                "midpoint": [[0.5, 1.0, 1.5, 2.0], [0.5, 1.0, 1.5, 2.0]],
                "nearest": [[1.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 0.0]],
                "linear": [[0.7, 0.6, 2.1, 2.8], [0.3, 1.4, 0.9, 1.2]]}
    weights = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    for fn in (torch.quantile, torch.nanquantile):
        for interpolation, grad in expected.items():
            x.grad = q.grad = None
            (fn(x, 0.7, dim=0, keepdim=True, interpolation=interpolation) * weights).sum().backward()
            torch.testing.assert_close(x.grad, torch.tensor(grad, dtype=torch.float64), msg=f"{fn} {interpolation}")
            r = fn(x, q, 1, interpolation=interpolation)
            r.sum().backward()
            assert (q.grad is None) == (interpolation != "linear")
    y = t64([2.0, 2.0, 2.0, 1.0, 2.0])
    torch.quantile(y, torch.tensor([0.1, 0.6, 0.9], dtype=torch.float64)).sum().backward()
    assert y.grad.tolist() == pytest.approx([0.4, 0.6, 0.8, 0.6, 0.6])
    z = t64([float("nan"), 1.0, 2.0])
    torch.nanquantile(z, 0.4).backward()
    assert z.grad.tolist() == pytest.approx([0.0, 0.6, 0.4])
    z.grad = None
    torch.quantile(z, 0.4).backward()
    assert z.grad.tolist() == [1.0, 0.0, 0.0]


def test_quantile_out_records_a_copy():
    out = torch.empty((), dtype=torch.float64)
    x = rand(5)
    r = torch.quantile(x, 0.3, out=out)
    assert r is out and out.requires_grad
    out.backward()
    assert x.grad.sum().item() == pytest.approx(1.0)


# -- normal with tensor mean/std ---------------------------------------------------------------------

def test_normal_gradients_are_zero_as_pytorch():
    mean = torch.zeros(3, 1, dtype=torch.float64, requires_grad=True)
    std = torch.ones(4, dtype=torch.float64, requires_grad=True)
    names = [torch.normal(mean, 2.0).grad_fn.name(), torch.normal(1.0, std).grad_fn.name(),
             torch.normal(mean, std).grad_fn.name()]
    assert names == ["NormalBackward1", "NormalBackward2", "NormalBackward3"]
    torch.normal(mean, std).sum().backward()
    assert mean.grad.tolist() == [[0.0]] * 3 and std.grad.tolist() == [0.0] * 4
    g, = torch.autograd.grad(torch.normal(mean, 0.5).sum(), mean, create_graph=True)
    assert g.shape == (3, 1) and not g.any()
    x = rand(3) * 1
    x.normal_()
    assert x.grad_fn.name() == "NormalBackward0"


# -- repeat_interleave, as_strided, einsum -------------------------------------------------------------

def test_repeat_interleave_gradients_match_pytorch():
    x = t64([[1.0, 2.0], [3.0, 4.0]])
    expected = [((torch.tensor([2, 3]), 0), [[2.0, 4.0], [18.0, 21.0]]),
                ((torch.tensor([1, 2]), 1), [[0.0, 3.0], [3.0, 9.0]]),
                ((torch.tensor([2]), None), [[1.0, 5.0], [9.0, 13.0]]),
                ((torch.tensor(2), 1), [[1.0, 5.0], [9.0, 13.0]]),
                ((torch.tensor([0, 1, 2, 1]), None), [[0.0, 0.0], [3.0, 3.0]])]
    for (repeats, dim), grad in expected:
        x.grad = None
        r = torch.repeat_interleave(x, repeats, dim)
        (r * torch.arange(r.numel(), dtype=torch.float64).reshape(r.shape)).sum().backward()
        assert x.grad.tolist() == grad


def test_as_strided_gradients_match_pytorch():
    x = t64([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    expected = [(((2, 2), (1, 2), 1), [0.0, 0.0, 2.0, 1.0, 3.0, 0.0]),
                (((3, 3), (1, 1)), [0.0, 4.0, 12.0, 12.0, 8.0, 0.0]),
                (((4,), (0,), 2), [0.0, 0.0, 6.0, 0.0, 0.0, 0.0]),
                (((2, 3), (3, 1)), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])]
    for args, grad in expected:
        x.grad = None
        r = (x * 1).as_strided(*args)
        assert r.grad_fn.name() == "AsStridedBackward0"
        (r * torch.arange(r.numel(), dtype=torch.float64).reshape(r.shape)).sum().backward()
        assert x.grad.tolist() == grad
    e = t64([0.0, 1.0, 2.0])
    r = (e * 1).unsqueeze(1).expand(3, 2).as_strided((3,), (1,))   # memory shared by 2 input elements
    r.backward(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    assert e.grad.tolist() == [1.0, 2.0, 3.0]


def test_einsum_gradients_match_pytorch():
    a = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4).sin().requires_grad_()
    b = torch.arange(20, dtype=torch.float64).reshape(4, 5).cos().requires_grad_()
    c = torch.arange(6, dtype=torch.float64).reshape(2, 3).cos().requires_grad_()
    d = torch.arange(18.0, dtype=torch.float64).reshape(2, 3, 3).requires_grad_()
    expected = [("...ij,jk->...ik", (a, b), [3.5120988653922742, 1.99325233265355]),
                ("bij,jk", (a, b), [3.5120988653922742, 1.99325233265355]),
                ("i...->...", (a,), [6.9588061425128]),
                ("ab...,ab->...", (a, c), [-0.8703543201592271, 0.8351915042275987]),
                ("...ii->...i", (d,), [-0.07799047315830315])]
    for equation, args, sums in expected:
        grads = torch.autograd.grad(torch.einsum(equation, *args).sin().sum(), args)
        assert [g.sum().item() for g in grads] == pytest.approx(sums, rel=1e-12), equation


# -- in-place views ------------------------------------------------------------------------------------

def test_in_place_views_rebase_history_as_pytorch():
    a = torch.arange(6.0, dtype=torch.float64).reshape(2, 3, 1).sin().requires_grad_()
    weights = torch.arange(6.0, dtype=torch.float64)
    cases = [(lambda x: x.squeeze_(), "SqueezeBackward3", [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
             (lambda x: x.squeeze_(2), "SqueezeBackward4", [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
             (lambda x: x.squeeze_((0, 2)), "SqueezeBackward5", [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
             (lambda x: x.unsqueeze_(1), "UnsqueezeBackward1", [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
             (lambda x: x.transpose_(0, 2), "TransposeBackward1", [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]),
             (lambda x: x.swapdims_(0, 1), "TransposeBackward1", [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]),
             (lambda x: x.swapaxes_(0, 1), "TransposeBackward1", [0.0, 2.0, 4.0, 1.0, 3.0, 5.0])]
    for fn, name, grad in cases:
        x = a * 1
        y = fn(x)
        assert y is x and x.grad_fn.name() == name
        a.grad = None
        (y.reshape(-1) * weights).sum().backward()
        assert a.grad.reshape(-1).tolist() == grad, name
    x = a * 1
    v = x[0].t_()                  # a view: its own history changes, its base's does not
    assert v.grad_fn.name() == "TBackward1" and x.grad_fn.name() == "MulBackward0"
    a.grad = None
    (v.reshape(-1) * weights[:3]).sum().backward()
    assert a.grad.reshape(-1).tolist() == [0.0, 1.0, 2.0, 0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        a.t_()
