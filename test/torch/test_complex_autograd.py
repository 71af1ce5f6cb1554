"""Complex gradients with PyTorch's conjugate-Wirtinger convention (gradcheck and gradgradcheck in
complex128, through the real and imaginary parts), and the complex reductions and products
against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import torch
from torch.autograd import gradcheck, gradgradcheck


def _z(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return torch.from_numpy(rng.standard_normal(shape) + 1j * rng.standard_normal(shape) + 0.5).requires_grad_()


def _x(*shape, seed=1):
    return torch.from_numpy(np.random.default_rng(seed).random(shape) + 0.5).requires_grad_()


UNARY = {
    "exp": torch.exp, "log": torch.log, "log2": torch.log2, "log10": torch.log10, "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal, "sigmoid": torch.sigmoid, "sin": torch.sin,
    "cos": torch.cos, "tan": torch.tan, "asin": torch.asin, "acos": torch.acos, "atan": torch.atan,
    "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh, "asinh": torch.asinh, "acosh": torch.acosh,
    "atanh": torch.atanh, "neg": torch.neg, "abs": torch.abs, "angle": torch.angle, "conj": torch.conj,
    "conj_physical": torch.conj_physical, "sgn": torch.sgn, "square": lambda z: z * z,
    "pow_scalar": lambda z: z.pow(3), "real_times_imag": lambda z: z.real * z.imag,
    "view_as_real": torch.view_as_real, "sum": lambda z: z.sum(0), "mean": lambda z: z.mean(),
    "prod": lambda z: z.prod(1), "prod_all": lambda z: z.prod(),
}
BINARY = {
    "add_alpha": lambda a, b: torch.add(a, b, alpha=0.5 - 2j), "sub": torch.sub, "mul": torch.mul,
    "div": torch.div, "pow": torch.pow, "addcmul": lambda a, b: torch.addcmul(a, a, b, value=2j),
    "addcdiv": lambda a, b: torch.addcdiv(b, a, b, value=0.5), "where": lambda a, b: torch.where(a.real > 0.5, a, b),
    "mm": lambda a, b: a @ b.t(), "bmm": lambda a, b: torch.bmm(a.unsqueeze(0), b.t().unsqueeze(0)),
    "mv": lambda a, b: a @ b.t().narrow(1, 0, 1).squeeze(1),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_complex_gradients_match_finite_differences(name):
    z = _z(2, 3)
    assert gradcheck(UNARY[name], (z,))
    assert gradgradcheck(UNARY[name], (z,))


@pytest.mark.parametrize("name", list(BINARY))
def test_complex_binary_gradients_match_finite_differences(name):
    a, b = _z(2, 3, seed=2), _z(2, 3, seed=3)
    assert gradcheck(BINARY[name], (a, b))
    assert gradgradcheck(BINARY[name], (a, b))


@pytest.mark.parametrize("make", [lambda x, y: torch.complex(x, y), lambda x, y: torch.polar(x, y),
                                  lambda x, y: torch.view_as_complex(torch.stack([x, y], -1)),
                                  lambda x, y: x * (y + 1j)], ids=["complex", "polar", "view_as_complex", "mixed"])
def test_real_inputs_of_complex_results_get_real_gradients(make):
    x, y = _x(3), _x(3, seed=4)
    assert gradcheck(lambda x, y: make(x, y).exp(), (x, y))
    make(x, y).abs().sum().backward()
    assert x.grad.dtype == torch.float64 and y.grad.dtype == torch.float64


def test_gradient_of_a_real_loss_is_the_conjugate_wirtinger_one():
    """For a real L, PyTorch's z.grad is dL/dx + i dL/dy: here L = |exp(z^2)| = exp(x^2 - y^2)."""
    z = torch.tensor([1 + 2j, -0.5 + 1j], dtype=torch.complex128, requires_grad=True)
    (z * z).exp().abs().sum().backward()
    x, y = z.detach().real.numpy(), z.detach().imag.numpy()
    expected = np.exp(x * x - y * y) * (2 * x - 2j * y)
    np.testing.assert_allclose(z.grad.numpy(), expected, rtol=1e-12)


DTYPES = st.sampled_from([torch.complex64, torch.complex128])


def _array(draw, shape, dtype):
    values = draw(st.lists(st.floats(-3, 3, width=32), min_size=2 * int(np.prod(shape)),
                           max_size=2 * int(np.prod(shape))))
    a = np.asarray(values, np.float64).reshape(*shape, 2)
    return np.asarray(a[..., 0] + 1j * a[..., 1]).astype(np.dtype(dtype.numpy_dtype))


@settings(max_examples=40, deadline=None)
@given(data=st.data(), dtype=DTYPES, shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
       keepdim=st.booleans(), transpose=st.booleans())
def test_complex_sums_means_and_products_match_numpy(data, dtype, shape, keepdim, transpose):
    a = _array(data.draw, tuple(shape), dtype)
    z = torch.from_numpy(a.copy())
    if transpose and z.dim() >= 2:
        z, a = z.transpose(0, 1), a.swapaxes(0, 1)
    rtol = 1e-5 if dtype is torch.complex64 else 1e-12
    dim = data.draw(st.integers(0, z.dim() - 1)) if z.dim() else None
    np.testing.assert_allclose(z.sum().numpy(), a.sum(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(z.prod().numpy(), a.prod(), rtol=10 * rtol, atol=rtol)
    if dim is not None:
        np.testing.assert_allclose(z.sum(dim, keepdim=keepdim).numpy(), a.sum(dim, keepdims=keepdim), rtol=rtol,
                                   atol=rtol)
        np.testing.assert_allclose(z.prod(dim, keepdim=keepdim).numpy(), a.prod(dim, keepdims=keepdim),
                                   rtol=10 * rtol, atol=rtol)
        if a.shape[dim]:
            np.testing.assert_allclose(z.mean(dim, keepdim=keepdim).numpy(), a.mean(dim, keepdims=keepdim),
                                       rtol=rtol, atol=rtol)
    assert z.sum().dtype == dtype


@settings(max_examples=30, deadline=None)
@given(data=st.data(), dtype=DTYPES, m=st.integers(0, 4), k=st.integers(0, 4), n=st.integers(1, 4),
       batch=st.integers(1, 3), transpose=st.booleans())
def test_complex_matrix_products_match_numpy(data, dtype, m, k, n, batch, transpose):
    a, b = _array(data.draw, (batch, m, k), dtype), _array(data.draw, (batch, k, n), dtype)
    ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    if transpose:
        ta = torch.from_numpy(a.swapaxes(1, 2).copy()).transpose(1, 2)
    rtol = 1e-5 if dtype is torch.complex64 else 1e-12
    np.testing.assert_allclose(torch.bmm(ta, tb).numpy(), a @ b, rtol=rtol, atol=rtol)
    np.testing.assert_allclose((ta[0] @ tb[0]).numpy(), a[0] @ b[0], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(torch.matmul(ta[0], tb[0, :, 0]).numpy(), a[0] @ b[0, :, 0], rtol=rtol, atol=rtol)


def test_complex_reductions_refuse_a_real_dtype_and_sum_real_inputs_as_complex_when_asked():
    z = torch.tensor([1 + 2j, 3 - 1j])
    with pytest.raises(RuntimeError, match="reduces to a complex dtype"):
        z.sum(dtype=torch.float32)
    assert torch.ones(3).sum(dtype=torch.complex64).item() == 3 + 0j
    assert torch.tensor(1 + 2j).sum().item() == 1 + 2j
    assert torch.zeros(0, 2, dtype=torch.complex64).prod(0).tolist() == [1 + 0j, 1 + 0j]


def test_conj_of_a_real_tensor_is_the_tensor_and_the_bits_are_never_set():
    x = torch.ones(2)
    assert torch.conj(x) is x and x.resolve_conj() is x and x.resolve_neg() is x
    z = torch.tensor([1 + 2j])
    assert z.conj().tolist() == [1 - 2j] and not z.conj().is_conj() and not z.is_neg()


def test_in_place_abs_of_a_complex_tensor_is_refused_as_pytorch():
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors."):
        torch.tensor([1 + 2j]).abs_()


def test_a_complex_scalar_argument_of_a_real_computation_is_refused_as_pytorch():
    with pytest.raises(RuntimeError, match="For non-complex input tensors, argument alpha must not be a complex"):
        torch.ones(2).add(torch.ones(2), alpha=1j)


def test_complex_covariance_and_chained_products_match_numpy():
    rng = np.random.default_rng(5)
    z = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    np.testing.assert_allclose(torch.cov(torch.from_numpy(z)).numpy(), np.cov(z), rtol=1e-12)
    a, v = z[:, :3], z[0, :3]
    np.testing.assert_allclose(torch.linalg.multi_dot([torch.from_numpy(a), torch.from_numpy(a.T),
                                                       torch.from_numpy(v)]).numpy(), a @ a.T @ v, rtol=1e-12)
