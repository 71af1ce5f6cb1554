"""ScalarType numbering, the `dtype` objects (torch.float32 ...) and type promotion, all built from
the one dtype table (c10/dtype_table.py)."""
import numpy as np

from c10.dtype_table import DTYPES as _ROWS, PROMOTION as _PROMOTION_BY_NAME

cdef Py_ssize_t _ITEMSIZE[NUM_SCALAR_TYPES]
cdef char _KIND[NUM_SCALAR_TYPES]              # the table's kind letter, 0 for numbers without a dtype
cdef int _PROMOTE[NUM_SCALAR_TYPES][NUM_SCALAR_TYPES]   # -1 where a pair has no dtype
cdef int _OPMATH[NUM_SCALAR_TYPES]             # the dtype each one computes in (itself unless reduced)
cdef double _MAX_FINITE[NUM_SCALAR_TYPES]       # a floating dtype's largest finite value
cdef bint _ARITHMETIC[NUM_SCALAR_TYPES]         # False for the storage types (float8)
cdef bint _BAREBONES[NUM_SCALAR_TYPES]          # uint16/32/64: only the ops that name them compute in them
cdef bint _CUDA[NUM_SCALAR_TYPES]               # whether CUDA kernels have a type for it (not complex yet)

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

    def to_real(self):
        """The real dtype of this one: the component type of a complex dtype, else itself."""
        return _BY_NAME[_REAL_OF[self.name]] if self.is_complex else self

    def to_complex(self):
        """The complex dtype of this one (itself for a complex dtype): PyTorch's error for a dtype
        without one (integers, bool, the float8 storage types)."""
        if self.is_complex:
            return self
        if not self.is_floating_point or not has_arithmetic(self.scalar_type):
            raise RuntimeError(f"Unknown Complex ScalarType for {self.type_name}")
        return _BY_NAME[_COMPLEX_OF[self.name]]

    def __reduce__(self):
        # dtypes are singletons: pickle by name so checkpoints restore the same object.
        return (dtype_from_name, (self.name,))


cdef dict _BY_NAME = {}
for _row in _ROWS:
    _st = _row["scalar_type"]
    _ITEMSIZE[_st] = _row["itemsize"]
    _ARITHMETIC[_st] = _row["arithmetic"]
    _BAREBONES[_st] = _row["barebones"]
    _CUDA[_st] = _row["cuda_type"] is not None
    _KIND[_st] = ord(_row["kind"])
    _d = dtype(_st, _row["name"], _row["type_name"], _row["kind"] == "f", _row["kind"] in "ifc",
               np.dtype(_row["numpy"]) if _row["numpy"] is not None else None)
    (<dtype>_d).is_complex = _row["kind"] == "c"
    _DTYPES[_st] = _d
    _BY_NAME[_row["name"]] = _d
    for _alias in _row["aliases"]:
        _BY_NAME[_alias] = _d
# complex32 (ComplexHalf) is named, with PyTorch's number, size and names, but Ember has no tensors
# of it: its _ITEMSIZE stays 0, which c10's make_tensor refuses with an error saying so.
cdef dtype _complex
cdef dict _REAL_OF = {"complex32": "float16", "complex64": "float32", "complex128": "float64"}
cdef dict _COMPLEX_OF = {"float16": "complex32", "bfloat16": "complex64", "float32": "complex64",
                         "float64": "complex128"}
for _name, _st, _alias, _type_name, _size in (("complex32", 8, "chalf", "ComplexHalf", 4),):
    _complex = dtype(_st, _name, _type_name, False, True, np.dtype(_name) if _name != "complex32" else None)
    _complex.itemsize = _size
    _complex.is_complex = True
    _DTYPES[_st] = _complex
    _BY_NAME[_name] = _BY_NAME[_alias] = _complex
for _a in range(NUM_SCALAR_TYPES):
    _OPMATH[_a] = _a
    for _b in range(NUM_SCALAR_TYPES):
        _PROMOTE[_a][_b] = -1
for _row in _ROWS:
    if _row["opmath"] is not None:
        _OPMATH[_row["scalar_type"]] = _BY_NAME[_row["opmath"]].scalar_type


def float_limits(dtype d):
    """(bits, eps, max, smallest_normal, digits10) of a floating dtype, from the bit layout the
    table gives it: "e8m7" (8 exponent bits, 7 stored mantissa bits, IEEE-style infinities and
    NaNs), "e4m3fn" (no infinities; the all-ones exponent holds numbers but for the NaN) or
    "e4m3fnuz" (no infinities or negative zero, exponent bias 2**(e-1)): torch.finfo's numbers."""
    cdef str layout = next(row["format"] for row in _ROWS if row["name"] == d.name)
    exponent, rest = layout[1:].split("m")
    exponent = int(exponent)
    mantissa = int(rest.rstrip("fnuz"))
    suffix = rest[len(str(mantissa)):]
    bias = 2 ** (exponent - 1) - (0 if suffix == "fnuz" else 1)
    top = 2 ** exponent - 1 - bias          # the largest exponent that holds numbers
    if suffix == "":
        top -= 1                            # IEEE: the all-ones exponent is infinities and NaNs
    largest = (2.0 - 2.0 ** -(mantissa - 1 if suffix == "fn" else mantissa)) * 2.0 ** top
    digits10 = int(mantissa * 0.30102999566398120)      # floor(mantissa * log10(2)), NumPy's precision
    # c10's numeric_limits<Float8_e5m2fnuz>::epsilon() is the bits 0x34, 2**-3: half the format's
    # spacing above 1.0, and what torch.finfo reports.
    eps = 2.0 ** -3 if layout == "e5m2fnuz" else 2.0 ** -mantissa
    return 1 + exponent + mantissa, eps, largest, 2.0 ** (1 - bias), digits10


for _row in _ROWS:
    if _row["kind"] == "f":
        _MAX_FINITE[_row["scalar_type"]] = float_limits(_BY_NAME[_row["name"]])[2]
for _a_name, _row_of in _PROMOTION_BY_NAME.items():
    for _b_name, _to in _row_of.items():
        if _to is not None:
            _PROMOTE[_BY_NAME[_a_name].scalar_type][_BY_NAME[_b_name].scalar_type] = _BY_NAME[_to].scalar_type
# The groups PyTorch refuses to promote, in the order it checks them (its message names the first).
cdef list _PROMOTION_ERRORS = [group for group in dict.fromkeys(row["promotion_error"] for row in _ROWS) if group]
cdef dict _GROUP_OF = {row["scalar_type"]: row["promotion_error"] for row in _ROWS}

#: c10's TypeMeta name of each dtype, by canonical name ("int64": "long int").
CPP_TYPE_NAMES = {row["name"]: row["cpp_name"] for row in _ROWS}

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
        if cand is not None and (<dtype>cand).numpy_dtype is not None and (<dtype>cand).numpy_dtype == d:
            return cand
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{d.name}. The only supported types are: "
        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")


cdef dtype dtype_of(int st):
    if st < 0 or st >= NUM_SCALAR_TYPES or _DTYPES[st] is None:
        raise ValueError(f"unknown scalar type {st}")
    return <dtype>_DTYPES[st]


cdef Py_ssize_t itemsize_of(int st) noexcept nogil:
    return _ITEMSIZE[st]


cdef bint is_floating(int st) noexcept nogil:
    return 0 <= st < NUM_SCALAR_TYPES and _KIND[st] == b'f'


cdef bint is_complex(int st) noexcept nogil:
    return 0 <= st < NUM_SCALAR_TYPES and _KIND[st] == b'c'


cdef bint has_cuda_type(int st) noexcept nogil:
    """Whether the table gives st a CUDA type, so that CUDA tensors of it can exist."""
    return 0 <= st < NUM_SCALAR_TYPES and _CUDA[st]


cdef bint is_integral(int st, bint include_bool) noexcept nogil:
    if st < 0 or st >= NUM_SCALAR_TYPES:
        return False
    if _KIND[st] == b'b':
        return include_bool
    return _KIND[st] == b'i' or _KIND[st] == b'u'


cdef int opmath_type(int st) noexcept nogil:
    """The dtype st's loops compute in (PyTorch's opmath_type): float32 for the reduced floating
    dtypes, st itself otherwise."""
    return _OPMATH[st] if 0 <= st < NUM_SCALAR_TYPES else st


cdef double max_finite(int st) noexcept nogil:
    """The largest finite value of a floating dtype (0 for other dtypes)."""
    return _MAX_FINITE[st] if is_floating(st) else 0.0


def opmath_dtype(dtype d):
    """The dtype d computes in (float32 for float16 and bfloat16, d itself otherwise)."""
    return dtype_of(opmath_type(d.scalar_type))


cdef bint has_arithmetic(int st) noexcept nogil:
    """False for the storage dtypes (float8): no op computes in them."""
    return 0 <= st < NUM_SCALAR_TYPES and _ARITHMETIC[st]


cdef bint is_barebones(int st) noexcept nogil:
    """PyTorch's barebones unsigned types (uint16, uint32, uint64)."""
    return 0 <= st < NUM_SCALAR_TYPES and _BAREBONES[st]


cdef int promote(int a, int b) except? -2:
    if a == b:
        return a
    if a < 0 or b < 0 or a >= NUM_SCALAR_TYPES or b >= NUM_SCALAR_TYPES:
        raise ValueError(f"promote: unknown scalar types {a}, {b}")
    if _PROMOTE[a][b] < 0:      # only now look at the dtype objects: this is on every op's path
        if _DTYPES[a] is None or _DTYPES[b] is None:
            raise ValueError(f"promote: unknown scalar types {a}, {b}")
        group = next((g for g in _PROMOTION_ERRORS if g in (_GROUP_OF.get(a), _GROUP_OF.get(b))), None)
        if group is None:
            # A complex dtype (no table row): c10's rule, the complex type of the promoted component
            # types (float32 + complex32 -> complex64; an integer leaves the complex one as it is).
            real = promote((<dtype>_DTYPES[a]).to_real().scalar_type, (<dtype>_DTYPES[b]).to_real().scalar_type)
            if is_floating(real):
                return (<dtype>_DTYPES[real]).to_complex().scalar_type
            return a if (<dtype>_DTYPES[a]).is_complex else b
        raise RuntimeError(f"Promotion for {group} is not supported, attempted to promote "
                           f"{(<dtype>_DTYPES[a]).type_name} and {(<dtype>_DTYPES[b]).type_name}")
    return _PROMOTE[a][b]


def promote_types(dtype a, dtype b):
    """torch.promote_types: the smallest dtype both convert to without losing category."""
    return dtype_of(promote(a.scalar_type, b.scalar_type))


cdef inline bint _is_complex_st(int st) noexcept nogil:
    return 8 <= st <= 10        # ComplexHalf, ComplexFloat, ComplexDouble


cdef bint castable(int src, int dst) noexcept nogil:
    """c10::canCast: no complex to non-complex, no floating to integral, and nothing but bool to bool."""
    if _is_complex_st(src) and not _is_complex_st(dst):
        return False
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
