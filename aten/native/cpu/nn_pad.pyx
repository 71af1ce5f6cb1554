"""Padding on CPU: constant_pad_nd, reflection_pad{1,2,3}d, replication_pad{1,2,3}d, _pad_circular.

The constant pad fills the new tensor and copies the input into its middle (negative pads
crop). The others are gathers: along each padded dim an index array says which input
position each output position reads (reflected, clamped or wrapped), and NumPy's take
writes the output through a view of it. Checks and messages follow PyTorch's.
"""
import numpy as np

from c10.scalar_type cimport is_integral, ST_BOOL
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_bits, np_view, new_tensor, reject_half
from aten.native.cpu.fill cimport fill_value
from aten.native.meta.messages cimport shape_of
from aten.native.meta.pad_checks import check_gather_pad

from aten.native.meta.pointwise import check_fits


def constant_pad_nd_cpu(TensorImpl self not None, pad, value=0):
    cdef int n = len(pad), i, d
    cdef list shape = list(shape_of(self))
    if n % 2 != 0:
        raise RuntimeError(f"Length of pad must be even but instead it equals {n}")
    if n // 2 > self.nd:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {n}while the input has {self.nd}dimensions.")
    src, dst = [slice(None)] * self.nd, [slice(None)] * self.nd
    for i in range(n // 2):
        d = self.nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = shape[d]
        if size + min(lo, 0) + min(hi, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        shape[d] = size + lo + hi
        src[d] = slice(max(-lo, 0), size - max(-hi, 0))
        dst[d] = slice(max(lo, 0), max(lo, 0) + size + min(lo, 0) + min(hi, 0))
        if shape[d] < 0:
            raise RuntimeError(f"The input size {size}, plus negative padding {lo} and {hi} resulted in a negative "
                               f"output size, which is invalid. Check dimension {d} of your input.")
    cdef TensorImpl out = new_tensor(tuple(shape), self.scalar_type)
    if out.n_elem == 0:
        return out
    check_fits(value, self.dtype)
    if self.dtype.numpy_dtype is None:      # bfloat16: filled as fill_ converts, the rest moved as raw bits
        fill_value(out, value)
        if self.n_elem:
            out._numpy_view(raw=True)[tuple(dst)] = self._numpy_view(raw=True)[tuple(src)]
        return out
    o = np_view(out)
    if self.scalar_type == ST_BOOL:
        o[...] = bool(value)
    elif is_integral(self.scalar_type, False):
        o[...] = np.array(int(value)).astype(o.dtype)
    else:
        o[...] = value
    if self.n_elem:
        o[tuple(dst)] = np_view(self)[tuple(src)]
    return out


cdef object _indices(Py_ssize_t size, Py_ssize_t lo, Py_ssize_t hi, str mode):
    """For each output position along one dim, the input position it reads."""
    idx = np.arange(size + lo + hi, dtype=np.intp) - lo
    if mode == "reflect":
        idx = np.abs(idx)
        idx = np.where(idx >= size, 2 * (size - 1) - idx, idx)
    elif mode == "replicate":
        idx = np.clip(idx, 0, size - 1)
    else:
        idx = np.mod(idx, size)
    return idx


cdef TensorImpl _gather_pad(TensorImpl self, tuple pads, str mode):
    """pads: (lo, hi) per padded dim, last dim first (F.pad order)."""
    cdef list shape = list(shape_of(self))
    cdef int i, d
    for i in range(len(pads)):
        d = self.nd - 1 - i
        shape[d] += pads[i][0] + pads[i][1]
    cdef TensorImpl out = new_tensor(tuple(shape), self.scalar_type)
    if out.n_elem == 0:
        return out
    a = np_bits(self)           # moved, never computed on: the bits of any dtype
    for i in range(len(pads)):
        d = self.nd - 1 - i
        idx = _indices(self.sizes[d], pads[i][0], pads[i][1], mode)
        if i == len(pads) - 1:
            np.take(a, idx, axis=d, out=np_bits(out), mode="clip")
        else:
            a = np.take(a, idx, axis=d)
    return out


cdef int _dtypes(str op, TensorImpl self) except -1:
    reject_half(op, self)
    if self.scalar_type == ST_BOOL:
        raise NotImplementedError(f'"{op}" not implemented for \'Bool\'')
    return 0


def reflection_pad1d_cpu(TensorImpl self not None, padding):
    cdef tuple pads = check_gather_pad(self, padding, True, 1)
    _dtypes("reflection_pad1d", self)
    return _gather_pad(self, pads, "reflect")


def reflection_pad2d_cpu(TensorImpl self not None, padding):
    cdef tuple pads = check_gather_pad(self, padding, True, 2)
    _dtypes("reflection_pad2d", self)
    return _gather_pad(self, pads, "reflect")


def reflection_pad3d_cpu(TensorImpl self not None, padding):
    cdef tuple pads = check_gather_pad(self, padding, True, 3)
    _dtypes("reflection_pad3d", self)
    return _gather_pad(self, pads, "reflect")


def replication_pad1d_cpu(TensorImpl self not None, padding):
    cdef tuple pads = check_gather_pad(self, padding, False, 1)
    _dtypes("replication_pad1d", self)
    return _gather_pad(self, pads, "replicate")


def replication_pad2d_cpu(TensorImpl self not None, padding):
    cdef tuple pads = check_gather_pad(self, padding, False, 2)
    _dtypes("replication_pad2d", self)
    return _gather_pad(self, pads, "replicate")


def replication_pad3d_cpu(TensorImpl self not None, padding):
    cdef tuple pads = check_gather_pad(self, padding, False, 3)
    _dtypes("replication_pad3d", self)
    return _gather_pad(self, pads, "replicate")


def pad_circular_cpu(TensorImpl self not None, pad):
    cdef int n = len(pad), i, d
    if n % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if n // 2 + 1 > self.nd:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {n} and input of dimension {self.nd}")
    cdef tuple pads = tuple([(pad[2 * i], pad[2 * i + 1]) for i in range(n // 2)])
    for i in range(n // 2):
        d = self.nd - 1 - i
        lo, hi = pads[i]
        if lo > self.sizes[d] or hi > self.sizes[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if self.sizes[d] + lo + hi < 0:
            raise RuntimeError(f"Negative padding value is resulting in an empty dimension.")
    # negative pads crop first; the positive ones then wrap around what is left (as PyTorch)
    crop = [slice(None)] * self.nd
    for i in range(n // 2):
        d = self.nd - 1 - i
        crop[d] = slice(max(-pads[i][0], 0), self.sizes[d] - max(-pads[i][1], 0))
    cdef TensorImpl cropped = new_tensor(np_bits(self)[tuple(crop)].shape, self.scalar_type)
    if cropped.n_elem:
        np_bits(cropped)[...] = np_bits(self)[tuple(crop)]
    return _gather_pad(cropped, tuple([(max(lo, 0), max(hi, 0)) for lo, hi in pads]), "circular")
