"""The meta step every pointwise kernel runs before its loop, on every device (PyTorch's
TensorIterator: compute_types and compute_shape, and c10::Scalar's checked conversion):

- the result dtype (type promotion, PyTorch's ResultTypeState): dimensioned tensors outrank
  zero-dim tensors, which outrank wrapped Python numbers, unless a lower-priority operand is of a
  higher category (bool < integral < floating < complex);
- the result shape (broadcasting), with PyTorch's error;
- the op's Python-number arguments range-checked with PyTorch's overflow errors and stored in the
  compute dtype into a kernel's 16-byte slot.
"""
from libc.math cimport isinf, isnan
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint16_t, uint32_t, uint64_t
from c10.scalar_type cimport (dtype, promote, is_floating, is_complex, is_integral, default_float_type, dtype_of, max_finite,
                              opmath_type, ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64,
                              ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_BFLOAT16, ST_UINT16, ST_UINT32, ST_UINT64,
                              ST_COMPLEX64, ST_COMPLEX128, ST_UNDEFINED, NUM_SCALAR_TYPES)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS
from c10.complex cimport complex64_t, complex128_t

from c10.dtype_table import DTYPES as _DTYPE_ROWS


# -- the result dtype ----------------------------------------------------------------------------

cdef inline int _promote_skip_undefined(int a, int b) except -2:
    if a == ST_UNDEFINED:
        return b
    if b == ST_UNDEFINED:
        return a
    return promote(a, b)


cdef inline int _combine_categories(int higher, int lower) except -2:
    if higher == ST_UNDEFINED:
        return lower
    if is_complex(higher):
        return higher
    if is_complex(lower):
        # a complex operand of a lower category keeps a floating one's precision (c10's toComplexType)
        return (<dtype>dtype_of(higher).to_complex()).scalar_type if is_floating(higher) else lower
    if is_floating(higher):
        return higher
    if higher == ST_BOOL or is_floating(lower):
        return _promote_skip_undefined(higher, lower)
    return higher


cdef int result_type(tuple inputs) except -2:
    cdef int dim_result = ST_UNDEFINED, zero_result = ST_UNDEFINED, wrapped_result = ST_UNDEFINED
    cdef int current
    cdef TensorImpl t
    for obj in inputs:
        t = <TensorImpl>obj
        current = t.scalar_type
        if t.is_wrapped_number:
            if is_floating(current):
                current = default_float_type()
            elif is_complex(current):      # the default complex dtype: complex64, or complex128 under float64
                current = ST_COMPLEX64 if default_float_type() == ST_FLOAT32 else ST_COMPLEX128
            wrapped_result = _promote_skip_undefined(wrapped_result, current)
        elif t.nd == 0:
            zero_result = _promote_skip_undefined(zero_result, current)
        else:
            dim_result = _promote_skip_undefined(dim_result, current)
    return _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))


def result_type_of(*tensors):
    """torch.result_type for tensors (Python numbers must be wrapped first)."""
    return dtype_of(result_type(tensors))


# -- the result shape ----------------------------------------------------------------------------

cdef int broadcast_shape(tuple inputs, Py_ssize_t* out_sizes) except -1:
    """Write the broadcast shape of inputs into out_sizes; returns its ndim."""
    cdef int ndim = 0, i, j, d
    cdef TensorImpl t
    cdef Py_ssize_t s, o
    for obj in inputs:
        if (<TensorImpl>obj).nd > ndim:
            ndim = (<TensorImpl>obj).nd
    for i in range(ndim):
        out_sizes[i] = 1
    for j, obj in enumerate(inputs):
        t = <TensorImpl>obj
        for i in range(t.nd):
            d = ndim - t.nd + i
            s = t.sizes[i]
            o = out_sizes[d]
            if o == s or s == 1:
                continue
            if o == 1:
                out_sizes[d] = s
                continue
            raise RuntimeError(
                f"The size of tensor a ({o}) must match the size of tensor b ({s}) at non-singleton dimension {d}")
    return ndim


def broadcast_shapes(*tensors):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int n = broadcast_shape(tensors, sizes)
    return tuple([sizes[i] for i in range(n)])


# -- scalar arguments ----------------------------------------------------------------------------

# PyTorch's checked_convert names (c10/util/TypeCast.h) and ranges; unsigned types also take
# negative values down to -max, which wrap as two's complement (c10::overflows).
_C_NAMES = {ST_UINT8: "uint8_t", ST_INT8: "int8_t", ST_INT16: "int16_t", ST_INT32: "int", ST_INT64: "int64_t",
            ST_UINT16: "uint16_t", ST_UINT32: "uint32_t", ST_UINT64: "uint64_t"}
# floating dtypes are named as c10 names them ("c10::Half", "float"); the float8 formats with no
# infinity (fn, fnuz) refuse an infinite value too (c10::overflows)
_NO_INFINITY = set()
for _row in _DTYPE_ROWS:
    if _row["kind"] == "f":
        _C_NAMES[_row["scalar_type"]] = _row["cpp_name"]
        if _row["format"].endswith(("fn", "fnuz")):
            _NO_INFINITY.add(_row["scalar_type"])
cdef int64_t _LOW[NUM_SCALAR_TYPES]
cdef int64_t _HIGH[NUM_SCALAR_TYPES]
_LOW[:ST_INT64 + 1] = [-255, -128, -(1 << 15), -(1 << 31), -(1 << 63)]
_HIGH[:ST_INT64 + 1] = [255, 127, (1 << 15) - 1, (1 << 31) - 1, (1 << 63) - 1]
# uint64's upper half does not fit the int64 the checks compare in: Ember refuses it
for _st, _bits in ((ST_UINT16, 16), (ST_UINT32, 32), (ST_UINT64, 63)):
    _LOW[_st], _HIGH[_st] = -((1 << _bits) - 1), (1 << _bits) - 1


cdef int check_scalar_fits(object value, int st) except -1:
    """RuntimeError when a Python number does not fit the dtype it is converted to."""
    cdef int64_t v
    cdef double f, limit
    if isinstance(value, complex):
        if is_complex(st):
            return 0
        if value.imag != 0:     # c10's checked_convert: a real dtype holds no imaginary part
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[st]} without overflow")
        value = value.real
    if st == ST_BOOL or isinstance(value, bool):
        return 0
    if is_integral(st, False):
        if isinstance(value, float):
            f = value
            if isnan(f) or isinf(f):  # converted as C does, like PyTorch
                return 0
            value = int(f)
        try:
            v = value
        except OverflowError:
            v = _HIGH[ST_INT64] if value > 0 else _LOW[ST_INT64]
            if st == ST_INT64:
                raise RuntimeError(f"value cannot be converted to type {_C_NAMES[st]} without overflow") from None
        if v < _LOW[st] or v > _HIGH[st]:
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[st]} without overflow")
    elif is_floating(st) and st != ST_FLOAT64:
        f = value
        limit = max_finite(st)
        if not isnan(f) and ((not isinf(f) and (f > limit or f < -limit)) or (isinf(f) and st in _NO_INFINITY)):
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[st]} without overflow")
    return 0


def check_fits(object value, dt):
    """Python access to check_scalar_fits: value must be representable in dtype dt."""
    check_scalar_fits(value, dt.scalar_type)


cdef int _check_scalar_arg(object value, int st, str arg_name) except -1:
    """PyTorch's checks of a Python scalar argument of a pointwise op computing in st."""
    if isinstance(value, TensorImpl):
        raise TypeError(f"argument {arg_name} must be a Number, not Tensor")
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"argument {arg_name} must be a Number, not {type(value).__name__}")
    if not is_complex(st) and isinstance(value, complex):
        raise RuntimeError(f"For non-complex input tensors, argument {arg_name} must not be a complex number.")
    if is_integral(st, True) and isinstance(value, float):
        raise RuntimeError(f"For integral input tensors, argument {arg_name} must not be a floating point number.")
    if isinstance(value, bool) and st != ST_BOOL and arg_name == "alpha":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    check_scalar_fits(value, st)
    return 0


def check_scalar_arg(object value, dt, str arg_name):
    """Python access to the scalar-argument checks every device's pointwise kernels make (the CUDA
    launchers call it; the CPU kernels check as they store the value)."""
    _check_scalar_arg(value, dt.scalar_type, arg_name)


cdef int store_scalar(char* slot, int st, object value, str arg_name) except -1:
    """Convert a Python scalar argument to the compute dtype, into a 16-byte slot."""
    _check_scalar_arg(value, st, arg_name)
    try:
        if st == ST_BOOL:
            (<uint8_t*>slot)[0] = 1 if value else 0
        elif st == ST_UINT8:
            (<uint8_t*>slot)[0] = <uint8_t>(<int64_t>value)
        elif st == ST_INT8:
            (<int8_t*>slot)[0] = <int8_t>(<int64_t>value)
        elif st == ST_INT16:
            (<int16_t*>slot)[0] = <int16_t>(<int64_t>value)
        elif st == ST_INT32:
            (<int32_t*>slot)[0] = <int32_t>(<int64_t>value)
        elif st == ST_INT64:
            (<int64_t*>slot)[0] = <int64_t>value
        elif st == ST_UINT16:
            (<uint16_t*>slot)[0] = <uint16_t>(<int64_t>value)
        elif st == ST_UINT32:
            (<uint32_t*>slot)[0] = <uint32_t>(<int64_t>value)
        elif st == ST_UINT64:
            (<uint64_t*>slot)[0] = <uint64_t>(<int64_t>value)
        elif st == ST_FLOAT32 or opmath_type(st) == ST_FLOAT32:
            # float16 and bfloat16 loops compute in float (their opmath), so their scalars are floats.
            (<float*>slot)[0] = <float>(<double>value)
        elif st == ST_FLOAT64:
            (<double*>slot)[0] = <double>value
        elif st == ST_COMPLEX64:
            (<complex64_t*>slot)[0] = <complex64_t>(<complex128_t>complex(value))
        elif st == ST_COMPLEX128:
            (<complex128_t*>slot)[0] = <complex128_t>complex(value)
        else:
            raise RuntimeError(f"scalar argument {arg_name}: unsupported dtype {dtype_of(st)!r}")
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {dtype_of(st).name} without overflow: {value}") from None
    return 0
