"""fill_ and zero_ on CPU, and the one-step fills behind the creation kernels (empty.pyx) and
the CPU fast paths of the *_like / new_* composites.

The value is converted once, as PyTorch's Scalar.to<scalar_t>() does (fill_'s conversion, with
c10's overflow checks), into the element's bytes; the fill then stores that bit pattern by
element width (1, 2, 4 or 8 bytes), so one loop per width serves every dtype. Contiguous
tensors are one run; strided ones are walked with the smallest stride innermost, and
zero-stride (expanded) dims are visited once, since a fill is idempotent (PyTorch's fill_ does
not check overlap either). float16 has no conversion here yet: it goes through the generic
converting copy of a wrapped scalar.
"""
from libc.math cimport isnan, isinf
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t, int64_t
from libc.string cimport memset, memcpy
from c10.scalar_type cimport (dtype as DType, dtype_of, ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32,
                              ST_INT64, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_BFLOAT16, ST_UINT16, ST_UINT32,
                              ST_UINT64)
from c10.bfloat16 cimport bfloat16, float_to_bf16_scalar
from c10.tensor_impl cimport TensorImpl, MAX_DIMS
from aten.native.cpu.loops cimport copy_into
from c10.tensor_impl cimport wrap_number
from aten.native.cpu.element_types cimport word_t

from aten.native.meta.pointwise import check_fits

# c10's checked_convert names and the ranges c10::overflows allows for an integral value
# (unsigned types also take negatives down to -max, which wrap as two's complement).
_C_NAMES = {ST_UINT8: "uint8_t", ST_INT8: "int8_t", ST_INT16: "int16_t", ST_INT32: "int", ST_INT64: "int64_t",
            ST_FLOAT32: "float", ST_FLOAT64: "double", ST_BFLOAT16: "c10::BFloat16", ST_UINT16: "uint16_t",
            ST_UINT32: "uint32_t", ST_UINT64: "uint64_t"}
cdef int64_t _LOW[ST_INT64 + 1]
cdef int64_t _HIGH[ST_INT64 + 1]
cdef double _FLOW[ST_INT64 + 1]       # a floating value's range: the type's own (uint8 from 0)
_LOW[:] = [-255, -128, -(1 << 15), -(1 << 31), -(1 << 63)]
_HIGH[:] = [255, 127, (1 << 15) - 1, (1 << 31) - 1, (1 << 63) - 1]
_FLOW[:] = [0.0, -128.0, -32768.0, -2147483648.0, -9223372036854775808.0]
cdef double _FLOAT32_MAX = 3.4028234663852886e38
cdef Py_ssize_t _NOGIL_BYTES = 1 << 16


cdef inline object _overflow(int st):
    return RuntimeError(f"value cannot be converted to type {_C_NAMES[st]} without overflow")


cdef int fill_pattern(object value, int st, uint64_t* out) except -1:
    """value as an element of dtype st, in the low bytes of out (PyTorch's Scalar.to<scalar_t>()
    with its overflow errors). Returns 1, leaving out alone, for a dtype without a conversion
    here (float16)."""
    cdef int kind          # 0: int64 i, 1: uint64 u (a Python int in [2**63, 2**64)), 2: double f
    cdef int64_t i = 0
    cdef uint64_t u = 0
    cdef double f = 0.0
    cdef uint64_t bits = 0
    cdef char* p = <char*>&bits
    if st < 0 or st == ST_FLOAT16 or (st > ST_FLOAT64 and st != ST_BOOL and st != ST_BFLOAT16 and st != ST_UINT16
                                      and st != ST_UINT32 and st != ST_UINT64):
        return 1
    if isinstance(value, bool):
        kind, i = 0, (1 if value else 0)
    elif isinstance(value, int):
        kind = 0
        try:
            i = value
        except OverflowError:
            # PyTorch's Scalar holds int64 or uint64; anything wider fails to convert.
            if value < 0:
                raise OverflowError("can't convert negative int to unsigned") from None
            try:
                u = value
            except OverflowError:
                raise OverflowError("int too big to convert") from None
            kind = 1
    elif isinstance(value, float):
        kind, f = 2, value
    elif isinstance(value, complex):
        return 1        # fill_value's generic path
    else:
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    if st == ST_BOOL:
        (<uint8_t*>p)[0] = (i != 0) if kind == 0 else (1 if kind == 1 else (f != 0.0))
    elif st == ST_FLOAT64:
        (<double*>p)[0] = <double>i if kind == 0 else (<double>u if kind == 1 else f)
    elif st == ST_FLOAT32 or st == ST_BFLOAT16:
        if kind == 2 and not isnan(f) and not isinf(f) and (f > _FLOAT32_MAX or f < -_FLOAT32_MAX):
            raise _overflow(st)
        if st == ST_FLOAT32:
            (<float*>p)[0] = <float>i if kind == 0 else (<float>u if kind == 1 else <float>f)
        else:       # through float, NaN as c10::BFloat16's constructor writes it (PyTorch's fill_)
            (<bfloat16*>p)[0] = float_to_bf16_scalar(<float>i if kind == 0 else (<float>u if kind == 1 else <float>f))
    elif st == ST_UINT16 or st == ST_UINT32 or st == ST_UINT64:
        u = _unsigned(kind, i, u, f, st)
        if st == ST_UINT64:
            (<uint64_t*>p)[0] = u
        elif st == ST_UINT32:
            (<uint32_t*>p)[0] = <uint32_t>u
        else:
            (<uint16_t*>p)[0] = <uint16_t>u
    else:
        # An integral dtype: uint64 values exceed every one of them.
        if kind == 1:
            raise _overflow(st)
        if kind == 0:
            if i < _LOW[st] or i > _HIGH[st]:
                raise _overflow(st)
        else:
            if isnan(f) or isinf(f) or f < _FLOW[st] or f > <double>_HIGH[st]:
                raise _overflow(st)
            i = <int64_t>f         # truncation; 2.0**63 gives INT64_MIN, as PyTorch's cast on x86-64
        if st == ST_INT64:
            (<int64_t*>p)[0] = i
        elif st == ST_INT32:
            (<int32_t*>p)[0] = <int32_t>i
        elif st == ST_INT16:
            (<int16_t*>p)[0] = <int16_t>i
        elif st == ST_INT8:
            (<int8_t*>p)[0] = <int8_t>i
        else:
            (<uint8_t*>p)[0] = <uint8_t>i
    out[0] = bits
    return 0


cdef uint64_t _unsigned(int kind, int64_t i, uint64_t u, double f, int st) except? 0:
    """An int64 (kind 0), uint64 (1) or double (2) value as the barebones unsigned dtype st, with
    c10::overflows' range: integers from -max (wrapping) to max, floats in [0, max]."""
    cdef uint64_t top = 0xFFFF if st == ST_UINT16 else (0xFFFFFFFF if st == ST_UINT32 else 0xFFFFFFFFFFFFFFFF)
    if kind == 1:
        if st != ST_UINT64:
            raise _overflow(st)
        return u
    if kind == 0:
        if (i > 0 and <uint64_t>i > top) or (i < 0 and st != ST_UINT64 and <uint64_t>(-i) > top):
            raise _overflow(st)
        return <uint64_t>i
    if isnan(f) or isinf(f) or f < 0.0 or f >= <double>top + 1.0:
        raise _overflow(st)
    return <uint64_t>f


cdef enum:
    BLOCK_BYTES = 4096     # long runs: one block filled by the loop, then copied (memcpy's wide stores)


cdef void _fill_run(word_t* p, word_t v, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k, block = BLOCK_BYTES // sizeof(word_t), done
    if n < 4 * block:
        for k in range(n):
            p[k] = v
        return
    for k in range(block):
        p[k] = v
    done = block
    while done + block <= n:
        memcpy(p + done, p, BLOCK_BYTES)
        done += block
    for k in range(done, n):
        p[k] = v


cdef void _fill_strided(word_t* p, word_t v, int nd, const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept nogil:
    """Store v at every element of a strided layout (dims outermost first, the last innermost)."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef Py_ssize_t k, n_inner = sizes[nd - 1], s_inner = strides[nd - 1]
    cdef int d
    cdef word_t* q
    for d in range(nd):
        idx[d] = 0
    while True:
        q = p
        if s_inner == 1:
            _fill_run(q, v, n_inner)
        else:
            for k in range(n_inner):
                q[k * s_inner] = v
        # Advance the outer index, odometer style.
        d = nd - 2
        while d >= 0:
            idx[d] += 1
            p += strides[d]
            if idx[d] < sizes[d]:
                break
            p -= strides[d] * sizes[d]
            idx[d] = 0
            d -= 1
        if d < 0:
            return


cdef void _fill_any(char* data, uint64_t pattern, Py_ssize_t itemsize, Py_ssize_t n, int nd,
                    const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept nogil:
    """nd == 0 means one contiguous run of n elements."""
    if itemsize == 1:
        if nd == 0:
            memset(data, <int>(pattern & 0xff), n)
        else:
            _fill_strided(<uint8_t*>data, <uint8_t>pattern, nd, sizes, strides)
    elif itemsize == 2:
        if nd == 0:
            _fill_run(<uint16_t*>data, <uint16_t>pattern, n)
        else:
            _fill_strided(<uint16_t*>data, <uint16_t>pattern, nd, sizes, strides)
    elif itemsize == 4:
        if nd == 0:
            _fill_run(<uint32_t*>data, <uint32_t>pattern, n)
        else:
            _fill_strided(<uint32_t*>data, <uint32_t>pattern, nd, sizes, strides)
    else:
        if nd == 0:
            _fill_run(<uint64_t*>data, pattern, n)
        else:
            _fill_strided(<uint64_t*>data, pattern, nd, sizes, strides)


cdef int fill_bits(TensorImpl t, uint64_t pattern) except -1:
    """Every element of t (CPU, any strides) set to the element bytes in pattern's low bytes."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t n = t.n_elem, s, z
    cdef int nd = 0, d, j
    cdef char* data
    if n == 0:
        return 0
    if t.device_type != 0:
        raise RuntimeError(f"fill_: a CPU kernel got a tensor on {t.device_obj}")
    data = t.data()
    if not t.contiguous:
        # Drop size-1 and zero-stride dims (each location is written once), then order the rest
        # by decreasing stride so that the innermost loop walks the smallest stride. Strides of
        # a strided Ember tensor are non-negative.
        for d in range(t.nd):
            if t.sizes[d] != 1 and t.strides[d] != 0:
                s = t.strides[d]
                z = t.sizes[d]
                j = nd
                while j > 0 and strides[j - 1] < s:
                    strides[j] = strides[j - 1]
                    sizes[j] = sizes[j - 1]
                    j -= 1
                strides[j] = s
                sizes[j] = z
                nd += 1
        # Merge dims that continue each other in memory (a transposed tensor is one run).
        j = 0
        for d in range(1, nd):
            if strides[j] == strides[d] * sizes[d]:
                sizes[j] *= sizes[d]
                strides[j] = strides[d]
            else:
                j += 1
                sizes[j] = sizes[d]
                strides[j] = strides[d]
        if nd:
            nd = j + 1
        n = 1
        for d in range(nd):
            n *= sizes[d]
        if nd == 1 and strides[0] == 1:
            nd = 0
        elif nd == 0:
            n = 1
    if n * t.itemsize >= _NOGIL_BYTES:
        with nogil:
            _fill_any(data, pattern, t.itemsize, n, nd, sizes, strides)
    else:
        _fill_any(data, pattern, t.itemsize, n, nd, sizes, strides)
    return 0


cdef int fill_value(TensorImpl t, object value) except -1:
    """t[...] = value (a Python number), converted and checked as fill_ does."""
    cdef uint64_t pattern
    if fill_pattern(value, t.scalar_type, &pattern) == 0:
        return fill_bits(t, pattern)
    # float16 and complex: the generic path, a converting copy of the wrapped number.
    if isinstance(value, complex) and t.scalar_type == ST_BOOL:
        value = value != 0          # any non-zero part is True, as c10's conversion to bool
    elif isinstance(value, complex) and not dtype_of(t.scalar_type).is_complex:
        if value.imag != 0:         # c10's checked_convert: a real dtype cannot hold it
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES.get(t.scalar_type, 'c10::Half')} "
                               "without overflow")
        value = value.real
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    check_fits(value, dtype_of(t.scalar_type))
    copy_into(t, wrap_number(value))
    return 0


cdef int zero_fill(TensorImpl t) except -1:
    """Every element of t set to all-zero bytes (0, 0.0 and False in every dtype)."""
    if t.contiguous and t.device_type == 0:
        if t.n_elem * t.itemsize >= _NOGIL_BYTES:
            with nogil:
                memset(t.data(), 0, t.n_elem * t.itemsize)
        elif t.n_elem:
            memset(t.data(), 0, t.n_elem * t.itemsize)
        return 0
    return fill_bits(t, 0)


# -- kernels (aten/native/native_functions.yaml: CPU) -------------------------------------------

def fill_scalar_cpu_(TensorImpl self not None, value):
    """aten::fill_.Scalar on CPU: a typed fill, no scalar tensor and copy_."""
    fill_value(self, value)
    self.version_counter.version += 1
    return self


def zero_cpu_(TensorImpl self not None):
    """aten::zero_ on CPU: memset for contiguous tensors, a strided fill of zero bytes otherwise."""
    zero_fill(self)
    self.version_counter.version += 1
    return self
