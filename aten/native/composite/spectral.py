"""torch.fft: every function a composite of the three FFT primitives (_fft_c2c, _fft_r2c, _fft_c2r),
with upstream's dtype promotion, argument checks and normalisation modes (aten/src/ATen/native/
SpectralOps.cpp), so autograd differentiates them through the primitives' formulas."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.views import wrap as wrap_dim
from c10.scalar_type import get_default_dtype

_c2c = find_operator("_fft_c2c")
_r2c = find_operator("_fft_r2c")
_c2r = find_operator("_fft_c2r")
_pad = find_operator("constant_pad_nd")
_arange = find_operator("arange")
_roll = find_operator("roll")

# upstream's fft_norm_mode: the scaling a transform applies, whatever its direction
_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _norm(norm: str | None, forward: bool) -> int:
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x: Any, require_complex: bool = False) -> Any:
    """Integral inputs compute in the default float dtype; half precision has no CPU FFT."""
    if x.dtype.is_complex:
        return x
    if not x.dtype.is_floating_point:
        x = x.to(get_default_dtype())
    elif x.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"Unsupported dtype {x.dtype.type_name}")
    return x.to(x.dtype.to_complex()) if require_complex else x


def _resize(x: Any, dims: list[int], sizes: list[int]) -> Any:
    """x cut or zero-padded to sizes along dims (upstream's resize_fft_input)."""
    pad = [0] * (2 * x.dim())
    for d, size in zip(dims, sizes):
        if x.shape[d] > size:
            x = x.narrow(d, 0, size)
        elif x.shape[d] < size:
            pad[2 * (x.dim() - d - 1) + 1] = size - x.shape[d]
    return _pad(x, pad) if any(pad) else x


def _points(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _one_dim(x: Any, n: int | None, dim: int, default: int | None = None) -> tuple[int, int]:
    d = wrap_dim(dim, x.dim(), False)
    return d, _points(n if n is not None else (x.shape[d] if default is None else default))


# -- one dimension ---------------------------------------------------------------------------------

def _c2c_1d(x: Any, n: int | None, dim: int, norm: str | None, forward: bool) -> Any:
    d, n = _one_dim(x, n, dim)
    return _c2c(_resize(x, [d], [n]), [d], _norm(norm, forward), forward)


def _r2c_1d(name: str, x: Any, n: int | None, dim: int, norm: str | None, forward: bool, onesided: bool) -> Any:
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype.type_name}")
    x = _promote(x)
    d, n = _one_dim(x, n, dim)
    result = _r2c(_resize(x, [d], [n]), [d], _norm(norm, forward), onesided)
    return result if forward else result.conj()     # the inverse of a real signal: the conjugate transform


def _c2r_1d(x: Any, n: int | None, dim: int, norm: str | None, forward: bool) -> Any:
    x = _promote(x, require_complex=True)
    d = wrap_dim(dim, x.dim(), False)
    n = _points(n if n is not None else 2 * (x.shape[d] - 1))
    x = _resize(x, [d], [n // 2 + 1])
    if forward:           # hfft: the c2r of the conjugate
        x = x.conj()
    return _c2r(x, [d], _norm(norm, forward), n)


def fft_fft(self: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Any:
    if self.dtype.is_complex:
        return _c2c_1d(self, n, dim, norm, True)
    return _r2c_1d("fft", self, n, dim, norm, True, False)


def fft_ifft(self: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Any:
    if self.dtype.is_complex:
        return _c2c_1d(self, n, dim, norm, False)
    return _r2c_1d("ifft", self, n, dim, norm, False, False)


def fft_rfft(self: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Any:
    return _r2c_1d("rfft", self, n, dim, norm, True, True)


def fft_irfft(self: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Any:
    return _c2r_1d(self, n, dim, norm, False)


def fft_hfft(self: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Any:
    return _c2r_1d(self, n, dim, norm, True)


def fft_ihfft(self: Any, n: int | None = None, dim: int = -1, norm: str | None = None) -> Any:
    return _r2c_1d("ihfft", self, n, dim, norm, False, True)


# -- n dimensions ----------------------------------------------------------------------------------

def _shape_and_dims(x: Any, s: Any, dim: Any) -> tuple[list[int], list[int]]:
    """upstream's canonicalize_fft_shape_and_dim_args: the transformed dims and their sizes."""
    ndim = x.dim()
    dims: list[int] = []
    if dim is not None:
        dims = [wrap_dim(d, ndim, False) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if dim is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dim is None:
        dims, shape = list(range(ndim)), list(x.shape)
    else:
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _points(n)
    return shape, dims


def _c2r_shape_and_dims(name: str, x: Any, s: Any, dim: Any) -> tuple[list[int], list[int], int]:
    """As _shape_and_dims, with the real output's last size, the input's last size its onesided half."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    given = s is not None and (s if isinstance(s, int) else list(s)[-1]) != -1
    last = _points(shape[-1] if given else 2 * (x.shape[dims[-1]] - 1))
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _c2c_nd(x: Any, s: Any, dim: Any, norm: str | None, forward: bool) -> Any:
    x = _promote(x, require_complex=True)
    shape, dims = _shape_and_dims(x, s, dim)
    return _c2c(_resize(x, dims, shape), dims, _norm(norm, forward), forward)


def _rfftn(x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    if x.dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {x.dtype.type_name}")
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _promote(x)
    return _r2c(_resize(x, dims, shape), dims, _norm(norm, True), True)


def _irfftn(x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    shape, dims, last = _c2r_shape_and_dims("irfftn", x, s, dim)
    x = _promote(x, require_complex=True)
    return _c2r(_resize(x, dims, shape), dims, _norm(norm, False), last)


def _hfftn(x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    """A c2c over all but the last dim, then the c2r of its conjugate over the last."""
    shape, dims, last = _c2r_shape_and_dims("hfftn", x, s, dim)
    x = _resize(_promote(x, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = _c2c(x, dims[:-1], mode, True)
    return _c2r(x.conj(), dims[-1:], mode, last)


def _ihfftn(x: Any, s: Any, dim: Any, norm: str | None) -> Any:
    """The onesided inverse transform over the last dim (the conjugate of the r2c of a real signal),
    then the inverse c2c over the rest."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize(_promote(x), dims, shape)
    mode = _norm(norm, False)
    half = _r2c(x, dims[-1:], mode, True).conj()
    return half if len(dims) == 1 else _c2c(half, dims[:-1], mode, False)


def fft_fftn(self: Any, s: Any = None, dim: Any = None, norm: str | None = None) -> Any:
    return _c2c_nd(self, s, dim, norm, True)


def fft_ifftn(self: Any, s: Any = None, dim: Any = None, norm: str | None = None) -> Any:
    return _c2c_nd(self, s, dim, norm, False)


def fft_rfftn(self: Any, s: Any = None, dim: Any = None, norm: str | None = None) -> Any:
    return _rfftn(self, s, dim, norm)


def fft_irfftn(self: Any, s: Any = None, dim: Any = None, norm: str | None = None) -> Any:
    return _irfftn(self, s, dim, norm)


def fft_hfftn(self: Any, s: Any = None, dim: Any = None, norm: str | None = None) -> Any:
    return _hfftn(self, s, dim, norm)


def fft_ihfftn(self: Any, s: Any = None, dim: Any = None, norm: str | None = None) -> Any:
    return _ihfftn(self, s, dim, norm)


_LAST_TWO = (-2, -1)


def fft_fft2(self: Any, s: Any = None, dim: Any = _LAST_TWO, norm: str | None = None) -> Any:
    return _c2c_nd(self, s, dim, norm, True)


def fft_ifft2(self: Any, s: Any = None, dim: Any = _LAST_TWO, norm: str | None = None) -> Any:
    return _c2c_nd(self, s, dim, norm, False)


def fft_rfft2(self: Any, s: Any = None, dim: Any = _LAST_TWO, norm: str | None = None) -> Any:
    return _rfftn(self, s, dim, norm)


def fft_irfft2(self: Any, s: Any = None, dim: Any = _LAST_TWO, norm: str | None = None) -> Any:
    return _irfftn(self, s, dim, norm)


def fft_hfft2(self: Any, s: Any = None, dim: Any = _LAST_TWO, norm: str | None = None) -> Any:
    return _hfftn(self, s, dim, norm)


def fft_ihfft2(self: Any, s: Any = None, dim: Any = _LAST_TWO, norm: str | None = None) -> Any:
    return _ihfftn(self, s, dim, norm)


# -- frequencies and shifts ------------------------------------------------------------------------

def _scale(n: int, d: float) -> float:
    return 1.0 / (n * d) if n * d != 0 else math.copysign(math.inf, d)


def fft_fftfreq(n: int, d: float = 1.0, dtype: Any = None, layout: Any = None, device: Any = None,
                pin_memory: bool | None = None) -> Any:
    """The sample frequencies of an n-point FFT: [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n d)."""
    result = _arange(n, dtype=dtype or get_default_dtype(), device=device)
    result.narrow(0, (n + 1) // 2, n // 2).sub_(n)
    return result.mul_(_scale(n, d))


def fft_rfftfreq(n: int, d: float = 1.0, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: bool | None = None) -> Any:
    """The sample frequencies of an n-point rfft: [0, 1, ..., n // 2] / (n d)."""
    return _arange(n // 2 + 1, dtype=dtype or get_default_dtype(), device=device).mul_(_scale(n, d))


def _shifted(x: Any, dim: Any, shift_of: Any) -> Any:
    dims = list(range(x.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    return _roll(x, [shift_of(x.shape[d]) for d in dims], dims)


def fft_fftshift(self: Any, dim: Any = None) -> Any:
    return _shifted(self, dim, lambda n: n // 2)


def fft_ifftshift(self: Any, dim: Any = None) -> Any:
    return _shifted(self, dim, lambda n: (n + 1) // 2)
