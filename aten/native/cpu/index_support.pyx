"""What the indexing, scatter/gather, masked, search and sorting kernels share: their dtype and
device checks, contiguous and int64 copies, Python scalars as one-element tensors, index range
scans and position walks."""
from c10.scalar_type cimport dtype_of, opmath_type, has_arithmetic, is_barebones, ST_INT64
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, wrap_number, make_tensor
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.meta.messages cimport sizes_str, type_name

from aten.native.meta.pointwise import check_fits
from aten.native.meta.errors import device_mismatch_error


cdef int check_kernel_dtype(TensorImpl t, str op) except -1:
    """Kernels see float16 only as float32 copies (their ops declare ember_opmath: meta/opmath.pyx);
    a direct call refuses it."""
    if opmath_type(t.scalar_type) != t.scalar_type or not has_arithmetic(t.scalar_type) or is_barebones(t.scalar_type):
        raise NotImplementedError(f'"{op}" not implemented for \'{type_name(t.scalar_type)}\'')
    return 0


cdef int check_cpu(TensorImpl t) except -1:
    if t.device_type != 0:
        raise device_mismatch_error("cpu", t.device_obj)
    return 0


cdef TensorImpl clone_contiguous(TensorImpl t):
    """A new contiguous tensor with t's values (always a copy)."""
    return cast_contiguous(t, t.scalar_type)


cdef TensorImpl contiguous_of(TensorImpl t):
    """t itself when contiguous, else a contiguous copy."""
    if t.contiguous:
        return t
    return cast_contiguous(t, t.scalar_type)


cdef TensorImpl int64_contiguous(TensorImpl t):
    """t as a contiguous int64 tensor (t itself when it already is one)."""
    if t.scalar_type == ST_INT64 and t.contiguous:
        return t
    return cast_contiguous(t, ST_INT64)


cdef TensorImpl scalar_tensor_of(object value, int st):
    """A one-element tensor of dtype st holding a Python number, converted as C casts (PyTorch's
    Scalar.to<T>()), after PyTorch's overflow check."""
    check_fits(value, dtype_of(st))
    return cast_contiguous(wrap_number(value), st)


cdef void bump_version(TensorImpl t):
    t.version_counter.version += 1


cdef TensorImpl fresh(TensorImpl t):
    """A result an out-of-place op built by running its in-place form on a new tensor: version 0,
    as a new tensor has."""
    t.version_counter.version = 0
    return t


cdef Py_ssize_t first_out_of_range(const int64_t* idx, Py_ssize_t n, Py_ssize_t size,
                                   bint allow_negative) noexcept nogil:
    """The position of the first index outside [0, size) (or [-size, size)), or -1."""
    cdef Py_ssize_t i
    cdef int64_t v, low = -size if allow_negative else 0
    for i in range(n):
        v = idx[i]
        if v < low or v >= size:
            return i
    return -1


cdef TensorImpl flattened(TensorImpl t):
    """A 1-d tensor of t's elements in row-major order: a view when t is contiguous, else a copy."""
    cdef TensorImpl c = contiguous_of(t)
    cdef Py_ssize_t n = c.n_elem, one = 1
    return make_tensor(c.storage, c.offset, 1, &n, &one, c.scalar_type, c.version_counter)
