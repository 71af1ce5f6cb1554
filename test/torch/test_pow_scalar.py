"""pow(tensor, number) answers the exponents PyTorch's pow_tensor_scalar kernels special-case exactly as
they do: squares and cubes by products (x ** 2 is bit for bit x * x, as NumPy's square), roots and
inverses by their own kernels; every other exponent by pow()."""
import numpy as np
import pytest

import torch

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_and_roots_match_numpys_bit_for_bit(dtype):
    x = (RNG.standard_normal(4096) * 3).astype(dtype)
    t = torch.tensor(x)
    a = np.abs(x) + dtype(0.5)
    ta = torch.tensor(a)
    np.testing.assert_array_equal((t ** 2).numpy(), x * x)
    np.testing.assert_array_equal((t ** 3).numpy(), x * x * x)
    np.testing.assert_array_equal((t ** -2).numpy(), dtype(1) / (x * x))
    np.testing.assert_array_equal((t ** -1).numpy(), dtype(1) / x)
    np.testing.assert_array_equal((ta ** 0.5).numpy(), np.sqrt(a))
    np.testing.assert_array_equal((ta ** -0.5).numpy(), torch.rsqrt(ta).numpy())      # by the rsqrt kernel
    np.testing.assert_allclose((ta ** -0.5).numpy(), 1 / np.sqrt(a.astype(np.float64)),
                               rtol=2e-7 if dtype == np.float32 else 1e-15)
    np.testing.assert_allclose((ta ** 1.7).numpy(), a ** dtype(1.7), rtol=2e-7 if dtype == np.float32 else 1e-15)


def test_exponent_one_is_a_copy_and_gradients_are_pows():
    x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = x ** 1
    assert y.data_ptr() != x.data_ptr() and y.tolist() == x.tolist()
    (x ** 2).sum().backward()
    assert x.grad.tolist() == [3.0, -4.0, 6.0]
    assert (torch.arange(3) ** 2).dtype == torch.int64 and (torch.arange(3) ** 2.0).dtype == torch.float32
    out = torch.empty(3)
    torch.pow(torch.full((3,), 2.0), 2, out=out)
    assert out.tolist() == [4.0, 4.0, 4.0]
