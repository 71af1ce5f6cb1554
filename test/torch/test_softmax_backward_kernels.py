"""_softmax_backward_data and _log_softmax_backward_data (PyTorch's ops): the CPU kernel against NumPy's
float64 formulas along every dim (rows and strided columns), float16/bfloat16 through float32, the same bits
on any thread count, one pass per row on CUDA, and autograd through softmax using them."""
from __future__ import annotations

import numpy as np
import pytest

import torch


def _softmax_grad_reference(g, y, dim, log):
    g, y = g.astype(np.float64), y.astype(np.float64)
    if log:
        return g - np.exp(y) * g.sum(dim, keepdims=True)
    return y * (g - (g * y).sum(dim, keepdims=True))


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("shape,dim", [((6, 37), 1), ((3, 300, 5), 1), ((2, 4, 600), 0), ((9,), 0), ((5, 2, 3), -1)],
                         ids=str)
def test_kernel_matches_the_float64_formula_along_any_dim(shape, dim, dtype, log):
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal(shape)).to(dtype)
    g = torch.from_numpy(rng.standard_normal(shape)).to(dtype)
    y = torch.log_softmax(x, dim) if log else torch.softmax(x, dim)
    op = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
    got = op(g, y, dim, dtype)
    want = _softmax_grad_reference(g.numpy(), y.numpy(), dim, log)
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_reduced_floats_compute_in_float32_and_round_once(dtype):
    x = torch.randn(4, 50).to(dtype)
    g = torch.randn(4, 50).to(dtype)
    y = torch.softmax(x, 1)
    got = torch.ops.aten._softmax_backward_data(g, y, 1, dtype)
    assert got.dtype == dtype
    want = torch.ops.aten._softmax_backward_data(g.float(), y.float(), 1, torch.float32).to(dtype)
    assert torch.equal(got, want)


def test_the_same_bits_on_any_thread_count():
    x, g = torch.randn(64, 8, 300), torch.randn(64, 8, 300)
    y = torch.softmax(x, 1)
    before = torch.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            results.append((torch.ops.aten._softmax_backward_data(g, y, 1, torch.float32),
                            torch.ops.aten._log_softmax_backward_data(g, y, -1, torch.float32)))
    finally:
        torch.set_num_threads(before)
    for a, b in results[1:]:
        assert torch.equal(a, results[0][0]) and torch.equal(b, results[0][1])


def test_bad_operands_raise():
    y = torch.softmax(torch.randn(3, 4), 1)
    with pytest.raises(RuntimeError, match="one dtype and shape"):
        torch.ops.aten._softmax_backward_data(torch.randn(3, 5), y, 1, torch.float32)
    with pytest.raises(RuntimeError, match="one dtype and shape"):
        torch.ops.aten._softmax_backward_data(torch.randn(3, 4, dtype=torch.float64), y, 1, torch.float32)
    with pytest.raises(IndexError):
        torch.ops.aten._softmax_backward_data(y, y, 2, torch.float32)


def test_softmax_and_cross_entropy_gradients_through_the_kernels_match_double_backward_formulas():
    x = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.softmax(t, 1), (x,))
    assert torch.autograd.gradcheck(lambda t: torch.log_softmax(t, 0), (x,))
    assert torch.autograd.gradgradcheck(lambda t: torch.softmax(t, 1), (x,))
    target = torch.tensor([1, 0, 6, 3, 2])
    (g,) = torch.autograd.grad(torch.nn.functional.cross_entropy(x, target), x)
    p = torch.softmax(x.detach(), 1).numpy()
    p[np.arange(5), target.numpy()] -= 1
    np.testing.assert_allclose(g.numpy(), p / 5, rtol=1e-12, atol=1e-14)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=str)
def test_the_cuda_kernel_matches_numpy_along_every_dim(log, dim, dtype):
    x = torch.randn(4, 5, 300)
    y = (torch.log_softmax if log else torch.softmax)(x, dim).to(dtype)
    g = torch.randn(4, 5, 300).to(dtype)
    op = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
    got = op(g.cuda(), y.cuda(), dim, dtype)
    assert got.device.type == "cuda" and got.dtype == dtype and got.shape == y.shape
    tolerance = {torch.float16: 1e-2, torch.float32: 1e-5, torch.float64: 1e-12}[dtype]
    np.testing.assert_allclose(got.cpu().double().numpy(),
                               _softmax_grad_reference(g.double().numpy(), y.double().numpy(), dim, log),
                               rtol=tolerance, atol=tolerance)
