"""Backward passes that build no graph use fused kernels (gelu_backward's pointwise formulas,
layer norm's input and weight gradients from the forward's statistics); with create_graph=True
the same gradients come from differentiable operations. Both must agree with each other and
with NumPy's float64 formulas, and gelu_backward with PyTorch's own values."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck

# torch.ops.aten.gelu_backward(g, x, approximate=...) in PyTorch 2.13
GELU_X = [-3.0, -1.0, -0.25, 0.0, 0.5, 2.0, 5.0]
GELU_G = [1.0, 2.0, -1.0, 1.0, 0.5, 1.0, 3.0]
PYTORCH_GELU_BACKWARD = {
    "none": [-0.01194564720418392, -0.1666309411753727, -0.304626645116364, 0.5, 0.4337475623280814,
             1.085231801078197, 3.0000214408380055],
    "tanh": [-0.011584166630969648, -0.16592816769156504, -0.30464590484893955, 0.5, 0.4336849517673212,
             1.0860992566236183, 3.0000046390859643],
}


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_gives_pytorchs_values(approximate):
    g, x = torch.tensor(GELU_G, dtype=torch.float64), torch.tensor(GELU_X, dtype=torch.float64)
    got = torch.ops.aten.gelu_backward(g, x, approximate=approximate)
    np.testing.assert_allclose(got.numpy(), PYTORCH_GELU_BACKWARD[approximate], rtol=1e-14, atol=1e-15)


def test_gelu_backward_rejects_an_unknown_approximation():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        torch.ops.aten.gelu_backward(torch.ones(2), torch.ones(2), approximate="fast")


def test_backward_kernels_are_not_python_bindings_as_in_pytorch():
    assert not [n for n in dir(torch._C._nn) if "backward" in n]
    assert not [n for n in dir(torch) if n.endswith(("_backward", "_backward_input", "_backward_weight"))]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_second_derivative_through_gelu_backward(approximate):
    x = torch.tensor([-2.5, -0.7, 0.0, 0.3, 1.9], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([0.5, -1.0, 2.0, 1.0, -0.25], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: F.gelu(t, approximate=approximate), (x,))
    assert gradgradcheck(lambda t: F.gelu(t, approximate=approximate), (x,))
    assert gradcheck(lambda go, t: torch.ops.aten.gelu_backward(go, t, approximate=approximate), (g, x))
    assert gradgradcheck(lambda go, t: torch.ops.aten.gelu_backward(go, t, approximate=approximate), (g, x))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gelu_gradient_matches_the_float64_formula(dtype):
    x64 = np.linspace(-6, 6, 2001)
    x = torch.tensor(x64, dtype=dtype, requires_grad=True)
    F.gelu(x).sum().backward()
    expected = 0.5 * (1 + np.vectorize(math.erf)(x64 / math.sqrt(2))) + x64 * np.exp(-0.5 * x64 ** 2) / math.sqrt(
        2 * math.pi)
    tol = 1e-6 if dtype == torch.float32 else 1e-14
    np.testing.assert_allclose(x.grad.numpy().astype(np.float64), expected, rtol=tol, atol=tol)


def _layer_norm_reference(x, g, w, axis, eps):
    """NumPy float64 gradients of layer_norm(x) (normalising the dimensions from axis on) for output gradient g."""
    dims = tuple(range(axis, x.ndim))
    mean = x.mean(dims, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(dims, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    gw = g * w if w is not None else g
    dx = rstd * (gw - gw.mean(dims, keepdims=True) - xhat * (gw * xhat).mean(dims, keepdims=True))
    batch = tuple(range(axis))
    return dx, (g * xhat).sum(batch), g.sum(batch)


@settings(max_examples=40, deadline=None)
@given(batch=st.lists(st.integers(0, 5), min_size=0, max_size=2), normalized=st.lists(st.integers(1, 7), min_size=1,
       max_size=2), affine=st.booleans(), dtype=st.sampled_from([torch.float32, torch.float64]),
       transposed_grad=st.booleans(), seed=st.integers(0, 2**16))
def test_layer_norm_gradients_match_numpy_with_and_without_create_graph(batch, normalized, affine, dtype,
                                                                         transposed_grad, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(batch) + tuple(normalized)
    x64 = rng.standard_normal(shape) * 3 + 1
    g64 = rng.standard_normal(shape)
    w64 = rng.standard_normal(normalized) if affine else None
    dx, dw, db = _layer_norm_reference(x64, g64, w64, len(batch), 1e-5)
    tol = 2e-4 if dtype == torch.float32 else 1e-10
    # dx is rstd / n * (n gw - sum(gw) - xhat sum(gw xhat)), terms that cancel when a row's values
    # nearly agree: the rounding error is that of the terms, rstd * |g w|, not of dx
    rows = x64.reshape(-1, int(np.prod(normalized))) if x64.size else np.zeros((0, 1))
    rstd = 1 / np.sqrt(rows.var(1) + 1e-5) if rows.size else np.ones(1)
    term = rstd.max() * np.abs(g64 * (w64 if affine else 1)).max() if x64.size else 1.0
    dx_tol = tol * max(1.0, term)
    for create_graph in (False, True):
        x = torch.tensor(x64, dtype=dtype, requires_grad=True)
        w = torch.tensor(w64, dtype=dtype, requires_grad=True) if affine else None
        b = torch.zeros(normalized, dtype=dtype, requires_grad=True) if affine else None
        g = torch.tensor(g64, dtype=dtype)
        if transposed_grad and g.dim() >= 2:          # a gradient that is not contiguous
            g = g.transpose(0, -1).contiguous().transpose(0, -1)
        out = F.layer_norm(x, tuple(normalized), w, b)
        grads = torch.autograd.grad(out, [x] + ([w, b] if affine else []), g, create_graph=create_graph)
        np.testing.assert_allclose(grads[0].detach().numpy(), dx, rtol=tol, atol=dx_tol)
        if affine:
            np.testing.assert_allclose(grads[1].detach().numpy(), dw, rtol=tol, atol=tol * max(1, len(x64.flat)))
            np.testing.assert_allclose(grads[2].detach().numpy(), db, rtol=tol, atol=tol * max(1, len(x64.flat)))


def test_layer_norm_double_backward_still_differentiates_the_statistics():
    x = torch.randn(3, 4, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(5, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, dtype=torch.float64, requires_grad=True)
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, (5,), w, b), (x, w, b))
    assert gradgradcheck(lambda x: F.layer_norm(x, (4, 5)), (x,))


def test_layer_norm_weight_gradient_over_many_rows_is_the_same_for_any_thread_count():
    x = torch.randn(4096, 48, requires_grad=True)
    w = torch.randn(48, requires_grad=True)
    before = torch.get_num_threads()
    grads = []
    try:
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            x.grad = w.grad = None
            F.layer_norm(x, (48,), w).square().sum().backward()
            grads.append((x.grad.clone(), w.grad.clone()))
    finally:
        torch.set_num_threads(before)
    for gx, gw in grads[1:]:     # the weight's row runs are fixed by the shape: the same bits
        assert torch.equal(gx, grads[0][0])
        assert torch.equal(gw, grads[0][1])


def test_layer_and_group_norm_outputs_do_not_depend_on_the_thread_count():
    # each row's statistics are private to the thread computing it (they were once shared: a race)
    torch.manual_seed(13)
    x, w = torch.randn(4096, 48), torch.randn(48)
    before = torch.get_num_threads()
    outputs = []
    try:
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            outputs.append((F.layer_norm(x, (48,), w), F.group_norm(x.reshape(64, 64, 48), 8)))
    finally:
        torch.set_num_threads(before)
    for layer, group in outputs[1:]:
        assert torch.equal(layer, outputs[0][0]) and torch.equal(group, outputs[0][1])


def test_layer_norm_backward_kernels_reject_mismatched_statistics():
    x, g = torch.randn(4, 6), torch.randn(4, 6)
    mean, rstd = torch.zeros(4, 1), torch.ones(4, 1)
    with pytest.raises(RuntimeError, match="one value per row"):
        torch.ops.aten._ember_layer_norm_backward_input(g, x, torch.zeros(5, 1), rstd, None)
    with pytest.raises(RuntimeError, match="does not match input"):
        torch.ops.aten._ember_layer_norm_backward_input(torch.randn(4, 5), x, mean, rstd, None)
    with pytest.raises(RuntimeError, match="weight has 5 elements"):
        torch.ops.aten._ember_layer_norm_backward_input(g, x, mean, rstd, torch.ones(5))
    with pytest.raises(RuntimeError, match="does not match rows"):
        torch.ops.aten._ember_layer_norm_backward_weight(g, x, mean, rstd, [5])
    with pytest.raises(RuntimeError, match="dtype"):
        torch.ops.aten._ember_layer_norm_backward_weight(g.double(), x, mean, rstd, [6])
