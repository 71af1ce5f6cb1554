"""torch.tensor's common case in C: nested lists or tuples of Python bools, ints and floats.

One pass finds the shape and the kinds of number (PyTorch's infer_scalar_type), a second writes
the values straight into the new tensor. Anything else -- numpy values, tensors, ragged or
overflowing data, floats into an integer dtype -- returns None, and torch/_creation.py's
general path handles it (with PyTorch's errors).
"""
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.float cimport PyFloat_AS_DOUBLE

from c10.half cimport half
from c10.bfloat16 cimport bfloat16, float_to_bf16_scalar
from c10.scalar_type cimport (dtype, default_float_type, ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64,
                              ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_BFLOAT16, is_integral)
from c10.tensor_impl cimport TensorImpl, empty_contiguous, MAX_DIMS

cdef enum:
    KIND_BOOL = 1
    KIND_INT = 2
    KIND_FLOAT = 4
    UNSUPPORTED = -1


cdef int _scan(object data, int d, int ndim, const Py_ssize_t* sizes) except -2:
    """The kinds of number under data (a bit set), or UNSUPPORTED."""
    cdef type kind = type(data)
    cdef int kinds = 0, k
    if d == ndim:
        if kind is float:
            return KIND_FLOAT
        if kind is bool:
            return KIND_BOOL
        if kind is int:
            return KIND_INT
        return UNSUPPORTED
    if (kind is not list and kind is not tuple) or len(data) != sizes[d]:
        return UNSUPPORTED
    for item in data:
        k = _scan(item, d + 1, ndim, sizes)
        if k == UNSUPPORTED:
            return UNSUPPORTED
        kinds |= k
    return kinds


cdef inline bint _float_store(int st) noexcept:
    """The floating dtypes _store writes (the float8 storage types go the general path)."""
    return st == ST_FLOAT32 or st == ST_FLOAT64 or st == ST_FLOAT16 or st == ST_BFLOAT16


cdef bint _store(object value, char* p, int st) except -1:
    """Write one Python number as st; False when the general path must decide (overflow)."""
    cdef int overflow = 0
    cdef long long v
    cdef double f
    if _float_store(st):
        if type(value) is float:
            f = PyFloat_AS_DOUBLE(value)
        else:
            v = PyLong_AsLongLongAndOverflow(value, &overflow)
            if overflow:
                return False
            f = <double>v
        if st == ST_FLOAT32:
            (<float*>p)[0] = <float>f
        elif st == ST_FLOAT64:
            (<double*>p)[0] = f
        elif st == ST_FLOAT16:
            (<half*>p)[0] = <half>(<float>f)          # double -> float -> half, as c10::Half
        else:
            (<bfloat16*>p)[0] = float_to_bf16_scalar(<float>f)   # double -> float -> bfloat16, as c10::BFloat16
        return True
    v = PyLong_AsLongLongAndOverflow(value, &overflow)
    if overflow:
        return False
    if st == ST_INT64:
        (<long long*>p)[0] = v
    elif st == ST_BOOL:
        (<unsigned char*>p)[0] = v != 0
    elif st == ST_INT32:
        if v < -2147483648 or v > 2147483647:
            return False
        (<int*>p)[0] = <int>v
    elif st == ST_INT16:
        if v < -32768 or v > 32767:
            return False
        (<short*>p)[0] = <short>v
    elif st == ST_INT8:
        if v < -128 or v > 127:
            return False
        (<signed char*>p)[0] = <signed char>v
    elif st == ST_UINT8:
        if v < -255 or v > 255:                       # c10 lets negatives wrap
            return False
        (<unsigned char*>p)[0] = <unsigned char>v
    else:
        return False
    return True


cdef Py_ssize_t _fill(object data, int d, int ndim, char* p, int st, Py_ssize_t itemsize) except -2:
    """Write data's numbers in row-major order from p; the bytes written, or -1 to give up."""
    cdef Py_ssize_t written = 0, n
    if d == ndim:
        return itemsize if _store(data, p, st) else -1
    for item in data:
        n = _fill(item, d + 1, ndim, p + written, st, itemsize)
        if n < 0:
            return -1
        written += n
    return written


def tensor_from_python(object data, object dt):
    """A new CPU tensor holding data, or None when the general path must handle it."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = 0, kinds, st
    cdef object x = data
    cdef TensorImpl out
    while type(x) is list or type(x) is tuple:
        if ndim == MAX_DIMS:
            return None
        sizes[ndim] = len(x)
        ndim += 1
        if sizes[ndim - 1] == 0:
            break
        x = x[0]
    kinds = _scan(data, 0, ndim, sizes)
    if kinds == UNSUPPORTED:
        return None
    if dt is None:
        if kinds & KIND_FLOAT or kinds == 0:
            st = default_float_type()
        elif kinds & KIND_INT:
            st = ST_INT64
        else:
            st = ST_BOOL
    elif isinstance(dt, dtype):
        st = (<dtype>dt).scalar_type
        if kinds & KIND_FLOAT and not _float_store(st):
            return None
    else:
        return None
    if not (_float_store(st) or is_integral(st, True)):
        return None             # the float8 storage types: the general path converts them
    out = empty_contiguous(ndim, sizes, st, None)
    if out.n_elem and _fill(data, 0, ndim, out.data(), st, out.itemsize) < 0:
        return None
    return out
