"""Backward formulas' helpers for the FFT primitives (upstream's fft_r2c_backward and
fft_c2r_backward): each transform's adjoint, written with the primitives themselves so that
create_graph=True differentiates through them."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_fft_c2c = find_operator("_fft_c2c")
_fft_r2c = find_operator("_fft_r2c")
_zeros = find_operator("zeros")
_cat = find_operator("cat")

__all__ = ["fft_c2c_backward", "fft_r2c_backward", "fft_c2r_backward"]


def fft_c2c_backward(grad: Any, dim: Any, normalization: int, forward: bool) -> Any:
    """A c2c transform's adjoint: the transform the other way, scaled alike."""
    return _fft_c2c(grad, dim, normalization, not forward)


def fft_r2c_backward(grad: Any, dim: Any, normalization: int, onesided: bool, self_sizes: Any) -> Any:
    """A onesided r2c is a c2c of the real signal with half its outputs dropped: the dropped half's
    gradient is zero, then the inverse c2c, whose real part is the real input's gradient."""
    if onesided:
        last = dim[-1] % grad.dim()
        missing = self_sizes[last] - grad.shape[last]
        if missing > 0:
            shape = list(grad.shape)
            shape[last] = missing
            grad = _cat([grad, _zeros(shape, dtype=grad.dtype, device=grad.device)], last)
    return _fft_c2c(grad, dim, normalization, False).real


def fft_c2r_backward(grad: Any, dim: Any, normalization: int) -> Any:
    """A c2r fills the signal's other half by conjugate symmetry: its adjoint is the onesided r2c of
    the gradient, the entries whose mirror image lies outside the onesided half counted twice."""
    result = _fft_r2c(grad, dim, normalization, True)
    last = dim[-1] % grad.dim()
    doubled = grad.shape[last] - result.shape[last]
    if doubled <= 0:
        return result
    return _cat([result.narrow(last, 0, 1), result.narrow(last, 1, doubled) * 2,
                 result.narrow(last, 1 + doubled, result.shape[last] - 1 - doubled)], last)
