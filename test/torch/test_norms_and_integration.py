"""torch.linalg.norm / matrix_norm, F.normalize, torch.trapezoid / trapz and torch.where(condition)
against NumPy (the ops torchmetrics needs at import and in its AUROC), with PyTorch's errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import torch
import torch.nn.functional as F

INF = float("inf")


def _arrays(shape, seed, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("ord", [None, "fro", INF, -INF, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linalg_norm_of_a_matrix_as_numpy(ord, dtype):
    a = _arrays((4, 5), 0, dtype)
    got = torch.linalg.norm(torch.from_numpy(a), ord)
    np.testing.assert_allclose(got.numpy(), np.linalg.norm(a.astype(np.float64), ord), rtol=1e-6)
    assert got.dtype == torch.from_numpy(a).dtype


@pytest.mark.parametrize("ord", [None, 2, 1, 3, INF, -INF, 0])
def test_linalg_norm_of_a_vector_as_numpy(ord):
    v = _arrays((7,), 1)
    np.testing.assert_allclose(torch.linalg.norm(torch.from_numpy(v), ord).numpy(), np.linalg.norm(v, ord))


@settings(max_examples=30, deadline=None)
@given(batch=st.integers(1, 3), rows=st.integers(1, 4), cols=st.integers(1, 4), keepdim=st.booleans(),
       ord=st.sampled_from(["fro", INF, -INF, 1, -1]), swap=st.booleans())
def test_matrix_norm_over_batches_as_numpy(batch, rows, cols, keepdim, ord, swap):
    a = _arrays((batch, rows, cols), 2)
    dim = (-1, -2) if swap else (-2, -1)
    got = torch.linalg.matrix_norm(torch.from_numpy(a), ord, dim=dim, keepdim=keepdim)
    np.testing.assert_allclose(got.numpy(), np.linalg.norm(a, ord, axis=dim, keepdims=keepdim), rtol=1e-12)


def test_norm_errors_as_pytorch():
    a = torch.ones(2, 3, 4)
    with pytest.raises(RuntimeError, match="If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."):
        torch.linalg.norm(a, 2)
    with pytest.raises(RuntimeError, match="Order 3 not supported."):
        torch.linalg.matrix_norm(a, 3)
    with pytest.raises(RuntimeError, match=r"dims must be different. Got \(0, 0\)"):
        torch.linalg.matrix_norm(a, dim=(0, 0))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        torch.linalg.matrix_norm(torch.ones(2, 2, dtype=torch.long))



def test_spectral_and_nuclear_norms_are_numpys():
    a = _arrays((2, 3, 4), 5)
    for ord in (2, -2, "nuc"):
        np.testing.assert_allclose(torch.linalg.matrix_norm(torch.from_numpy(a), ord).numpy(),
                                   np.linalg.norm(a, ord, axis=(-2, -1)), rtol=1e-12)


def test_normalize_as_numpy_and_differentiable():
    a = _arrays((3, 5), 3)
    for p, dim in [(2.0, 1), (1.0, 0), (3.0, -1)]:
        norm = np.sum(np.abs(a) ** p, axis=dim, keepdims=True) ** (1 / p)
        np.testing.assert_allclose(F.normalize(torch.from_numpy(a), p=p, dim=dim).numpy(),
                                   a / np.maximum(norm, 1e-12), rtol=1e-12)
    x = torch.from_numpy(a).requires_grad_()
    F.normalize(x).sum().backward()
    assert x.grad.shape == (3, 5) and torch.isfinite(x.grad).all()
    assert F.normalize(torch.zeros(2, 3)).abs().sum().item() == 0.0        # eps keeps zeros at zero


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_trapezoid_as_numpy(dim):
    y = _arrays((4, 6), 4)
    x = np.sort(_arrays((y.shape[dim],), 5))
    ty = torch.from_numpy(y)
    np.testing.assert_allclose(torch.trapezoid(ty, torch.from_numpy(x), dim=dim).numpy(),
                               np.trapezoid(y, x, axis=dim), rtol=1e-12)
    np.testing.assert_allclose(torch.trapezoid(ty, dx=0.25, dim=dim).numpy(), np.trapezoid(y, dx=0.25, axis=dim),
                               rtol=1e-12)
    np.testing.assert_allclose(torch.trapz(ty, dim=dim).numpy(), np.trapezoid(y, axis=dim), rtol=1e-12)
    assert torch.trapezoid(torch.zeros(3, 0)).shape == (3,)
    with pytest.raises(RuntimeError, match="There must be one `x` value for each sample point"):
        torch.trapezoid(ty, torch.ones(2), dim=dim)


def test_where_with_only_a_condition_gives_the_nonzero_indices():
    c = np.random.default_rng(6).integers(0, 2, (3, 4)).astype(bool)
    got = torch.where(torch.from_numpy(c))
    assert isinstance(got, tuple) and [g.tolist() for g in got] == [n.tolist() for n in np.nonzero(c)]
    assert [g.tolist() for g in torch.where(torch.tensor(True))] == [[0]]


def _numpy_norm(x, axes):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + 1e-5)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_norms_of_a_reduced_input_with_float32_parameters_compute_in_float32_as_pytorch(dtype):
    # an autocast region's bfloat16 activations through a float32 model's norms (PyTorch's mixed-type kernels)
    x = np.random.default_rng(0).standard_normal((4, 8, 5, 5)).astype(np.float32)
    given = torch.from_numpy(x).to(dtype)
    wide = given.float().numpy().astype(np.float64)
    cases = [(torch.nn.LayerNorm(5), _numpy_norm(wide, (3,))),
             (torch.nn.GroupNorm(2, 8), _numpy_norm(wide.reshape(4, 2, -1), (2,)).reshape(wide.shape)),
             (torch.nn.BatchNorm2d(8), _numpy_norm(wide, (0, 2, 3)))]
    for module, expected in cases:
        inputs = given.clone().requires_grad_()
        out = module(inputs)
        assert out.dtype is dtype
        np.testing.assert_allclose(out.detach().float().numpy(), expected, rtol=1e-2, atol=1e-2)
        out.float().sum().backward()
        assert inputs.grad.dtype is dtype
        assert all(p.grad.dtype is torch.float32 for p in module.parameters())
    assert cases[2][0].running_mean.dtype is torch.float32
    np.testing.assert_allclose(cases[2][0].running_mean.numpy(), 0.1 * wide.mean(axis=(0, 2, 3)), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_native_norms_take_float32_parameters_beside_a_reduced_input_keeping_the_statistics_float32(dtype):
    # the aten operators themselves, as PyTorch's mixed-type kernels: the output rounds to the input's dtype, the
    # statistics (and Ember's fused weight gradient) stay float32, equal to the float32 computation's
    aten = torch.ops.aten
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, 6, generator=generator).to(dtype)
    weight, bias = torch.rand(6, generator=generator) + 0.5, torch.randn(6, generator=generator)
    channel_weight, channel_bias = weight[:3].clone(), bias[:3].clone()
    running = [torch.zeros(3), torch.ones(3)]
    calls = [lambda t: aten.native_layer_norm(t, [6], weight, bias, 1e-5),
             lambda t: aten.native_layer_norm(t, [6], weight, None, 1e-5),
             lambda t: aten.native_group_norm(t, channel_weight, channel_bias, 4, 3, 6, 3, 1e-5),
             lambda t: aten.native_batch_norm(t, channel_weight, channel_bias, *running, False, 0.1, 1e-5),
             lambda t: aten.native_batch_norm(t, None, None, *running, False, 0.1, 1e-5)]
    for call in calls:
        got, wide = call(x), call(x.float())
        assert [t.dtype for t in got] == [dtype, torch.float32, torch.float32]
        assert torch.equal(got[0], wide[0].to(dtype)) and torch.equal(got[1], wide[1]) and torch.equal(got[2], wide[2])
    mean_before = running[0].clone()
    aten.native_batch_norm(x, channel_weight, channel_bias, *running, True, 0.1, 1e-5)
    assert running[0].dtype is torch.float32 and not torch.equal(running[0], mean_before)   # updated in float32
    out, mean, rstd = aten.native_layer_norm(x, [6], weight, bias, 1e-5)
    grad = torch.randn(4, 3, 6, generator=generator).to(dtype)
    weight_grad = aten._ember_layer_norm_backward_weight(grad, x, mean, rstd, [6])
    assert weight_grad.dtype is torch.float32
    assert torch.equal(weight_grad, aten._ember_layer_norm_backward_weight(grad.float(), x.float(), mean, rstd, [6]))
    input_grad = aten._ember_layer_norm_backward_input(grad, x, mean, rstd, weight)
    assert input_grad.dtype is dtype
    name = {torch.bfloat16: "BFloat16", torch.float16: "Half"}[dtype]
    with pytest.raises(RuntimeError, match=f"expected scalar type {name} but found Float"):     # as PyTorch
        aten.native_layer_norm(x, [6], weight.to(dtype), bias, 1e-5)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_native_layer_norm_on_the_device_takes_float32_parameters_beside_a_bfloat16_input():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(4, 6, generator=generator).to(torch.bfloat16)
    weight, bias = torch.rand(6, generator=generator) + 0.5, torch.randn(6, generator=generator)
    got = torch.ops.aten.native_layer_norm(x.cuda(), [6], weight.cuda(), bias.cuda(), 1e-5)
    expected = torch.ops.aten.native_layer_norm(x, [6], weight, bias, 1e-5)
    assert [t.dtype for t in got] == [torch.bfloat16, torch.float32, torch.float32]
    for a, b in zip(got, expected):
        torch.testing.assert_close(a.cpu(), b)
