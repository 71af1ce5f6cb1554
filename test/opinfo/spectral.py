"""torch.fft against NumPy's and SciPy's FFTs (pocketfft, computed in double precision here): every
transform on real, complex and integer inputs, with lengths cut and padded (n, s), chosen dims and
the three normalisation modes; the sample frequencies and the shifts."""
from __future__ import annotations

import numpy as np
import scipy.fft

import torch
from dtype_cases import COMPLEX_DTYPES, random_values
from opinfo.core import FLOATING, OpInfo, SampleInput

REAL = (torch.int64,) + FLOATING
ANY = REAL + tuple(COMPLEX_DTYPES)
TOL = {torch.float32: (2e-5, 2e-5), torch.complex64: (2e-5, 2e-5), torch.float64: (1e-12, 1e-12),
       torch.complex128: (1e-12, 1e-12)}


def _float_of(a: np.ndarray) -> np.dtype:
    """PyTorch's FFT promotion: integers compute in the default float dtype."""
    return a.dtype if a.dtype.kind in "fc" else np.dtype(np.float32)


def _ref(fn, result: str):
    """fn in double precision, its result in the dtype PyTorch gives: the complex (or, for the c2r
    transforms, real) dtype of the input's precision."""
    def ref(a, *args, **kwargs):
        base = np.empty(0, _float_of(a)).real.dtype
        work = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        kind = {"complex": np.result_type(base, np.complex64), "real": base}[result]
        return np.asarray(fn(work, *args, **kwargs)).astype(kind)
    return ref


def _one_dim_samples(dtype, rng):
    x = random_values(dtype, (3, 8), rng)
    return [SampleInput((x,), name="default"), SampleInput((x,), {"n": 5}, name="cut"),
            SampleInput((x,), {"n": 11, "dim": 0}, name="padded dim 0"),
            SampleInput((random_values(dtype, (7,), rng),), {"norm": "ortho"}, name="odd ortho"),
            SampleInput((x,), {"norm": "forward"}, name="forward"), SampleInput((x,), {"norm": "backward"},
                                                                                 name="backward")]


def _n_dim_samples(dtype, rng):
    x = random_values(dtype, (2, 4, 6), rng)
    return [SampleInput((x,), name="default"), SampleInput((x,), {"s": (3, 5)}, name="s"),
            SampleInput((x,), {"dim": (0, 2), "norm": "ortho"}, name="dims ortho"),
            SampleInput((x,), {"s": (5, -1), "dim": (2, 1), "norm": "forward"}, name="s and dims")]


def _two_dim_samples(dtype, rng):
    x = random_values(dtype, (2, 4, 6), rng)
    return [SampleInput((x,), name="default"), SampleInput((x,), {"s": (3, 7)}, name="s"),
            SampleInput((x,), {"dim": (0, 2), "norm": "ortho"}, name="dims ortho")]


def _one(np_fn):
    """torch's (n, dim) keywords as NumPy's (n, axis)."""
    return lambda a, n=None, dim=-1, norm=None: np_fn(a, n=n, axis=dim, norm=norm)


def _many(np_fn, default_axes=None, c2r=False):
    """torch's (s, dim) keywords as NumPy's (s, axes). -1 in s keeps that dim's size, except for the
    last dim of a c2r transform, whose default output length is 2 * (size - 1)."""
    def call(a, s=None, dim=default_axes, norm=None):
        axes = list(dim) if dim is not None else (None if s is None else list(range(a.ndim - len(s), a.ndim)))
        if s is not None and -1 in s:
            default_last = 2 * (a.shape[axes[-1]] - 1) if c2r else a.shape[axes[-1]]
            s = [a.shape[d] if n == -1 else n for d, n in zip(axes[:-1], s[:-1])] + \
                [default_last if s[-1] == -1 else s[-1]]
        return np_fn(a, s=s, axes=axes, norm=norm)
    return call


def _freq_samples(dtype, rng):
    return [SampleInput((n,), {"d": d, "dtype": dtype}, name=f"{n},{d}") for n, d in ((1, 1.0), (7, 0.5), (8, 2.0))]


def _shift_samples(dtype, rng):
    x = random_values(dtype, (3, 5, 4), rng)
    return [SampleInput((x,), name="all"), SampleInput((x,), {"dim": 1}, name="dim 1"),
            SampleInput((x,), {"dim": (0, 2)}, name="dims")]


def _fft(name: str, np_fn, samples, dtypes, result="complex"):
    return OpInfo("fft." + name, _ref(np_fn, result), samples, dtypes, method=False, tol=TOL)


OPS = [
    _fft("fft", _one(np.fft.fft), _one_dim_samples, ANY),
    _fft("ifft", _one(np.fft.ifft), _one_dim_samples, ANY),
    _fft("rfft", _one(np.fft.rfft), _one_dim_samples, REAL),
    _fft("irfft", _one(np.fft.irfft), _one_dim_samples, ANY, "real"),
    _fft("hfft", _one(np.fft.hfft), _one_dim_samples, ANY, "real"),
    _fft("ihfft", _one(np.fft.ihfft), _one_dim_samples, REAL),
    _fft("fft2", _many(np.fft.fftn, (-2, -1)), _two_dim_samples, ANY),
    _fft("ifft2", _many(np.fft.ifftn, (-2, -1)), _two_dim_samples, ANY),
    _fft("rfft2", _many(np.fft.rfftn, (-2, -1)), _two_dim_samples, REAL),
    _fft("irfft2", _many(np.fft.irfftn, (-2, -1), c2r=True), _two_dim_samples, ANY, "real"),
    _fft("hfft2", _many(scipy.fft.hfftn, (-2, -1), c2r=True), _two_dim_samples, ANY, "real"),
    _fft("ihfft2", _many(scipy.fft.ihfftn, (-2, -1)), _two_dim_samples, REAL),
    _fft("fftn", _many(np.fft.fftn), _n_dim_samples, ANY),
    _fft("ifftn", _many(np.fft.ifftn), _n_dim_samples, ANY),
    _fft("rfftn", _many(np.fft.rfftn), _n_dim_samples, REAL),
    _fft("irfftn", _many(np.fft.irfftn, c2r=True), _n_dim_samples, ANY, "real"),
    _fft("hfftn", _many(scipy.fft.hfftn, c2r=True), _n_dim_samples, ANY, "real"),
    _fft("ihfftn", _many(scipy.fft.ihfftn), _n_dim_samples, REAL),
    OpInfo("fft.fftfreq", lambda n, d, dtype: np.fft.fftfreq(n, d).astype(dtype.numpy_dtype), _freq_samples,
           FLOATING, method=False),
    OpInfo("fft.rfftfreq", lambda n, d, dtype: np.fft.rfftfreq(n, d).astype(dtype.numpy_dtype), _freq_samples,
           FLOATING, method=False),
    OpInfo("fft.fftshift", lambda a, dim=None: np.fft.fftshift(a, axes=dim), _shift_samples, ANY, method=False,
           supports_out=False),
    OpInfo("fft.ifftshift", lambda a, dim=None: np.fft.ifftshift(a, axes=dim), _shift_samples, ANY, method=False,
           supports_out=False),
]
