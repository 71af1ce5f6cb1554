"""CPU creation kernels: empty_strided, and the fills behind arange, linspace and logspace
(aten/native/composite/factories.py computes their sizes and dtypes).

The fills reproduce PyTorch's arithmetic on x86-64 builds with AVX2 (its default CPU
capability there), so results match bit for bit where PyTorch's own are deterministic:
- arange: the value at i is start + step * i in the accumulation type (double for floating
  dtypes, int64 for integral ones), with the multiply-add fused, as PyTorch's AVX2 loop does;
  floating results follow its vector loop (blocks of 2 x 8 floats / 2 x 4 doubles whose
  elements are base + k * step, the rest one by one).
- linspace: it fills from both ends: start + step * i for the first half, end - step * (n - 1 - i)
  for the second, fused multiply-adds in the dtype (in double for integral dtypes).
- logspace: base ** (start + step * i) (first half) and base ** (end - step * (n - 1 - i)),
  not fused; integral dtypes use the base rounded to float, as PyTorch does.
"""
from libc.math cimport fma, fmaf, pow
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t
from c10.scalar_type cimport (dtype as DType, dtype_of, default_float_type, ST_UINT8, ST_INT8, ST_INT16, ST_INT32,
                              ST_INT64, ST_FLOAT32, ST_FLOAT64)
from c10.storage cimport cpu_storage
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, make_tensor, sizes_from_sequence
from aten.native.cpu.views cimport sizes_str

from aten.native.cpu.empty import check_tensor_options
from aten.native.cpu.views import computed_storage_nbytes
from aten.native.pointwise_meta import check_fits


def empty_strided_cpu(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int n = sizes_from_sequence(size, sizes, "size"), m, i
    cdef int st = default_float_type() if dtype is None else (<DType?>dtype).scalar_type
    m = sizes_from_sequence(stride, strides, "stride")
    if n != m:
        raise RuntimeError(f"dimensionality of sizes ({n}) must match dimensionality of strides ({m})")
    check_tensor_options(layout, pin_memory, None)
    for i in range(n):
        if sizes[i] < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {sizes[i]}: {sizes_str(n, sizes)}")
    nbytes = computed_storage_nbytes(size, stride, dtype_of(st).itemsize)
    return make_tensor(cpu_storage(nbytes), 0, n, sizes, strides, st)


cdef int64_t scalar_to_int(object value, int st) except? -1:
    """PyTorch's Scalar.to<scalar_t>() for an integral dtype: overflow error, C truncation."""
    check_fits(value, dtype_of(st))
    if isinstance(value, float):
        return <int64_t>(<double>value)
    return <int64_t>int(value)


cdef inline void store_int(char* p, Py_ssize_t i, int st, int64_t v) noexcept nogil:
    if st == ST_INT64:
        (<int64_t*>p)[i] = v
    elif st == ST_INT32:
        (<int32_t*>p)[i] = <int32_t>v
    elif st == ST_INT16:
        (<int16_t*>p)[i] = <int16_t>v
    elif st == ST_INT8:
        (<int8_t*>p)[i] = <int8_t>v
    else:
        (<uint8_t*>p)[i] = <uint8_t>v


cdef inline void store_double_as_int(char* p, Py_ssize_t i, int st, double v) noexcept nogil:
    """static_cast<scalar_t>(double) as x86-64 compiles it: through int32 below 32 bits."""
    if st == ST_INT64:
        (<int64_t*>p)[i] = <int64_t>v
    elif st == ST_INT32:
        (<int32_t*>p)[i] = <int32_t>v
    elif st == ST_INT16:
        (<int16_t*>p)[i] = <int16_t><int32_t>v
    elif st == ST_INT8:
        (<int8_t*>p)[i] = <int8_t><int32_t>v
    else:
        (<uint8_t*>p)[i] = <uint8_t><int32_t>v


cdef inline int64_t wrap_to(int st, int64_t v) noexcept nogil:
    """v converted to the integral dtype st and back (uint8: -1 becomes 255)."""
    if st == ST_INT32:
        return <int32_t>v
    if st == ST_INT16:
        return <int16_t>v
    if st == ST_INT8:
        return <int8_t>v
    if st == ST_UINT8:
        return <uint8_t>v
    return v


cdef void _arange_double(double* out, Py_ssize_t n, double start, double step) noexcept nogil:
    cdef Py_ssize_t i = 0, h, k, j
    cdef double base
    while i + 8 <= n:
        for h in range(2):
            j = i + 4 * h
            base = fma(step, <double>j, start)
            out[j] = base
            for k in range(1, 4):
                out[j + k] = fma(<double>k, step, base)
        i += 8
    while i < n:
        out[i] = fma(step, <double>i, start)
        i += 1


cdef void _arange_float(float* out, Py_ssize_t n, double start, double step) noexcept nogil:
    cdef Py_ssize_t i = 0, h, k, j
    cdef float base
    while i + 16 <= n:
        for h in range(2):
            j = i + 8 * h
            base = <float>fma(step, <double>j, start)
            out[j] = base
            for k in range(1, 8):
                out[j + k] = <float>fma(<double>k, step, <double>base)
        i += 16
    while i < n:
        out[i] = <float>fma(step, <double>i, start)
        i += 1


def arange_fill(TensorImpl out not None, start, step):
    """out[i] = start + step * i for a 1-D contiguous CPU tensor; start and step are already in
    the accumulation type (float for floating dtypes, int in int64 range otherwise)."""
    cdef Py_ssize_t n = out.n_elem, i
    cdef char* p = out.data()
    cdef int st = out.scalar_type
    cdef double dstart, dstep
    cdef int64_t istart, istep
    if st == ST_FLOAT64 or st == ST_FLOAT32:
        dstart = start
        dstep = step
        with nogil:
            if st == ST_FLOAT64:
                _arange_double(<double*>p, n, dstart, dstep)
            else:
                _arange_float(<float*>p, n, dstart, dstep)
    else:
        istart = start
        istep = step
        with nogil:
            for i in range(n):
                store_int(p, i, st, istart + istep * i)
    return out


def linspace_fill(TensorImpl out not None, start, end):
    """PyTorch's linspace kernel into a 1-D contiguous CPU tensor of n >= 2 elements."""
    cdef Py_ssize_t n = out.n_elem, i, half = out.n_elem // 2
    cdef char* p = out.data()
    cdef int st = out.scalar_type
    cdef float fs, fe, fstep
    cdef double ds, de, dstep
    if st == ST_FLOAT32:
        check_fits(start, dtype_of(st))
        check_fits(end, dtype_of(st))
        fs = <float>(<double>start)
        fe = <float>(<double>end)
        fstep = (fe - fs) / <float>(n - 1)
        with nogil:
            for i in range(n):
                if i < half:
                    (<float*>p)[i] = fmaf(fstep, <float>i, fs)
                else:
                    (<float*>p)[i] = fmaf(-fstep, <float>(n - i - 1), fe)
        return out
    if st == ST_FLOAT64:
        ds = start
        de = end
    else:
        ds = <double>wrap_to(st, scalar_to_int(start, st))
        de = <double>wrap_to(st, scalar_to_int(end, st))
    dstep = (de - ds) / <double>(n - 1)
    with nogil:
        for i in range(n):
            if st == ST_FLOAT64:
                (<double*>p)[i] = fma(dstep, <double>i, ds) if i < half else fma(-dstep, <double>(n - i - 1), de)
            else:
                store_double_as_int(p, i, st, fma(dstep, <double>i, ds) if i < half
                                    else fma(-dstep, <double>(n - i - 1), de))
    return out


def logspace_fill(TensorImpl out not None, start, end, double base):
    """PyTorch's logspace loop into a 1-D contiguous CPU tensor of n >= 2 elements."""
    cdef Py_ssize_t n = out.n_elem, i, half = out.n_elem // 2
    cdef char* p = out.data()
    cdef int st = out.scalar_type
    cdef double ds, de, step, e, v
    cdef int64_t is_, ie
    cdef float fs, fe
    if st == ST_FLOAT32:
        check_fits(start, dtype_of(st))
        check_fits(end, dtype_of(st))
        fs = <float>(<double>start)
        fe = <float>(<double>end)
        ds = fs
        de = fe
        step = <double>(fe - fs) / <double>(n - 1)
    elif st == ST_FLOAT64:
        ds = start
        de = end
        step = (de - ds) / <double>(n - 1)
    else:
        is_ = wrap_to(st, scalar_to_int(start, st))
        ie = wrap_to(st, scalar_to_int(end, st))
        ds = <double>is_
        de = <double>ie
        step = <double>(ie - is_) / <double>(n - 1)
        base = <double>(<float>base)
    with nogil:
        for i in range(n):
            if i < half:
                e = ds + step * <double>i
            else:
                e = de - step * <double>(n - i - 1)
            v = pow(base, e)
            if st == ST_FLOAT64:
                (<double*>p)[i] = v
            elif st == ST_FLOAT32:
                (<float*>p)[i] = <float>v
            else:
                store_double_as_int(p, i, st, v)
    return out


def c_pow(double base, double exponent):
    """C's pow (NaN where Python's ** would give a complex number)."""
    return pow(base, exponent)
