"""ScalarType numbering, the `dtype` objects (torch.float32 ...) and type promotion."""
import numpy as np

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t

cdef Py_ssize_t _ITEMSIZE[NUM_SCALAR_TYPES]
_ITEMSIZE[:] = [1, 1, 2, 4, 8, 2, 4, 8, 0, 0, 0, 1]

cdef list _DTYPES = [None] * NUM_SCALAR_TYPES
cdef int _default_float = ST_FLOAT32


cdef class dtype:
    """A tensor element type, as `torch.dtype`."""

    def __init__(self, int scalar_type, str name, str type_name, bint is_floating_point,
                 bint is_signed, object numpy_dtype):
        self.scalar_type = scalar_type
        self.name = name
        self.type_name = type_name
        self.itemsize = _ITEMSIZE[scalar_type]
        self.is_floating_point = is_floating_point
        self.is_signed = is_signed
        self.is_complex = False
        self.numpy_dtype = numpy_dtype

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        # dtypes are singletons: pickle by name so checkpoints restore the same object.
        return (dtype_from_name, (self.name,))


# (scalar_type, canonical name, aliases, PyTorch type name, floating, signed, numpy type, C++ type name)
# The C++ name is c10's TypeMeta name, what PyTorch's C++ messages print for a dtype.
_TABLE = [
    (ST_UINT8, "uint8", (), "Byte", False, False, np.uint8, "unsigned char"),
    (ST_INT8, "int8", (), "Char", False, True, np.int8, "signed char"),
    (ST_INT16, "int16", ("short",), "Short", False, True, np.int16, "short int"),
    (ST_INT32, "int32", ("int",), "Int", False, True, np.int32, "int"),
    (ST_INT64, "int64", ("long",), "Long", False, True, np.int64, "long int"),
    (ST_FLOAT16, "float16", ("half",), "Half", True, True, np.float16, "c10::Half"),
    (ST_FLOAT32, "float32", ("float",), "Float", True, True, np.float32, "float"),
    (ST_FLOAT64, "float64", ("double",), "Double", True, True, np.float64, "double"),
    (ST_BOOL, "bool", (), "Bool", False, False, np.bool_, "bool"),
]

cdef dict _BY_NAME = {}
for _st, _name, _aliases, _tname, _fp, _signed, _np, _cpp in _TABLE:
    _d = dtype(_st, _name, _tname, _fp, _signed, np.dtype(_np))
    _DTYPES[_st] = _d
    _BY_NAME[_name] = _d
    for _alias in _aliases:
        _BY_NAME[_alias] = _d

#: c10's TypeMeta name of each dtype, by canonical name ("int64": "long int").
CPP_TYPE_NAMES = {row[1]: row[7] for row in _TABLE}

#: Public names exported as torch.<name> (canonical names and PyTorch's aliases).
DTYPE_NAMES = dict(_BY_NAME)


def dtype_from_name(str name):
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TypeError(f"unknown dtype name {name!r}; expected one of {sorted(_BY_NAME)}") from None


def dtype_from_numpy(object np_dtype):
    """The dtype for a numpy dtype, or TypeError naming the unsupported one."""
    cdef object d = np.dtype(np_dtype)
    for cand in _DTYPES:
        if cand is not None and (<dtype>cand).numpy_dtype == d:
            return cand
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{d.name}. The only supported types are: "
        "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")


cdef dtype dtype_of(int st):
    if st < 0 or st >= NUM_SCALAR_TYPES or _DTYPES[st] is None:
        raise ValueError(f"unknown scalar type {st}")
    return <dtype>_DTYPES[st]


cdef Py_ssize_t itemsize_of(int st) noexcept nogil:
    return _ITEMSIZE[st]


cdef bint is_floating(int st) noexcept nogil:
    return st == ST_FLOAT16 or st == ST_FLOAT32 or st == ST_FLOAT64


cdef bint is_integral(int st, bint include_bool) noexcept nogil:
    if st == ST_BOOL:
        return include_bool
    return ST_UINT8 <= st <= ST_INT64


# Promotion lattice of c10/core/ScalarType.cpp for the types Ember has (u1 i1 i2 i4 i8 f2 f4 f8 b1).
cdef int _ORDER[NUM_SCALAR_TYPES]
_ORDER[:] = [0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, 8]
cdef int _PROMOTE[9][9]
_PROMOTE_ROWS = [
    # u1  i1  i2  i4  i8  f2  f4  f8  b1
    [ 0,  2,  2,  3,  4,  5,  6,  7,  0],   # u1
    [ 2,  1,  2,  3,  4,  5,  6,  7,  1],   # i1
    [ 2,  2,  2,  3,  4,  5,  6,  7,  2],   # i2
    [ 3,  3,  3,  3,  4,  5,  6,  7,  3],   # i4
    [ 4,  4,  4,  4,  4,  5,  6,  7,  4],   # i8
    [ 5,  5,  5,  5,  5,  5,  6,  7,  5],   # f2
    [ 6,  6,  6,  6,  6,  6,  6,  7,  6],   # f4
    [ 7,  7,  7,  7,  7,  7,  7,  7,  7],   # f8
    [ 0,  1,  2,  3,  4,  5,  6,  7, 11],   # b1
]
for _i in range(9):
    for _j in range(9):
        _PROMOTE[_i][_j] = _PROMOTE_ROWS[_i][_j]


cdef int promote(int a, int b) except? -2:
    if a == b:
        return a
    if a < 0 or b < 0 or a >= NUM_SCALAR_TYPES or b >= NUM_SCALAR_TYPES or _ORDER[a] < 0 or _ORDER[b] < 0:
        raise ValueError(f"promote: unknown scalar types {a}, {b}")
    return _PROMOTE[_ORDER[a]][_ORDER[b]]


def promote_types(dtype a, dtype b):
    """torch.promote_types: the smallest dtype both convert to without losing category."""
    return dtype_of(promote(a.scalar_type, b.scalar_type))


cdef bint castable(int src, int dst) noexcept nogil:
    """c10::canCast: no floating to integral, and nothing but bool to bool."""
    if is_floating(src) and is_integral(dst, True):
        return False
    if src != ST_BOOL and dst == ST_BOOL:
        return False
    return True


def can_cast(dtype from_, dtype to):
    """torch.can_cast: whether type promotion allows casting from_ to `to`."""
    return castable(from_.scalar_type, to.scalar_type)


cdef int default_float_type() noexcept:
    return _default_float


def get_default_dtype():
    return dtype_of(_default_float)


def set_default_dtype(dtype d):
    global _default_float
    if not d.is_floating_point or d.scalar_type == ST_FLOAT16:
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    _default_float = d.scalar_type
