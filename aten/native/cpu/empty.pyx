"""aten::empty on CPU, and the creation kernels that allocate and fill in one step: zeros
(a zeroed block), ones, full and scalar_tensor (a typed fill of the value converted once,
aten/native/cpu/fill.pyx). They are the CPU entries of ops whose CompositeExplicitAutograd
kernels (aten/native/composite/factories.py) serve the other backends; the dispatcher tries a
backend's own kernel first."""
from libc.stdint cimport uint64_t
from c10.scalar_type cimport dtype as DType, default_float_type, ST_BOOL, ST_INT64, ST_FLOAT32, ST_COMPLEX64, ST_COMPLEX128
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, sizes_from_sequence
from aten.native.cpu.fill cimport fill_pattern, fill_bits, fill_value, zero_fill
from aten.native.meta.tensor_options import check_tensor_options, fill_uninitialized
from aten.native.meta import context as _context

from c10 import layout as _layout

cdef object _STRIDED = _layout.strided


cdef inline int _check_options(object layout, object pin_memory) except -1:
    if (layout is not None and layout is not _STRIDED) or pin_memory:
        check_tensor_options(layout, pin_memory, None)
    return 0


cdef inline int _st(object dtype, int default) except -2:
    return default if dtype is None else (<DType?>dtype).scalar_type


def empty_cpu(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(size, sizes, "size")
    check_tensor_options(layout, pin_memory, memory_format)
    out = empty_contiguous(ndim, sizes, default_float_type() if dtype is None else (<DType?>dtype).scalar_type, None)
    return fill_uninitialized(out) if _context.filling else out


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
    elif isinstance(fill_value, complex):
        st = ST_COMPLEX64 if default_float_type() == ST_FLOAT32 else ST_COMPLEX128
    else:
        st = default_float_type()
    return _full(size, fill_value, st, layout, pin_memory)


def scalar_tensor_cpu(s, dtype=None, layout=None, device=None, pin_memory=None):
    return _full((), s, _st(dtype, default_float_type()), layout, pin_memory)
