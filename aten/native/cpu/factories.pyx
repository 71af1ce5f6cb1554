"""CPU creation kernels: empty_strided, arange, linspace, logspace and eye (the composites in
aten/native/composite/factories.py copy these results to other devices).

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
from libc.math cimport fma, pow
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t
from c10.scalar_type cimport (dtype as DType, dtype_of, default_float_type, opmath_type, has_arithmetic, is_barebones,
                              ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64, ST_BOOL)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, sizes_from_sequence, empty_with_strides

from aten.native.cpu.fill cimport fill_value
from aten.native.cpu.loops cimport cast_contiguous

import math

from aten.native.cpu.empty import empty_cpu
from aten.native.cpu.shape import eye_cpu
from aten.native.meta.tensor_options import check_tensor_options, empty_strided_on
from aten.native.meta.pointwise import check_fits


def empty_strided_cpu(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    return empty_strided_on(None, size, stride, dtype, layout, pin_memory)


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


cdef extern from *:
    """
    #include <math.h>
    #include <stddef.h>
    /* The fused multiply-add loops of arange and linspace. Built twice: with the fma target
       (one instruction per fma) and portably (libm's fma); ember_has_fma() picks at run time. */
    #define EMBER_FILLS(SUFFIX, ATTR, FMA, FMAF)                                                 \
    ATTR static void ember_arange_double_##SUFFIX(double* out, ptrdiff_t n, double start,       \
                                                  double step) {                                \
        ptrdiff_t i = 0, h, k, j;                                                               \
        for (; i + 8 <= n; i += 8)                                                              \
            for (h = 0; h < 2; h++) {                                                           \
                j = i + 4 * h;                                                                  \
                double base = FMA(step, (double)j, start);                                      \
                out[j] = base;                                                                  \
                for (k = 1; k < 4; k++) out[j + k] = FMA((double)k, step, base);                \
            }                                                                                   \
        for (; i < n; i++) out[i] = FMA(step, (double)i, start);                                \
    }                                                                                           \
    ATTR static void ember_arange_float_##SUFFIX(float* out, ptrdiff_t n, double start,         \
                                                 double step) {                                 \
        ptrdiff_t i = 0, h, k, j;                                                               \
        for (; i + 16 <= n; i += 16)                                                            \
            for (h = 0; h < 2; h++) {                                                           \
                j = i + 8 * h;                                                                  \
                float base = (float)FMA(step, (double)j, start);                                \
                out[j] = base;                                                                  \
                for (k = 1; k < 8; k++) out[j + k] = (float)FMA((double)k, step, (double)base); \
            }                                                                                   \
        for (; i < n; i++) out[i] = (float)FMA(step, (double)i, start);                         \
    }                                                                                           \
    ATTR static void ember_linspace_double_##SUFFIX(double* out, ptrdiff_t n, double start,     \
                                                    double end, double step) {                  \
        ptrdiff_t i, half = n / 2;                                                              \
        for (i = 0; i < half; i++) out[i] = FMA(step, (double)i, start);                        \
        for (; i < n; i++) out[i] = FMA(-step, (double)(n - i - 1), end);                       \
    }                                                                                           \
    ATTR static void ember_linspace_float_##SUFFIX(float* out, ptrdiff_t n, float start,        \
                                                   float end, float step) {                     \
        ptrdiff_t i, half = n / 2;                                                              \
        for (i = 0; i < half; i++) out[i] = FMAF(step, (float)i, start);                        \
        for (; i < n; i++) out[i] = FMAF(-step, (float)(n - i - 1), end);                       \
    }
    EMBER_FILLS(portable, , fma, fmaf)
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    EMBER_FILLS(hw, __attribute__((target("fma"))), __builtin_fma, __builtin_fmaf)
    static int ember_has_fma(void) { __builtin_cpu_init(); return __builtin_cpu_supports("fma"); }
    #else
    #define ember_arange_double_hw ember_arange_double_portable
    #define ember_arange_float_hw ember_arange_float_portable
    #define ember_linspace_double_hw ember_linspace_double_portable
    #define ember_linspace_float_hw ember_linspace_float_portable
    static int ember_has_fma(void) { return 0; }
    #endif
    """
    int ember_has_fma() nogil
    void ember_arange_double_hw(double* out, Py_ssize_t n, double start, double step) nogil
    void ember_arange_double_portable(double* out, Py_ssize_t n, double start, double step) nogil
    void ember_arange_float_hw(float* out, Py_ssize_t n, double start, double step) nogil
    void ember_arange_float_portable(float* out, Py_ssize_t n, double start, double step) nogil
    void ember_linspace_double_hw(double* out, Py_ssize_t n, double start, double end, double step) nogil
    void ember_linspace_double_portable(double* out, Py_ssize_t n, double start, double end, double step) nogil
    void ember_linspace_float_hw(float* out, Py_ssize_t n, float start, float end, float step) nogil
    void ember_linspace_float_portable(float* out, Py_ssize_t n, float start, float end, float step) nogil

cdef bint _hw_fma = ember_has_fma()


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
            if st == ST_FLOAT64 and _hw_fma:
                ember_arange_double_hw(<double*>p, n, dstart, dstep)
            elif st == ST_FLOAT64:
                ember_arange_double_portable(<double*>p, n, dstart, dstep)
            elif _hw_fma:
                ember_arange_float_hw(<float*>p, n, dstart, dstep)
            else:
                ember_arange_float_portable(<float*>p, n, dstart, dstep)
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
            if _hw_fma:
                ember_linspace_float_hw(<float*>p, n, fs, fe, fstep)
            else:
                ember_linspace_float_portable(<float*>p, n, fs, fe, fstep)
        return out
    if st == ST_FLOAT64:
        ds = start
        de = end
    else:
        ds = <double>wrap_to(st, scalar_to_int(start, st))
        de = <double>wrap_to(st, scalar_to_int(end, st))
    dstep = (de - ds) / <double>(n - 1)
    with nogil:
        if st == ST_FLOAT64 and _hw_fma:
            ember_linspace_double_hw(<double*>p, n, ds, de, dstep)
        elif st == ST_FLOAT64:
            ember_linspace_double_portable(<double*>p, n, ds, de, dstep)
        else:
            for i in range(n):
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


# -- the kernels of arange, linspace, logspace and eye -----------------------------------------------

cdef object _not_implemented(str op, DType dtype):
    return NotImplementedError(f"\"{op}_cpu\" not implemented for '{dtype.type_name}'")


cdef int64_t _INT64_MAX = (1 << 63) - 1


cdef object _to_int64(object value):
    """Scalar.to<int64_t>(): PyTorch's overflow error, truncation toward zero for floats."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    v = int(value)
    if not -(1 << 63) <= v <= _INT64_MAX:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return v


def arange_cpu(start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    cdef DType dt
    if dtype is None:
        # Integers (and bools) give int64, anything else the default dtype (PyTorch's rule).
        integral = all(isinstance(v, int) for v in (start, end, step))
        dt = dtype_of(ST_INT64 if integral else default_float_type())
    else:
        dt = <DType?>dtype
    if dt.scalar_type == ST_BOOL or not has_arithmetic(dt.scalar_type) or is_barebones(dt.scalar_type):
        raise _not_implemented("arange", dt)
    if opmath_type(dt.scalar_type) != dt.scalar_type:
        # PyTorch computes float16 and bfloat16 ranges in float and rounds each value once.
        return cast_contiguous(arange_cpu(start, end, step, dtype_of(opmath_type(dt.scalar_type)), layout, None,
                                          pin_memory), dt.scalar_type)
    floating = dt.is_floating_point
    # The accumulation type: double for floating dtypes, int64 for integral ones.
    xstart, xend, xstep = (float(start), float(end), float(step)) if floating else \
        (_to_int64(start), _to_int64(end), _to_int64(step))
    dstart, dend, dstep = float(start), float(end), float(step)
    if not (dstep > 0 or dstep < 0):
        raise RuntimeError("step must be nonzero")
    if floating and not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart:g} -> {xend:g}")
    if not ((dstep > 0 and xend >= xstart) or (dstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.scalar_type == ST_INT64:
        if xstep == 0:
            raise ValueError("step must be nonzero")
        sign = (xstep > 0) - (xstep < 0)
        num = xend - xstart + xstep - sign
        size = abs(num) // abs(xstep) * (1 if (num >= 0) == (xstep > 0) else -1)   # C's truncating division
    else:
        ratio = (dend - dstart) / dstep
        size = math.ceil(ratio) if math.isfinite(ratio) else -1
    if not 0 <= size <= _INT64_MAX:
        raise RuntimeError("invalid size, possible overflow?")
    return arange_fill(empty_cpu((size,), dt, layout, None, pin_memory), xstart, xstep)


cdef object _spaced(str op, start, end, steps, double base, dtype, layout, pin_memory):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    cdef TensorImpl out = empty_cpu((steps,), dtype, layout, None, pin_memory)
    if steps == 1:
        fill_value(out, start if op == "linspace" else c_pow(base, float(start)))
    elif steps > 1:
        if out.scalar_type == ST_BOOL or not has_arithmetic(out.scalar_type) or is_barebones(out.scalar_type):
            raise _not_implemented(op, dtype_of(out.scalar_type))
        if opmath_type(out.scalar_type) != out.scalar_type:
            return cast_contiguous(_spaced(op, start, end, steps, base, dtype_of(opmath_type(out.scalar_type)),
                                           layout, pin_memory), out.scalar_type)
        if op == "linspace":
            linspace_fill(out, start, end)
        else:
            logspace_fill(out, start, end, base)
    return out


def linspace_cpu(start, end, steps, dtype=None, layout=None, device=None, pin_memory=None):
    return _spaced("linspace", start, end, steps, 10.0, dtype, layout, pin_memory)


def logspace_cpu(start, end, steps, double base=10.0, dtype=None, layout=None, device=None, pin_memory=None):
    return _spaced("logspace", start, end, steps, base, dtype, layout, pin_memory)


def eye_m_cpu(Py_ssize_t n, Py_ssize_t m, dtype=None, layout=None, device=None, pin_memory=None):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    check_tensor_options(layout, pin_memory, None)
    return eye_cpu(n, m, dtype)
