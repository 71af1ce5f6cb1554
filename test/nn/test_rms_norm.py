"""rms_norm / nn.RMSNorm against NumPy: x / sqrt(mean(x^2) + eps) over the trailing dims, times weight,
computed in float32 for the reduced floating types, eps the machine epsilon of that computation by
default; gradcheck and PyTorch's shape errors."""
import numpy as np
import pytest

import torch
from torch import nn
from torch.autograd import gradcheck
from torch.nn import functional as F

RNG = np.random.default_rng(0)


def _np_rms(x, dims, weight, eps):
    axes = tuple(range(x.ndim - dims, x.ndim))
    out = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return out if weight is None else out * weight


@pytest.mark.parametrize("dtype, eps", [(np.float32, np.finfo(np.float32).eps), (np.float64, np.finfo(np.float64).eps)])
@pytest.mark.parametrize("shape, dims", [((2, 3, 8), 1), ((4, 6), 2), ((3, 0, 5), 1)])
def test_rms_norm_matches_numpy(dtype, eps, shape, dims):
    x = RNG.standard_normal(shape).astype(dtype)
    w = RNG.standard_normal(shape[len(shape) - dims:]).astype(dtype)
    got = F.rms_norm(torch.tensor(x), shape[len(shape) - dims:], torch.tensor(w))
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got.numpy(), _np_rms(x.astype(np.float64), dims, w, eps), rtol=tol, atol=tol)
    got = F.rms_norm(torch.tensor(x), shape[len(shape) - dims:], eps=0.1)
    np.testing.assert_allclose(got.numpy(), _np_rms(x.astype(np.float64), dims, None, 0.1), rtol=tol, atol=tol)


def test_rms_norm_of_bfloat16_computes_in_float32():
    x = torch.randn(3, 16).bfloat16()
    got = F.rms_norm(x, [16])
    assert got.dtype == torch.bfloat16
    want = _np_rms(x.float().numpy().astype(np.float64), 1, None, np.finfo(np.float32).eps)
    np.testing.assert_allclose(got.float().numpy(), want, rtol=8e-3, atol=8e-3)


def test_rms_norm_keeps_the_inputs_dtype_and_rounds_once():
    x = torch.randn(3, 8)
    w = torch.randn(8)
    half = F.rms_norm(x.half(), [8], w)
    assert half.dtype == torch.float16
    xf = x.half().float()
    once = (xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + torch.finfo(torch.float32).eps) * w).half()
    assert torch.equal(half, once)
    assert F.rms_norm(x, [8], w.double()).dtype == torch.float32
    assert nn.RMSNorm(8)(x.bfloat16()).dtype == torch.bfloat16


def test_rms_norm_module_and_gradients():
    m = nn.RMSNorm([3, 4], eps=1e-5).double()
    assert repr(m) == "RMSNorm((3, 4), eps=1e-05, elementwise_affine=True)" and list(m.state_dict()) == ["weight"]
    assert torch.equal(m.weight, torch.ones(3, 4, dtype=torch.float64))
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(m, (x,))
    assert repr(nn.RMSNorm(4, elementwise_affine=False)) == "RMSNorm((4,), eps=None, elementwise_affine=False)"


@pytest.mark.parametrize("call, message", [
    (lambda: F.rms_norm(torch.ones(2, 3), [2, 4]),
     "Given normalized_shape=[2, 4], expected input with shape [*2, 4], but got input of size[2, 3]"),
    (lambda: F.rms_norm(torch.ones(2, 3), []), "Expected normalized_shape to be at least 1-dimensional, i.e., "
     "containing at least one element, but got normalized_shape = []"),
    (lambda: F.rms_norm(torch.ones(2, 3), [3], weight=torch.ones(4)), "Expected weight to be of same shape as "
     "normalized_shape, but got weight of shape [4] and normalized_shape = [3]"),
])
def test_rms_norm_errors_are_pytorchs(call, message):
    with pytest.raises(RuntimeError) as caught:
        call()
    assert str(caught.value) == message


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_rms_norm_on_the_device_matches_the_cpu():
    x, w = torch.randn(4, 8), torch.randn(8)
    np.testing.assert_allclose(F.rms_norm(x.cuda(), [8], w.cuda()).cpu().numpy(), F.rms_norm(x, [8], w).numpy(),
                               rtol=1e-5, atol=1e-6)
