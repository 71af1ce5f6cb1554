"""The FFT primitives (PyTorch's _fft_r2c, _fft_c2r, _fft_c2c) on the CPU, through NumPy's
pocketfft, which computes float32 / complex64 in single precision as PyTorch's MKL and pocketfft
backends do. `normalization` is PyTorch's fft_norm_mode, the scaling applied whatever the direction:
0 none, 1 by 1/sqrt(n), 2 by 1/n (n the product of the transformed sizes)."""
import numpy as np

from c10.scalar_type cimport dtype_of, ST_FLOAT32, ST_FLOAT64, ST_COMPLEX64, ST_COMPLEX128
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_view, require_floating, tensor_of
from aten.native.meta.views cimport wrap_dim

# NumPy's norm names for a transform scaled by none / 1/sqrt(n) / 1/n, forward and inverse.
_FORWARD_NORM = ("backward", "ortho", "forward")
_INVERSE_NORM = ("forward", "ortho", "backward")


cdef tuple _axes(TensorImpl self, object dim):
    cdef list axes = [wrap_dim(d, self.nd, False) for d in dim]
    if len(set(axes)) != len(axes):
        raise RuntimeError("FFT dims must be unique")
    return tuple(axes)


cdef str _norm(int normalization, bint forward):
    if normalization < 0 or normalization > 2:
        raise RuntimeError(f"Invalid normalization mode: {normalization}")
    return (_FORWARD_NORM if forward else _INVERSE_NORM)[normalization]


cdef int _check_complex(TensorImpl self, str op) except -1:
    if self.scalar_type != ST_COMPLEX64 and self.scalar_type != ST_COMPLEX128:
        raise RuntimeError(f"{op} expects a complex tensor, but got {dtype_of(self.scalar_type).type_name}")
    return 0


cdef int _complex_of(int st) noexcept:
    return ST_COMPLEX64 if st == ST_FLOAT32 else ST_COMPLEX128


cdef int _real_of(int st) noexcept:
    return ST_FLOAT32 if st == ST_COMPLEX64 else ST_FLOAT64


cdef object _run(object transform, object a, dict kwargs):
    try:
        return transform(a, **kwargs)
    except ValueError as e:      # a transformed dim of size 0: PyTorch's message
        raise RuntimeError(str(e).replace("FFT data points", "data points")) from None


def _fft_c2c_cpu(TensorImpl self not None, dim, int normalization, bint forward):
    """The complex-to-complex transform of self over dim, forward or inverse."""
    _check_complex(self, "_fft_c2c")
    axes = _axes(self, dim)
    if not axes:
        return tensor_of(np_view(self), self.scalar_type)
    transform = np.fft.fftn if forward else np.fft.ifftn
    return tensor_of(_run(transform, np_view(self), {"axes": axes, "norm": _norm(normalization, forward)}),
                     self.scalar_type)


def _fft_r2c_cpu(TensorImpl self not None, dim, int normalization, bint onesided):
    """The forward transform of a real tensor over dim; onesided keeps the last dim's first n // 2 + 1
    outputs (the rest are their conjugates)."""
    require_floating("_fft_r2c_cpu", self)
    axes = _axes(self, dim)
    if not axes:
        raise RuntimeError("_fft_r2c must transform at least one axis")
    kwargs = {"axes": axes, "norm": _norm(normalization, True)}
    result = _run(np.fft.rfftn if onesided else np.fft.fftn, np_view(self), kwargs)
    return tensor_of(result, _complex_of(self.scalar_type))


def _fft_c2r_cpu(TensorImpl self not None, dim, int normalization, Py_ssize_t last_dim_size):
    """The inverse transform of a onesided Hermitian signal over dim, to a real tensor whose last
    transformed dim has last_dim_size points."""
    _check_complex(self, "_fft_c2r")
    axes = _axes(self, dim)
    if not axes:
        raise RuntimeError("_fft_c2r must transform at least one axis")
    if last_dim_size < 1:
        raise RuntimeError(f"Invalid number of data points ({last_dim_size}) specified")
    shape = [self.sizes[a] for a in axes[:-1]] + [last_dim_size]
    kwargs = {"s": shape, "axes": axes, "norm": _norm(normalization, False)}
    return tensor_of(_run(np.fft.irfftn, np_view(self), kwargs), _real_of(self.scalar_type))
