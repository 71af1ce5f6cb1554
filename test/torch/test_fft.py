"""torch.fft beyond the operator database (test/opinfo/spectral.py): gradients of every transform
(gradcheck and gradgradcheck in float64 / complex128, through the primitives' derivatives), PyTorch's
argument errors, and the CUDA backend's missing cuFFT said plainly."""
import numpy as np
import pytest

import torch
from torch.autograd import gradcheck, gradgradcheck


def _real(*shape):
    return torch.from_numpy(np.random.default_rng(0).standard_normal(shape)).requires_grad_()


def _complex(*shape):
    rng = np.random.default_rng(1)
    return torch.from_numpy(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).requires_grad_()


F = torch.fft
TRANSFORMS = {
    "fft": (lambda x: F.fft(x, norm="ortho"), _complex), "fft_real": (F.fft, _real),
    "ifft": (lambda x: F.ifft(x, n=7), _complex), "ifft_real": (F.ifft, _real),
    "rfft": (F.rfft, _real), "rfft_odd": (lambda x: F.rfft(x, n=5, norm="forward"), _real),
    "irfft": (F.irfft, _complex), "irfft_odd": (lambda x: F.irfft(x, n=7), _complex),
    "hfft": (F.hfft, _complex), "ihfft": (F.ihfft, _real),
    "fft2": (F.fft2, _complex), "ifft2": (F.ifft2, _complex), "rfft2": (F.rfft2, _real), "irfft2": (F.irfft2, _complex),
    "hfft2": (F.hfft2, _complex), "ihfft2": (F.ihfft2, _real), "fftn": (lambda x: F.fftn(x, s=(3, 5)), _complex),
    "ifftn": (F.ifftn, _complex), "rfftn": (F.rfftn, _real), "irfftn": (lambda x: F.irfftn(x, dim=(0, 1)), _complex),
    "hfftn": (F.hfftn, _complex), "ihfftn": (F.ihfftn, _real), "fftshift": (F.fftshift, _complex),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_fft_gradients_match_finite_differences(name):
    fn, make = TRANSFORMS[name]
    x = make(3, 4)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_fft_of_integers_computes_in_the_default_float_dtype():
    assert F.fft(torch.arange(4)).dtype == torch.complex64
    assert F.rfft(torch.arange(4, dtype=torch.float64)).dtype == torch.complex128
    assert F.irfft(torch.ones(3, dtype=torch.complex128)).dtype == torch.float64


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.fft(torch.ones(4), norm="bogus"), RuntimeError, 'Invalid normalization mode: "bogus"'),
    (lambda: F.fft(torch.ones(4), n=0), RuntimeError, r"Invalid number of data points \(0\) specified"),
    (lambda: F.rfft(torch.ones(4, dtype=torch.complex64)), RuntimeError, "rfft expects a real input tensor"),
    (lambda: F.fftn(torch.ones(2, 3), dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
    (lambda: F.fftn(torch.ones(2, 3), s=(2, 3), dim=(1,)), RuntimeError, "must have the same length"),
    (lambda: F.fft(torch.ones(4, dtype=torch.float16)), RuntimeError, "Unsupported dtype Half"),
    (lambda: F.fft(torch.tensor(1.0)), IndexError, "tensor has no dimensions"),
    (lambda: F.irfftn(torch.ones(4, dtype=torch.complex64), dim=()), RuntimeError, "must transform at least one axis"),
], ids=["norm", "points", "complex rfft", "unique dims", "s and dim", "half", "0-d", "no axis"])
def test_fft_argument_errors_are_pytorchs(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_fft_out_variants_write_the_given_tensor():
    x = torch.arange(8, dtype=torch.float32)
    out = torch.empty(5, dtype=torch.complex64)
    assert F.rfft(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.fft.rfft(x.numpy()), rtol=1e-6, atol=1e-5)


def test_factories_take_out_and_check_its_options_as_pytorch():
    out = torch.empty(0, dtype=torch.int32)
    assert torch.arange(4, out=out) is out and out.tolist() == [0, 1, 2, 3]
    assert torch.zeros(2, out=out).tolist() == [0, 0] and torch.full((3,), 7, out=out).tolist() == [7, 7, 7]
    assert torch.fft.fftfreq(4, out=torch.empty(0)).tolist() == [0.0, 0.25, -0.5, -0.25]
    with pytest.raises(RuntimeError, match=r"dtype Double does not match dtype of out parameter \(Int\)"):
        torch.ones(2, dtype=torch.float64, out=out)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_fft_on_cuda_says_the_backend_has_no_kernel():
    with pytest.raises(NotImplementedError, match="CUDA"):
        F.rfft(torch.ones(8, device="cuda"))
