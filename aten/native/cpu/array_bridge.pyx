"""The NumPy bridge of the kernels that compute through NumPy (linear algebra and the nn kernels).

`np_view` is the zero-copy bridge (BLAS through np.matmul, vectorised ufuncs): an ndarray over the
tensor's storage with its strides, written through when the kernel writes. Beside it: new and
contiguous tensors for those kernels, their thread count, and the dtypes they refuse, with
PyTorch's messages.
"""
import numpy as np

from c10.scalar_type cimport (dtype_of, opmath_type, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64,
                              ST_FLOAT32, ST_FLOAT64, ST_BOOL)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.meta.messages cimport shape_of, type_name

from aten.native.cpu.loops import get_num_threads

cdef object np_view(TensorImpl t):
    """An ndarray sharing t's memory (CPU). Size-1 dims get contiguous strides so that NumPy's
    BLAS eligibility test sees the layout PyTorch would (their stride never addresses memory)."""
    cdef tuple shape = shape_of(t)
    cdef list strides = []
    cdef Py_ssize_t expected = t.itemsize
    cdef int i
    np_dtype = dtype_of(t.scalar_type).numpy_dtype
    if np_dtype is None:     # a kernel that computes through NumPy must widen bfloat16 first (ember_opmath)
        raise NotImplementedError(f"this CPU kernel computes through NumPy, which has no {type_name(t.scalar_type)}")
    if t.n_elem == 0:
        return np.empty(shape, dtype=np_dtype)
    for i in range(t.nd - 1, -1, -1):
        strides.append(expected if t.sizes[i] == 1 else t.strides[i] * t.itemsize)
        expected = t.sizes[i] * (expected if t.sizes[i] == 1 else t.strides[i] * t.itemsize)
    strides.reverse()
    return np.ndarray(shape, dtype=np_dtype, buffer=t.storage, offset=t.offset * t.itemsize,
                      strides=tuple(strides))


cdef TensorImpl new_tensor(tuple shape, int scalar_type):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int i
    if len(shape) > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {len(shape)}")
    for i in range(len(shape)):
        sizes[i] = shape[i]
    return empty_contiguous(len(shape), sizes, scalar_type, None)


cdef TensorImpl tensor_of(object array, int scalar_type):
    cdef TensorImpl out = new_tensor(tuple(array.shape), scalar_type)
    if out.n_elem:
        np.copyto(np_view(out), array, casting="unsafe")
    return out



cdef object np_bits(TensorImpl t):
    """An ndarray of t's elements as unsigned integers of their width, sharing t's memory: for kernels
    that only move elements (pads, gathers), so every dtype, bfloat16 included, moves bit for bit."""
    return t._numpy_view(raw=True)


cdef int reject_half(str op, TensorImpl t) except -1:
    """The error of a kernel without reduced-precision floating loops (float16, bfloat16)."""
    if opmath_type(t.scalar_type) != t.scalar_type:
        raise NotImplementedError(f'"{op}" not implemented for \'{type_name(t.scalar_type)}\'')
    return 0


cdef int require_floating(str op, TensorImpl t) except -1:
    """PyTorch's AT_DISPATCH_FLOATING_TYPES error for a dtype without a loop (Ember: Half too)."""
    if t.scalar_type != ST_FLOAT32 and t.scalar_type != ST_FLOAT64:
        raise NotImplementedError(f'"{op}" not implemented for \'{type_name(t.scalar_type)}\'')
    return 0


cdef TensorImpl contiguous(TensorImpl t):
    return t if t.contiguous else cast_contiguous(t, t.scalar_type)


cdef int num_threads() noexcept:
    return get_num_threads()
