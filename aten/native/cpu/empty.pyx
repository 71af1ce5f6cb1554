"""aten::empty on CPU, and the creation kernels that allocate and fill in one step: zeros
(a zeroed block), ones, full and scalar_tensor (a typed fill of the value converted once,
aten/native/cpu/fill.pyx). They are the CPU entries of ops whose CompositeExplicitAutograd
kernels (aten/native/composite/factories.py) serve the other backends; the dispatcher tries a
backend's own kernel first. The *_like and new_* composites call filled_like_cpu /
new_filled_cpu here for their CPU case."""
from libc.stdint cimport uint64_t
from c10.scalar_type cimport dtype as DType, default_float_type, ST_BOOL, ST_INT64
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, empty_with_strides, sizes_from_sequence
from aten.native.cpu.fill cimport fill_pattern, fill_bits, fill_value, zero_fill
from aten.native.cpu.views cimport format_strides

from c10 import layout as _layout

cdef object _STRIDED = _layout.strided
EMPTY = object()                   # the value for filled_like_cpu / new_filled_cpu: leave it uninitialised
cdef object _EMPTY = EMPTY


def check_tensor_options(layout, pin_memory, memory_format):
    if layout is not None and layout is not _layout.strided:
        raise RuntimeError(f"Ember supports only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError("pin_memory=True needs CUDA, which this CPU kernel cannot use")
    if memory_format is not None and memory_format is not _layout.contiguous_format \
            and memory_format is not _layout.preserve_format:
        raise RuntimeError(f"empty: unsupported memory format {memory_format!r} (only contiguous_format)")


cdef inline int _check_options(object layout, object pin_memory) except -1:
    if (layout is not None and layout is not _STRIDED) or pin_memory:
        check_tensor_options(layout, pin_memory, None)
    return 0


cdef inline int _st(object dtype, int default) except -2:
    return default if dtype is None else (<DType?>dtype).scalar_type


cdef inline bint _on_cpu(object device) except -1:
    return device is None or device.type == "cpu"


def empty_cpu(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(size, sizes, "size")
    check_tensor_options(layout, pin_memory, memory_format)
    return empty_contiguous(ndim, sizes, default_float_type() if dtype is None else (<DType?>dtype).scalar_type, None)


def zeros_cpu(size, dtype=None, layout=None, device=None, pin_memory=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(size, sizes, "size"), d
    cdef TensorImpl out
    for d in range(ndim):
        if sizes[d] < 0:
            raise RuntimeError("zeros: Dimension size must be non-negative.")
    _check_options(layout, pin_memory)
    out = empty_contiguous(ndim, sizes, _st(dtype, default_float_type()), None)
    zero_fill(out)
    return out


cdef TensorImpl _full(object size, object value, int st, object layout, object pin_memory):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(size, sizes, "size")
    cdef uint64_t pattern
    cdef TensorImpl out
    _check_options(layout, pin_memory)
    if fill_pattern(value, st, &pattern) == 0:     # value checked before the allocation
        out = empty_contiguous(ndim, sizes, st, None)
        fill_bits(out, pattern)
    else:
        out = empty_contiguous(ndim, sizes, st, None)
        fill_value(out, value)
    return out


def ones_cpu(size, dtype=None, layout=None, device=None, pin_memory=None):
    return _full(size, 1, _st(dtype, default_float_type()), layout, pin_memory)


def full_cpu(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    cdef int st
    if dtype is not None:
        st = (<DType?>dtype).scalar_type
    elif isinstance(fill_value, bool):     # the dtype of the fill value, as torch.tensor infers it
        st = ST_BOOL
    elif isinstance(fill_value, int):
        st = ST_INT64
    else:
        st = default_float_type()
    return _full(size, fill_value, st, layout, pin_memory)


def scalar_tensor_cpu(s, dtype=None, layout=None, device=None, pin_memory=None):
    return _full((), s, _st(dtype, default_float_type()), layout, pin_memory)


# -- CPU fast paths of the *_like and new_* composites ---------------------------------------------

cdef inline int _fill_new(TensorImpl out, object value) except -1:
    if value is _EMPTY:
        return 0
    if value is 0:
        return zero_fill(out)
    return fill_value(out, value)


def filled_like_cpu(TensorImpl self not None, value, dtype, layout, device, pin_memory, memory_format):
    """empty_like / zeros_like / ones_like / full_like(self, value, ...) for a CPU self made on
    the CPU with the strided layout: a tensor with empty_like's strides (self's stride order
    under preserve_format, the default), filled with value (EMPTY: left uninitialised). Returns
    None when another device, layout or pinned memory is asked for (the composite's case)."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int st
    cdef TensorImpl out
    if self.device_type != 0 or not _on_cpu(device) or (layout is not None and layout is not _STRIDED) \
            or pin_memory:
        return None
    st = _st(dtype, self.scalar_type)
    if not format_strides(self, memory_format, "empty_like", strides):
        out = empty_contiguous(self.nd, self.sizes, st, None)
        _fill_new(out, value)
        return out
    out = empty_with_strides(self.nd, self.sizes, strides, st, None)
    _fill_new(out, value)
    return out


def new_filled_cpu(TensorImpl self not None, size, value, dtype, layout, device, pin_memory):
    """new_empty / new_zeros / new_ones / new_full(self, size, value, ...) for a CPU self made on
    the CPU: a contiguous tensor of self's dtype (unless dtype is given) filled with value (EMPTY:
    left uninitialised). Returns None for another device (the composite's case)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim
    cdef TensorImpl out
    if self.device_type != 0 or not _on_cpu(device):
        return None
    ndim = sizes_from_sequence(size, sizes, "size")
    _check_options(layout, pin_memory)
    out = empty_contiguous(ndim, sizes, _st(dtype, self.scalar_type), None)
    _fill_new(out, value)
    return out
