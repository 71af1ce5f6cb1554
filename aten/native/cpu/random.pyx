# distutils: extra_compile_args = -ffp-contract=off
"""Random-number kernels on CPU: PyTorch's CPU distributions, bit for bit.

Every kernel draws from a c10 Generator (PyTorch's mt19937) exactly as PyTorch's CPU kernels
do (ATen/native/cpu/DistributionTemplates.h, ATen/core/DistributionsHelper.h,
TransformationHelper.h): the same words per element (random() or random64()), the same
transforms, and the elements visited in the order TensorIterator visits them (the written
tensor's memory order). The float arithmetic is PyTorch's AVX2 build, the build x86-64 CPUs
run: `x * (to - from) + from` and `val * std + mean` are fused multiply-adds there, so they are
fma()/fmaf() here (and this module is compiled with -ffp-contract=off so that the C compiler
fuses nothing else). randn/normal_ on 16 or more contiguous float32 elements reproduce the
AVX2 Box-Muller (avx_mathfun.h's log and sincos with the FMAs gcc put there): with AVX2/FMA
intrinsics where the CPU has them, lane by lane with fmaf() elsewhere (same bits, slower).

Kernels draw with the generator locked and the GIL released; a non-contiguous tensor is
filled through a contiguous buffer in its memory order, then scattered.
"""
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint32_t, uint64_t, INT64_MIN, INT64_MAX
from libc.math cimport log, log1p, sqrt, sin, cos, tan, exp, ceil, fma, fmaf, sqrtf, isnan, INFINITY
from libc.string cimport memcpy
from cpython.mem cimport PyMem_Malloc, PyMem_Free

from c10.generator cimport (Generator, MT19937, mt_random, mt_random64, mt_uniform_float, mt_uniform_double,
                            generator_or_default)
from c10.scalar_type cimport (dtype as DType, dtype_of, promote, is_floating,
                              ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64,
                              ST_BOOL)
from c10.tensor_impl cimport (TensorImpl, MAX_DIMS, empty_contiguous, empty_with_strides,
                              non_overlapping_and_dense)

import warnings

from c10 import layout as _layout
from aten.native.cpu.half import float16_via_float32
from aten.native.meta.errors import output_cast_error
from aten.native.meta.messages cimport cpp_type
from aten.native.meta.random_checks cimport check_randperm

cdef double _TWO_PI = 6.283185307179586        # 2.0 * c10::pi<double>, exact doubling
cdef int64_t _INT64_MIN = INT64_MIN
cdef int64_t _INT64_MAX = INT64_MAX

cdef str _g(double x):
    """A double as C++'s ostream prints it (PyTorch's error messages)."""
    return f"{x:g}"


cdef str _type_name(int st):
    return dtype_of(st).type_name


cdef inline bint _is_float_kernel_type(int st) noexcept:
    return st == ST_FLOAT32 or st == ST_FLOAT64


cdef int _not_implemented(str op, int st) except -1:
    raise NotImplementedError(f'"{op}" not implemented for \'{_type_name(st)}\'')


# ==== Tensor layout: TensorIterator's dimension order, dense strides, overlap ====================

cdef int _should_swap(int d0, int d1, const Py_ssize_t* sizes, const Py_ssize_t* s_a,
                      const Py_ssize_t* s_b) noexcept:
    """TensorIterator::reorder_dimensions' comparison: 1 if d0 should move after d1 (inner to
    outer order), -1 if before, 0 if ambiguous. s_b (a second operand's strides) may be NULL."""
    cdef const Py_ssize_t* s
    cdef int k
    for k in range(2):
        s = s_a if k == 0 else s_b
        if s == NULL:
            break
        if s[d0] == 0 or s[d1] == 0:
            continue
        if s[d0] < s[d1]:
            return -1
        if s[d0] > s[d1]:
            return 1
        if sizes[d0] > sizes[d1]:
            return 1
    return 0


cdef void _dim_order(int nd, const Py_ssize_t* sizes, const Py_ssize_t* s_a, const Py_ssize_t* s_b,
                     int* perm) noexcept:
    """perm[0] is the fastest-moving dimension (PyTorch's insertion sort, ambiguous pairs kept)."""
    cdef int i, d0, d1, c, tmp
    for i in range(nd):
        perm[i] = nd - 1 - i
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = _should_swap(perm[d0], perm[d1], sizes, s_a, s_b)
            if c > 0:
                tmp = perm[d0]
                perm[d0] = perm[d1]
                perm[d1] = tmp
                d1 = d0
            elif c < 0:
                break


cdef TensorImpl empty_like_cpu(TensorImpl self, int st, bint preserve):
    """at::empty_like on CPU: preserve_format keeps a dense tensor's strides (and a non-dense
    one's dimension order, with dense strides); otherwise contiguous."""
    cdef int perm[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t cur = 1
    cdef int i
    if not preserve or self.contiguous:
        return empty_contiguous(self.nd, self.sizes, st, None)
    if non_overlapping_and_dense(self.nd, self.sizes, self.strides):
        return empty_with_strides(self.nd, self.sizes, self.strides, st, None)
    _dim_order(self.nd, self.sizes, self.strides, NULL, perm)
    for i in range(self.nd):
        strides[perm[i]] = cur
        if self.sizes[perm[i]] > 1:
            cur *= self.sizes[perm[i]]
    return empty_with_strides(self.nd, self.sizes, strides, st, None)


cdef struct Walk:
    int nd                        # dims after dropping size-1 ones, fastest first
    Py_ssize_t sizes[MAX_DIMS]
    Py_ssize_t strides[MAX_DIMS]  # bytes, of the strided operand


cdef bint _walk_of(TensorImpl t, const int* perm, const Py_ssize_t* strides, Py_ssize_t itemsize,
                   Walk* w) noexcept:
    """The walk over t's shape in perm order, for an operand with these strides (in elements; t's
    own, or another operand's broadcast to t's shape) and element size; True when the walk is
    one contiguous run."""
    cdef int k, d
    cdef Py_ssize_t expect = 1
    cdef bint linear = True
    w.nd = 0
    for k in range(t.nd):
        d = perm[k]
        if t.sizes[d] == 1:
            continue
        w.sizes[w.nd] = t.sizes[d]
        w.strides[w.nd] = strides[d] * itemsize
        if strides[d] != expect:
            linear = False
        expect *= t.sizes[d]
        w.nd += 1
    return linear


cdef inline void _copy_run(char* p, Py_ssize_t stride, char* buf, Py_ssize_t n, Py_ssize_t itemsize,
                           bint to_buf) noexcept nogil:
    """n elements between p, p + stride, ... and the contiguous buf."""
    cdef Py_ssize_t i
    if itemsize == 8:
        for i in range(n):
            if to_buf:
                (<uint64_t*>buf)[i] = (<uint64_t*>(p + i * stride))[0]
            else:
                (<uint64_t*>(p + i * stride))[0] = (<uint64_t*>buf)[i]
    elif itemsize == 4:
        for i in range(n):
            if to_buf:
                (<uint32_t*>buf)[i] = (<uint32_t*>(p + i * stride))[0]
            else:
                (<uint32_t*>(p + i * stride))[0] = (<uint32_t*>buf)[i]
    else:
        for i in range(n):
            if to_buf:
                memcpy(buf + i * itemsize, p + i * stride, itemsize)
            else:
                memcpy(p + i * stride, buf + i * itemsize, itemsize)


cdef void _walk_copy(char* base, const Walk* w, char* buf, Py_ssize_t itemsize, bint to_buf) noexcept nogil:
    """Copy between the strided elements (in walk order) and a contiguous buffer."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef char* p = base
    cdef int d
    if w.nd == 0:
        _copy_run(base, 0, buf, 1, itemsize, to_buf)
        return
    for d in range(w.nd):
        idx[d] = 0
    while True:
        _copy_run(p, w.strides[0], buf, w.sizes[0], itemsize, to_buf)
        buf += w.sizes[0] * itemsize
        d = 1
        while d < w.nd:
            idx[d] += 1
            p += w.strides[d]
            if idx[d] < w.sizes[d]:
                break
            p -= idx[d] * w.strides[d]
            idx[d] = 0
            d += 1
        if d >= w.nd:
            return


cdef class _Target:
    """Where a nullary kernel writes: self's memory directly when the walk is linear, else a
    contiguous buffer scattered into self afterwards (call finish() after the kernel)."""
    cdef TensorImpl self_t
    cdef TensorImpl buffer
    cdef Walk walk
    cdef char* data
    cdef Py_ssize_t n

    cdef void finish(self) noexcept nogil:
        if self.buffer is not None:
            _walk_copy(self.self_t.data(), &self.walk, self.buffer.data(), self.self_t.itemsize, False)


cdef _Target _target(TensorImpl self):
    cdef _Target tg = _Target.__new__(_Target)
    cdef int perm[MAX_DIMS]
    tg.self_t = self
    tg.n = self.n_elem
    _dim_order(self.nd, self.sizes, self.strides, NULL, perm)
    if _walk_of(self, perm, self.strides, self.itemsize, &tg.walk):
        tg.buffer = None
        tg.data = self.data()
    else:
        tg.buffer = empty_contiguous(1, &tg.n, self.scalar_type, None)
        tg.data = tg.buffer.data()
    return tg


# ==== Per-element kernels (contiguous output of n elements) =========================================

ctypedef fused out_t:
    uint8_t
    int8_t
    int16_t
    int32_t
    int64_t
    float
    double


cdef void _k_uniform(out_t* out, Py_ssize_t n, MT19937* e, double from_, double to_) noexcept nogil:
    """uniform_kernel: fma(u, to - from, from) in the dtype's precision; `to` maps back to `from`."""
    cdef Py_ssize_t i
    cdef float ff, ft, fr, fv
    cdef double dr, dv
    if out_t is float:
        ff = <float>from_
        ft = <float>to_
        fr = ft - ff
        if ff == 0 and fr == 1:             # rand(): fma(u, 1, 0) is u
            for i in range(n):
                out[i] = mt_uniform_float(e)
            return
        for i in range(n):
            fv = fmaf(mt_uniform_float(e), fr, ff)
            out[i] = ff if fv == ft else fv
    elif out_t is double:
        dr = to_ - from_
        if from_ == 0 and dr == 1:
            for i in range(n):
                out[i] = mt_uniform_double(e)
            return
        for i in range(n):
            dv = fma(mt_uniform_double(e), dr, from_)
            out[i] = from_ if dv == to_ else dv


cdef inline double _normal_sample(MT19937* e, double* cache, bint* has_cache, double mean,
                                  double std) noexcept nogil:
    """at::normal_distribution<double>: Box-Muller, the second sample cached in the generator."""
    cdef double u1, u2, r, theta, ret
    if has_cache[0]:
        has_cache[0] = False
        return fma(cache[0], std, mean)
    u1 = mt_uniform_double(e)
    u2 = mt_uniform_double(e)
    r = sqrt(-2.0 * log1p(-u2))
    theta = _TWO_PI * u1
    cache[0] = r * sin(theta)
    has_cache[0] = True
    ret = r * cos(theta)
    return fma(ret, std, mean)


cdef void _k_normal_serial(out_t* out, Py_ssize_t n, MT19937* e, double* cache, bint* has_cache,
                           double mean, double std) noexcept nogil:
    cdef Py_ssize_t i
    if out_t is float or out_t is double:
        for i in range(n):
            out[i] = <out_t>_normal_sample(e, cache, has_cache, mean, std)


# -- the AVX2 Box-Muller of normal_fill<float>, one lane at a time --------------------------------

cdef union _FBits:
    float f
    uint32_t u
    int32_t i

cdef float _C_ONE = 1.0
cdef float _C_HALF = 0.5
cdef float _C_MINUS_ONE = -1.0
cdef float _C_MINUS_TWO = -2.0
cdef float _C_TWO_PI_F = <float>6.283185307179586
cdef float _C_SQRTHF = <float>0.707106781186547524
cdef float _C_LOG_P0 = <float>7.0376836292E-2
cdef float _C_LOG_P1 = <float>-1.1514610310E-1
cdef float _C_LOG_P2 = <float>1.1676998740E-1
cdef float _C_LOG_P3 = <float>-1.2420140846E-1
cdef float _C_LOG_P4 = <float>1.4249322787E-1
cdef float _C_LOG_P5 = <float>-1.6668057665E-1
cdef float _C_LOG_P6 = <float>2.0000714765E-1
cdef float _C_LOG_P7 = <float>-2.4999993993E-1
cdef float _C_LOG_P8 = <float>3.3333331174E-1
cdef float _C_LOG_Q1 = <float>-2.12194440e-4
cdef float _C_LOG_Q2 = <float>0.693359375
cdef float _C_FOPI = <float>1.27323954473516
cdef float _C_DP1 = <float>-0.78515625
cdef float _C_DP2 = <float>-2.4187564849853515625e-4
cdef float _C_DP3 = <float>-3.77489497744594108e-8
cdef float _C_COS_P0 = <float>2.443315711809948E-005
cdef float _C_COS_P1 = <float>-1.388731625493765E-003
cdef float _C_COS_P2 = <float>4.166664568298827E-002
cdef float _C_SIN_P0 = <float>-1.9515295891E-4
cdef float _C_SIN_P1 = <float>8.3321608736E-3
cdef float _C_SIN_P2 = <float>-1.6666654611E-1


cdef inline float _avx_log_lane(float x) noexcept nogil:
    """One lane of log256_ps as PyTorch's AVX2 build computes it (x in (0, 1])."""
    cdef _FBits b
    cdef int32_t imm0
    cdef float e, tmp, z, y, t
    cdef bint invalid = x <= 0.0
    cdef bint mask
    if not (x > 1.17549435e-38):            # max(x, FLT_MIN): x unless x is smaller (or NaN)
        x = 1.17549435e-38
    b.f = x
    imm0 = <int32_t>(b.u >> 23)
    b.u = (b.u & 0x807fffffu) | 0x3f000000u
    x = b.f
    imm0 = imm0 - 0x7f
    e = <float>imm0 + _C_ONE
    mask = x < _C_SQRTHF
    tmp = x if mask else 0.0
    e = e - (_C_ONE if mask else <float>0.0)
    x = x + _C_MINUS_ONE
    x = x + tmp
    z = x * x
    y = fmaf(_C_LOG_P0, x, _C_LOG_P1)
    y = fmaf(y, x, _C_LOG_P2)
    y = fmaf(y, x, _C_LOG_P3)
    y = fmaf(y, x, _C_LOG_P4)
    y = fmaf(y, x, _C_LOG_P5)
    y = fmaf(y, x, _C_LOG_P6)
    y = fmaf(y, x, _C_LOG_P7)
    y = fmaf(y, x, _C_LOG_P8)
    t = e * _C_LOG_Q1
    y = x * y
    y = fmaf(y, z, t)
    y = fmaf(-z, _C_HALF, y)
    x = x + y
    x = fmaf(e, _C_LOG_Q2, x)
    if invalid:
        b.u = 0xffffffffu
        return b.f
    return x


cdef inline void _avx_sincos_lane(float x, float* s, float* c) noexcept nogil:
    """One lane of sincos256_ps as PyTorch's AVX2 build computes it."""
    cdef _FBits b, sb, cb
    cdef uint32_t sign_sin, sign_cos
    cdef int32_t j, jj
    cdef float ax, y, yf, z, tmp, cpoly, spoly, y2, ysin1, ysin2, cr, y2r, sinv, cosv
    cdef bint poly_mask
    b.f = x
    sign_sin = b.u & 0x80000000u
    b.u = b.u & 0x7fffffffu
    ax = b.f
    y = ax * _C_FOPI
    j = <int32_t>y if y < 2147483648.0 else <int32_t>(-2147483647 - 1)
    j = j + 1
    jj = j & ~1
    sign_sin ^= (<uint32_t>(j & 4)) << 29
    poly_mask = (j & 2) == 0
    yf = <float>jj
    x = fmaf(yf, _C_DP1, ax)
    x = fmaf(_C_DP2, yf, x)
    x = fmaf(yf, _C_DP3, x)
    sign_cos = (<uint32_t>(~(jj - 2) & 4)) << 29
    z = x * x
    tmp = z * _C_HALF
    cpoly = fmaf(_C_COS_P0, z, _C_COS_P1)
    cpoly = fmaf(cpoly, z, _C_COS_P2)
    cpoly = z * cpoly
    cpoly = fmaf(z, cpoly, -tmp)
    cpoly = cpoly + _C_ONE
    spoly = fmaf(_C_SIN_P0, z, _C_SIN_P1)
    spoly = fmaf(spoly, z, _C_SIN_P2)
    spoly = z * spoly
    y2 = fmaf(x, spoly, x)
    ysin2 = y2 if poly_mask else <float>0.0
    ysin1 = <float>0.0 if poly_mask else cpoly
    cr = cpoly - ysin1
    y2r = y2 - ysin2
    sinv = ysin2 + ysin1
    cosv = y2r + cr
    sb.f = sinv
    sb.u ^= sign_sin
    cb.f = cosv
    cb.u ^= sign_cos
    s[0] = sb.f
    c[0] = cb.f


cdef void _normal16_float_lanes(float* data, float mean, float std) noexcept nogil:
    """NormalFill16<float> (AVX2), lane by lane with fmaf: for CPUs without AVX2 and FMA."""
    cdef int j
    cdef float u1, u2, radius, theta, sn, cs
    for j in range(8):
        u1 = _C_ONE - data[j]
        u2 = data[j + 8]
        radius = sqrtf(_avx_log_lane(u1) * _C_MINUS_TWO)
        theta = _C_TWO_PI_F * u2
        _avx_sincos_lane(theta, &sn, &cs)
        data[j] = fmaf(radius * cs, std, mean)
        data[j + 8] = fmaf(radius * sn, std, mean)


# The same computation with AVX2/FMA intrinsics (8 lanes at once), compiled for that target only
# and used when the CPU has it: the instruction sequence of PyTorch's AVX2 normal_fill.
cdef extern from *:
    """
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    #include <immintrin.h>
    #define EMBER_PS(v) _mm256_set1_ps((float)(v))
    __attribute__((target("avx2,fma")))
    static void ember_normal16_avx2(float* data, float mean, float std) {
        const __m256 one = EMBER_PS(1.0), half = EMBER_PS(0.5);
        const __m256 u1 = _mm256_sub_ps(one, _mm256_loadu_ps(data));
        const __m256 u2 = _mm256_loadu_ps(data + 8);
        /* log256_ps(u1) */
        __m256 invalid = _mm256_cmp_ps(u1, _mm256_setzero_ps(), _CMP_LE_OS);
        __m256 x = _mm256_max_ps(u1, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));
        __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
        x = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(~0x7f800000)));
        x = _mm256_or_ps(x, half);
        imm0 = _mm256_sub_epi32(imm0, _mm256_set1_epi32(0x7f));
        __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(imm0), one);
        __m256 mask = _mm256_cmp_ps(x, EMBER_PS(0.707106781186547524), _CMP_LT_OS);
        __m256 tmp = _mm256_and_ps(x, mask);
        x = _mm256_sub_ps(x, one);
        e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
        x = _mm256_add_ps(x, tmp);
        __m256 z = _mm256_mul_ps(x, x);
        __m256 y = _mm256_fmadd_ps(EMBER_PS(7.0376836292E-2), x, EMBER_PS(-1.1514610310E-1));
        y = _mm256_fmadd_ps(y, x, EMBER_PS(1.1676998740E-1));
        y = _mm256_fmadd_ps(y, x, EMBER_PS(-1.2420140846E-1));
        y = _mm256_fmadd_ps(y, x, EMBER_PS(1.4249322787E-1));
        y = _mm256_fmadd_ps(y, x, EMBER_PS(-1.6668057665E-1));
        y = _mm256_fmadd_ps(y, x, EMBER_PS(2.0000714765E-1));
        y = _mm256_fmadd_ps(y, x, EMBER_PS(-2.4999993993E-1));
        y = _mm256_fmadd_ps(y, x, EMBER_PS(3.3333331174E-1));
        y = _mm256_mul_ps(y, x);
        y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, EMBER_PS(-2.12194440e-4)));
        y = _mm256_fnmadd_ps(z, half, y);
        x = _mm256_add_ps(x, y);
        x = _mm256_fmadd_ps(e, EMBER_PS(0.693359375), x);
        x = _mm256_or_ps(x, invalid);
        const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(x, EMBER_PS(-2.0)));
        /* sincos256_ps(2 pi u2) */
        const __m256 theta = _mm256_mul_ps(EMBER_PS(6.283185307179586), u2);
        const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000));
        __m256 sign_sin = _mm256_and_ps(theta, sign_mask);
        const __m256 ax = _mm256_andnot_ps(sign_mask, theta);
        __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(ax, EMBER_PS(1.27323954473516)));
        j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
        const __m256 yf = _mm256_cvtepi32_ps(j);
        const __m256 swap_sin = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, _mm256_set1_epi32(4)), 29));
        const __m256 poly_mask = _mm256_castsi256_ps(
            _mm256_cmpeq_epi32(_mm256_and_si256(j, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
        sign_sin = _mm256_xor_ps(sign_sin, swap_sin);
        __m256 xr = _mm256_fmadd_ps(yf, EMBER_PS(-0.78515625), ax);
        xr = _mm256_fmadd_ps(yf, EMBER_PS(-2.4187564849853515625e-4), xr);
        xr = _mm256_fmadd_ps(yf, EMBER_PS(-3.77489497744594108e-8), xr);
        const __m256 sign_cos = _mm256_castsi256_ps(_mm256_slli_epi32(
            _mm256_andnot_si256(_mm256_sub_epi32(j, _mm256_set1_epi32(2)), _mm256_set1_epi32(4)), 29));
        const __m256 zz = _mm256_mul_ps(xr, xr);
        const __m256 t2 = _mm256_mul_ps(zz, half);
        __m256 c = _mm256_fmadd_ps(EMBER_PS(2.443315711809948E-005), zz, EMBER_PS(-1.388731625493765E-003));
        c = _mm256_fmadd_ps(c, zz, EMBER_PS(4.166664568298827E-002));
        c = _mm256_mul_ps(zz, c);
        c = _mm256_fmsub_ps(zz, c, t2);
        c = _mm256_add_ps(c, one);
        __m256 s = _mm256_fmadd_ps(EMBER_PS(-1.9515295891E-4), zz, EMBER_PS(8.3321608736E-3));
        s = _mm256_fmadd_ps(s, zz, EMBER_PS(-1.6666654611E-1));
        s = _mm256_mul_ps(zz, s);
        __m256 y2 = _mm256_fmadd_ps(xr, s, xr);
        const __m256 ysin2 = _mm256_and_ps(poly_mask, y2);
        const __m256 ysin1 = _mm256_andnot_ps(poly_mask, c);
        y2 = _mm256_sub_ps(y2, ysin2);
        c = _mm256_sub_ps(c, ysin1);
        const __m256 sinv = _mm256_xor_ps(_mm256_add_ps(ysin2, ysin1), sign_sin);
        const __m256 cosv = _mm256_xor_ps(_mm256_add_ps(y2, c), sign_cos);
        const __m256 vm = _mm256_set1_ps(mean), vs = _mm256_set1_ps(std);
        _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, cosv), vs, vm));
        _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sinv), vs, vm));
    }
    static int ember_cpu_has_avx2_fma(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    #else
    static void ember_normal16_avx2(float* data, float mean, float std) { (void)data; (void)mean; (void)std; }
    static int ember_cpu_has_avx2_fma(void) { return 0; }
    #endif
    """
    void ember_normal16_avx2(float* data, float mean, float std) noexcept nogil
    int ember_cpu_has_avx2_fma() noexcept nogil

cdef bint _HAVE_AVX2_FMA = ember_cpu_has_avx2_fma() != 0


def _use_avx2(bint enabled):
    """For tests: use (or not) the AVX2 normal_fill when the CPU has it; returns the previous setting."""
    global _HAVE_AVX2_FMA
    previous = _HAVE_AVX2_FMA
    _HAVE_AVX2_FMA = enabled and ember_cpu_has_avx2_fma() != 0
    return previous


cdef inline void _normal16_float(float* data, float mean, float std) noexcept nogil:
    """NormalFill16<float> as PyTorch's AVX2 build computes it: 8 Box-Muller pairs from 16
    uniforms, in place (avx_mathfun.h's log256_ps and sincos256_ps)."""
    if _HAVE_AVX2_FMA:
        ember_normal16_avx2(data, mean, std)
    else:
        _normal16_float_lanes(data, mean, std)


cdef void _normal16_double(double* data, double mean, double std) noexcept nogil:
    """NormalFill16<double> (scalar)."""
    cdef int j
    cdef double u1, u2, radius, theta
    for j in range(8):
        u1 = 1.0 - data[j]
        u2 = data[j + 8]
        radius = sqrt(-2.0 * log(u1))
        theta = _TWO_PI * u2
        data[j] = fma(radius * cos(theta), std, mean)
        data[j + 8] = fma(radius * sin(theta), std, mean)


cdef void _k_normal_fill(out_t* data, Py_ssize_t n, MT19937* e, double mean, double std) noexcept nogil:
    """normal_fill: n >= 16 contiguous elements; uniforms in place, then blocks of 16, then the
    last 16 recomputed from fresh uniforms when n is not a multiple of 16."""
    cdef Py_ssize_t i
    cdef out_t* tail
    if out_t is float:
        for i in range(n):
            data[i] = mt_uniform_float(e)
        i = 0
        while i < n - 15:
            _normal16_float(data + i, <float>mean, <float>std)
            i += 16
        if n % 16 != 0:
            tail = data + n - 16
            for i in range(16):
                tail[i] = mt_uniform_float(e)
            _normal16_float(tail, <float>mean, <float>std)
    elif out_t is double:
        for i in range(n):
            data[i] = mt_uniform_double(e)
        i = 0
        while i < n - 15:
            _normal16_double(data + i, mean, std)
            i += 16
        if n % 16 != 0:
            tail = data + n - 16
            for i in range(16):
                tail[i] = mt_uniform_double(e)
            _normal16_double(tail, mean, std)


cdef inline void _store_int(out_t* out, Py_ssize_t i, int64_t v, bint is_bool) noexcept nogil:
    if out_t is uint8_t:
        out[i] = <uint8_t>(v != 0) if is_bool else <uint8_t>v
    else:
        out[i] = <out_t>v


cdef void _k_random_from_to(out_t* out, Py_ssize_t n, MT19937* e, uint64_t range_, int64_t base,
                            bint is_bool) noexcept nogil:
    """uniform_int_from_to_distribution: (word % range) + base, a 64-bit word when range >= 2**28."""
    cdef Py_ssize_t i
    cdef uint64_t v
    for i in range(n):
        if range_ >= (<uint64_t>1 << 28):
            v = mt_random64(e)
        else:
            v = mt_random(e)
        _store_int(out, i, <int64_t>((v % range_) + <uint64_t>base), is_bool)


cdef void _k_random_full_range(out_t* out, Py_ssize_t n, MT19937* e) noexcept nogil:
    """uniform_int_full_range_distribution: a 64-bit word as int64."""
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = <out_t>(<int64_t>mt_random64(e))


cdef void _k_random(out_t* out, Py_ssize_t n, MT19937* e, bint is_bool) noexcept nogil:
    """uniform_int_distribution: [0, max] for integers, [0, 2**mantissa] for floats."""
    cdef Py_ssize_t i
    for i in range(n):
        if out_t is uint8_t:
            if is_bool:
                out[i] = <uint8_t>(mt_random(e) & 1u)
            else:
                out[i] = <uint8_t>(mt_random(e) % 256u)
        elif out_t is int8_t:
            out[i] = <int8_t>(mt_random(e) % 128u)
        elif out_t is int16_t:
            out[i] = <int16_t>(mt_random(e) % 32768u)
        elif out_t is int32_t:
            out[i] = <int32_t>(mt_random(e) % 2147483648u)
        elif out_t is int64_t:
            out[i] = <int64_t>(mt_random64(e) % (<uint64_t>1 << 63))
        elif out_t is float:
            out[i] = <float>(mt_random(e) % 16777217u)
        else:
            out[i] = <double>(mt_random64(e) % ((<uint64_t>1 << 53) + 1))


cdef void _k_exponential(out_t* out, Py_ssize_t n, MT19937* e, double lambd) noexcept nogil:
    """exponential_distribution<double>: -1/lambda * log1p(-u)."""
    cdef Py_ssize_t i
    cdef double u
    if out_t is float or out_t is double:
        for i in range(n):
            u = mt_uniform_double(e)
            out[i] = <out_t>((-1.0 / lambd) * log1p(-u))


cdef void _k_cauchy(out_t* out, Py_ssize_t n, MT19937* e, double median, double sigma) noexcept nogil:
    """cauchy_distribution<double>: median + sigma * tan(pi * (u - 0.5)), fused."""
    cdef Py_ssize_t i
    if out_t is float or out_t is double:
        for i in range(n):
            out[i] = <out_t>fma(tan((mt_uniform_double(e) - 0.5) * 3.141592653589793), sigma, median)


cdef void _k_log_normal(out_t* out, Py_ssize_t n, MT19937* e, double* cache, bint* has_cache, double mean,
                        double std) noexcept nogil:
    """lognormal_distribution<double>: exp of a normal sample (sharing the generator's cache)."""
    cdef Py_ssize_t i
    if out_t is float or out_t is double:
        for i in range(n):
            out[i] = <out_t>exp(_normal_sample(e, cache, has_cache, mean, std))


cdef void _k_geometric(out_t* out, Py_ssize_t n, MT19937* e, double p) noexcept nogil:
    """geometric_distribution<double>: ceil(log(u) / log1p(-p))."""
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = <out_t>ceil(log(mt_uniform_double(e)) / log1p(-p))


cdef void _k_bernoulli_scalar(out_t* out, Py_ssize_t n, MT19937* e, double p) noexcept nogil:
    """bernoulli_distribution<double>(p): u < p with a 53-bit u."""
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = <out_t>(1 if mt_uniform_double(e) < p else 0)


cdef Py_ssize_t _k_bernoulli_tensor(out_t* out, const char* p, bint p_double, Py_ssize_t n,
                                    MT19937* e) noexcept nogil:
    """bernoulli with a probability per element: a double p draws 53 bits, a float p 24 bits.
    Returns the index of the first p outside [0, 1] (PyTorch stops there), or -1."""
    cdef Py_ssize_t i
    cdef double pd
    cdef float pf
    if p_double:
        for i in range(n):
            pd = (<const double*>p)[i]
            if not (pd >= 0 and pd <= 1):
                return i
            out[i] = <out_t>(1 if mt_uniform_double(e) < pd else 0)
    else:
        for i in range(n):
            pf = (<const float*>p)[i]
            if not (pf >= 0 and pf <= 1):
                return i
            out[i] = <out_t>(1 if mt_uniform_float(e) < pf else 0)
    return -1


# ==== Dtype dispatch: one call per op, on a contiguous run ============================================

cdef enum:
    OP_UNIFORM = 0
    OP_NORMAL_SERIAL = 1
    OP_NORMAL_FILL = 2
    OP_RANDOM_FROM_TO = 3
    OP_RANDOM_FULL = 4
    OP_RANDOM = 5
    OP_EXPONENTIAL = 6
    OP_BERNOULLI_SCALAR = 7
    OP_CAUCHY = 8
    OP_LOG_NORMAL = 9
    OP_GEOMETRIC = 10


cdef struct OpArgs:
    int op
    double a                 # from / mean / lambda / p
    double b                 # to / std
    uint64_t range_
    int64_t base


cdef void _run_typed(out_t* out, Py_ssize_t n, Generator gen, const OpArgs* args, bint is_bool) noexcept nogil:
    cdef MT19937* e = &gen.engine
    if args.op == OP_UNIFORM:
        _k_uniform(out, n, e, args.a, args.b)
    elif args.op == OP_NORMAL_SERIAL:
        _k_normal_serial(out, n, e, &gen.next_double_normal, &gen.has_next_double_normal, args.a, args.b)
    elif args.op == OP_NORMAL_FILL:
        _k_normal_fill(out, n, e, args.a, args.b)
    elif args.op == OP_RANDOM_FROM_TO:
        _k_random_from_to(out, n, e, args.range_, args.base, is_bool)
    elif args.op == OP_RANDOM_FULL:
        _k_random_full_range(out, n, e)
    elif args.op == OP_RANDOM:
        _k_random(out, n, e, is_bool)
    elif args.op == OP_EXPONENTIAL:
        _k_exponential(out, n, e, args.a)
    elif args.op == OP_BERNOULLI_SCALAR:
        _k_bernoulli_scalar(out, n, e, args.a)
    elif args.op == OP_CAUCHY:
        _k_cauchy(out, n, e, args.a, args.b)
    elif args.op == OP_LOG_NORMAL:
        _k_log_normal(out, n, e, &gen.next_double_normal, &gen.has_next_double_normal, args.a, args.b)
    elif args.op == OP_GEOMETRIC:
        _k_geometric(out, n, e, args.a)


cdef void _run(int st, char* out, Py_ssize_t n, Generator gen, const OpArgs* args) noexcept nogil:
    if st == ST_UINT8 or st == ST_BOOL:
        _run_typed(<uint8_t*>out, n, gen, args, st == ST_BOOL)
    elif st == ST_INT8:
        _run_typed(<int8_t*>out, n, gen, args, False)
    elif st == ST_INT16:
        _run_typed(<int16_t*>out, n, gen, args, False)
    elif st == ST_INT32:
        _run_typed(<int32_t*>out, n, gen, args, False)
    elif st == ST_INT64:
        _run_typed(<int64_t*>out, n, gen, args, False)
    elif st == ST_FLOAT32:
        _run_typed(<float*>out, n, gen, args, False)
    elif st == ST_FLOAT64:
        _run_typed(<double*>out, n, gen, args, False)


cdef int _fill(TensorImpl self, Generator gen, OpArgs* args) except -1:
    """Run a nullary op over self in TensorIterator order (self's dtype already checked)."""
    cdef _Target tg
    cdef int st = self.scalar_type
    if self.n_elem == 0:
        return 0
    if args.op == OP_NORMAL_SERIAL and self.n_elem >= 16 and self.contiguous:
        args.op = OP_NORMAL_FILL
    tg = _target(self)
    with nogil:
        gen.lock()
        _run(st, tg.data, tg.n, gen, args)
        gen.unlock()
        tg.finish()
    return 0


cdef inline void _bump(TensorImpl t) noexcept:
    t.version_counter.version += 1


cdef int _check_cpu(TensorImpl t, str op) except -1:
    if t.device_type != 0:
        raise RuntimeError(f"{op}: Ember has random kernels for CPU tensors only, got a tensor on {t.device_obj}")
    return 0


# ==== Operators: in-place distributions ===============================================================

def uniform_cpu(TensorImpl self not None, double from_=0, double to=1, generator=None):
    """aten::uniform_"""
    if self.scalar_type == ST_FLOAT16:
        return _uniform_float16(self, from_, to, generator)
    cdef Generator gen = generator_or_default(generator)
    cdef int st = self.scalar_type
    cdef OpArgs args
    cdef double lo, hi, limit
    cdef str name
    _check_cpu(self, "uniform_")
    if not _is_float_kernel_type(st):
        _not_implemented("check_uniform_bounds", st)
    if st == ST_FLOAT32:
        lo, hi, name = -3.4028234663852886e+38, 3.4028234663852886e+38, "float"
    else:
        lo, hi, name = -1.7976931348623157e+308, 1.7976931348623157e+308, "double"
    if not (from_ >= lo and from_ <= hi):
        raise RuntimeError(f"from is out of bounds for {name}")
    if not (to >= lo and to <= hi):
        raise RuntimeError(f"to is out of bounds for {name}")
    if not (from_ <= to):
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    if not ((to - from_) <= hi):
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{_type_name(st)}>::max(), but found "
                           f"to={_g(to)} and from={_g(from_)} which result in to-from to exceed the limit")
    if self.n_elem == 0:
        return self
    args.op = OP_UNIFORM
    args.a = from_
    args.b = to
    _fill(self, gen, &args)
    _bump(self)
    return self


cdef int _check_normal_std(double std) except -1:
    if not (std >= 0.0):
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    return 0


cdef int _normal_inplace(TensorImpl self, double mean, double std, Generator gen) except -1:
    """normal_impl_ + normal_kernel (std already checked)."""
    cdef OpArgs args
    if self.n_elem == 0:
        return 0
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("normal_kernel_cpu", self.scalar_type)
    args.op = OP_NORMAL_SERIAL
    args.a = mean
    args.b = std
    _fill(self, gen, &args)
    _bump(self)
    return 0


@float16_via_float32
def normal_cpu(TensorImpl self not None, double mean=0, double std=1, generator=None):
    """aten::normal_"""
    cdef Generator gen = generator_or_default(generator)
    _check_cpu(self, "normal_")
    _check_normal_std(std)
    _normal_inplace(self, mean, std, gen)
    return self


cdef int _check_bounds(int64_t from_, int64_t to_inc, int st) except -1:
    """check_from_to_in_range, with PyTorch's precision warnings for floating dtypes."""
    cdef double lo, hi
    cdef int digits
    cdef int64_t lim
    cdef str name = cpp_type(st)
    if st == ST_FLOAT32 or st == ST_FLOAT64:
        if st == ST_FLOAT32:
            lo, hi, digits = -3.4028234663852886e+38, 3.4028234663852886e+38, 24
        else:
            lo, hi, digits = -1.7976931348623157e+308, 1.7976931348623157e+308, 53
        if not (<double>from_ >= lo and <double>from_ <= hi):
            raise RuntimeError(f"from is out of bounds for {name}")
        if not (<double>to_inc >= lo and <double>to_inc <= hi):
            raise RuntimeError(f"to - 1 is out of bounds for {name}")
        lim = (<int64_t>1) << digits
        for var, what in ((from_, "from"), (to_inc, "to - 1")):
            if var < -lim or var > lim:
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{name} can support discrete uniform distribution only within this range. This warning "
                              "will become an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=3)
        return 0
    lo_i, hi_i = _int_limits(st)
    if not (from_ >= lo_i and from_ <= hi_i):
        raise RuntimeError(f"from is out of bounds for {name}")
    if not (to_inc >= lo_i and to_inc <= hi_i):
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    return 0


cdef tuple _int_limits(int st):
    if st == ST_BOOL:
        return 0, 1
    if st == ST_UINT8:
        return 0, 255
    if st == ST_INT8:
        return -128, 127
    if st == ST_INT16:
        return -32768, 32767
    if st == ST_INT32:
        return -2147483648, 2147483647
    return _INT64_MIN, _INT64_MAX


cdef int64_t _update_from(int64_t from_, int st) noexcept:
    """Move `from` right to the next value that stays >= from after the cast to a float dtype."""
    cdef int64_t from_plus_1, f
    cdef int n = 0
    cdef int digits = 24 if st == ST_FLOAT32 else 53
    if st == ST_FLOAT32:
        from_plus_1 = <int64_t>(<float>(from_ + 1))
    else:
        from_plus_1 = <int64_t>(<double>(from_ + 1))
    if from_plus_1 < from_:
        f = from_ + 1
        f = -f if f < 0 else f
        f >>= 1
        while f:
            n += 1
            f >>= 1
        from_ = from_plus_1 + ((<int64_t>1) << (n - digits + 1))
    return from_


cdef int64_t _update_to(int64_t to, int st) noexcept:
    """Move `to` left to the previous value that stays < to after the cast to a float dtype."""
    cdef int64_t to_minus_1, t
    cdef int n = 0
    cdef int digits = 24 if st == ST_FLOAT32 else 53
    if st == ST_FLOAT32:
        to_minus_1 = <int64_t>(<float>(to - 1))
    else:
        to_minus_1 = <int64_t>(<double>(to - 1))
    if to_minus_1 >= to:
        t = to - 1
        t = -t if t < 0 else t
        t >>= 1
        while t:
            n += 1
            t >>= 1
        to = to_minus_1 - ((<int64_t>1) << (n - digits + 1))
    return to


cdef int _random_dtype_ok(int st) except -1:
    if st == ST_FLOAT16:
        _not_implemented("random_from_to_kernel_cpu", st)
    return 0


cdef int _random_from_to(TensorImpl self, int64_t from_, object to_opt, Generator gen) except -1:
    """random_from_to_impl."""
    cdef int st = self.scalar_type
    cdef int64_t to, to_inc
    cdef OpArgs args
    _random_dtype_ok(st)
    if to_opt is not None:
        to = to_opt
        if not from_ < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        if _is_float_kernel_type(st):
            from_ = _update_from(from_, st)
            to = _update_to(to, st)
            if not from_ < to:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={from_} >= to={to}")
        _check_bounds(from_, to - 1, st)
        if self.n_elem == 0:
            return 0
        args.op = OP_RANDOM_FROM_TO
        args.range_ = <uint64_t>to - <uint64_t>from_
        args.base = from_
    elif from_ != _INT64_MIN:
        if _is_float_kernel_type(st):
            to_inc = (<int64_t>1) << (24 if st == ST_FLOAT32 else 53)
            from_ = _update_from(from_, st)
            if not from_ < to_inc:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                   f"casted to dtype, but got from={from_} > to_inc={to_inc}")
        elif st == ST_BOOL:
            to_inc = 1
        else:
            to_inc = _int_limits(st)[1]
        _check_bounds(from_, to_inc, st)
        if self.n_elem == 0:
            return 0
        args.op = OP_RANDOM_FROM_TO
        args.range_ = <uint64_t>to_inc - <uint64_t>from_ + 1
        args.base = from_
    else:
        if self.n_elem == 0:
            return 0
        if not (st == ST_INT64 or st == ST_FLOAT32 or st == ST_FLOAT64):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
        args.op = OP_RANDOM_FULL
    _fill(self, gen, &args)
    _bump(self)
    return 0


def random_from_cpu(TensorImpl self not None, int64_t from_, to=None, generator=None):
    """aten::random_.from: [from, to), or [from, max of the dtype] when to is None."""
    _check_cpu(self, "random_")
    if self.scalar_type == ST_FLOAT16:
        return _random_float16(self, from_, to, generator)
    _random_from_to(self, from_, to, generator_or_default(generator))
    return self


def random_to_cpu(TensorImpl self not None, int64_t to, generator=None):
    """aten::random_.to: [0, to)."""
    return random_from_cpu(self, 0, to, generator)


# float16 draws as float32 with float16's limits: the integers up to 2^11 are exact there.
_HALF_DIGITS, _HALF_MAX = 11, 65504


def _uniform_float16(TensorImpl self, double from_, double to, generator):
    """PyTorch's Half uniform_: draw in float, round to half, and give `from` where the rounding
    reached `to` (the range stays [from, to)); bounds are half's."""
    import numpy as np
    if not -_HALF_MAX <= from_ <= _HALF_MAX:
        raise RuntimeError("from is out of bounds for c10::Half")
    if not -_HALF_MAX <= to <= _HALF_MAX:
        raise RuntimeError("to is out of bounds for c10::Half")
    if not (from_ <= to):
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    if not ((to - from_) <= _HALF_MAX):
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<Half>::max(), but found to={_g(to)} and "
                           f"from={_g(from_)} which result in to-from to exceed the limit")
    _uniform_widened(self, from_, to, generator)
    if self.n_elem:
        values = self._numpy_view()
        values[values == np.float16(np.float32(to))] = np.float16(np.float32(from_))
    return self


@float16_via_float32
def _uniform_widened(TensorImpl self, double from_, double to, generator):
    return uniform_cpu(self, from_, to, generator)


def _random_float16(TensorImpl self, int64_t from_, to, generator):
    if to is None:
        if from_ == _INT64_MIN:
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
        to_inc = 1 << _HALF_DIGITS
        if not from_ < to_inc:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                               f"to dtype, but got from={from_} > to_inc={to_inc}")
        to = to_inc + 1
    elif not from_ < to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    if not -_HALF_MAX <= from_ <= _HALF_MAX:
        raise RuntimeError("from is out of bounds for c10::Half")
    if not -_HALF_MAX <= to - 1 <= _HALF_MAX:
        raise RuntimeError("to - 1 is out of bounds for c10::Half")
    for var, what in ((from_, "from"), (to - 1, "to - 1")):
        if abs(var) > 1 << _HALF_DIGITS:
            warnings.warn(f"{what} is out of bounds [-(2^{_HALF_DIGITS}), 2^{_HALF_DIGITS}]. Due to precision "
                          "limitations c10::Half can support discrete uniform distribution only within this range. "
                          "This warning will become an error in version 1.7 release, please fix the code in advance",
                          UserWarning, stacklevel=3)
    return _random_from_to_widened(self, from_, to, generator)


@float16_via_float32
def _random_from_to_widened(TensorImpl self, int64_t from_, to, generator):
    _random_from_to(self, from_, to, generator_or_default(generator))
    return self


def random_cpu(TensorImpl self not None, generator=None):
    """aten::random_: [0, max] for integer dtypes, [0, 2**mantissa] for floating ones."""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "random_")
    if self.n_elem == 0:
        return self
    if self.scalar_type == ST_FLOAT16:
        _not_implemented("random_kernel_cpu", self.scalar_type)
    args.op = OP_RANDOM
    _fill(self, gen, &args)
    _bump(self)
    return self


@float16_via_float32
def exponential_cpu(TensorImpl self not None, double lambd=1, generator=None):
    """aten::exponential_"""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "exponential_")
    if not (lambd > 0.0):
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    if self.n_elem == 0:
        return self
    if not is_floating(self.scalar_type):
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_type_name(self.scalar_type)}")
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("exponential_cpu", self.scalar_type)
    args.op = OP_EXPONENTIAL
    args.a = lambd
    _fill(self, gen, &args)
    _bump(self)
    return self


@float16_via_float32
def cauchy_cpu(TensorImpl self not None, double median=0, double sigma=1, generator=None):
    """aten::cauchy_"""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "cauchy_")
    if not (sigma > 0.0):
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    if not is_floating(self.scalar_type):
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {cpp_type(self.scalar_type)}")
    if self.n_elem == 0:
        return self
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("cauchy_cpu", self.scalar_type)
    args.op = OP_CAUCHY
    args.a = median
    args.b = sigma
    _fill(self, gen, &args)
    _bump(self)
    return self


@float16_via_float32
def log_normal_cpu(TensorImpl self not None, double mean=1, double std=2, generator=None):
    """aten::log_normal_"""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "log_normal_")
    if not (std > 0.0):
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    if self.n_elem == 0:
        return self
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("log_normal_cpu", self.scalar_type)
    args.op = OP_LOG_NORMAL
    args.a = mean
    args.b = std
    _fill(self, gen, &args)
    _bump(self)
    return self


@float16_via_float32
def geometric_cpu(TensorImpl self not None, double p, generator=None):
    """aten::geometric_: the number of Bernoulli(p) trials up to the first success (every dtype)."""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "geometric_")
    if not (0 < p and p < 1):
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    if self.n_elem == 0:
        return self
    if self.scalar_type == ST_FLOAT16 or self.scalar_type == ST_BOOL:
        _not_implemented("geometric_cpu", self.scalar_type)
    args.op = OP_GEOMETRIC
    args.a = p
    _fill(self, gen, &args)
    _bump(self)
    return self


cdef int _bernoulli_scalar(TensorImpl self, double p, Generator gen) except -1:
    cdef OpArgs args
    if not (0 <= p and p <= 1):
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if self.n_elem == 0:
        return 0
    if self.scalar_type == ST_FLOAT16:
        _not_implemented("bernoulli_scalar_cpu_", self.scalar_type)
    args.op = OP_BERNOULLI_SCALAR
    args.a = p
    _fill(self, gen, &args)
    _bump(self)
    return 0


@float16_via_float32
def bernoulli_float_cpu(TensorImpl self not None, double p=0.5, generator=None):
    """aten::bernoulli_.float"""
    _check_cpu(self, "bernoulli_")
    _bernoulli_scalar(self, p, generator_or_default(generator))
    return self


cdef int _expand_strides(TensorImpl src, TensorImpl to, Py_ssize_t* strides) except -1:
    """src's strides broadcast to `to`'s shape (expand_inplace's check and message)."""
    cdef int nd = to.nd, d, sd
    if src.nd > nd:
        raise RuntimeError(f"expand: the number of sizes provided ({nd}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({src.nd})")
    for d in range(nd - 1, -1, -1):           # from the last dimension, as PyTorch reports
        sd = d - (nd - src.nd)
        if sd < 0:
            strides[d] = 0
        elif src.sizes[sd] == to.sizes[d]:
            strides[d] = src.strides[sd]
        elif src.sizes[sd] == 1:
            strides[d] = 0
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({to.sizes[d]}) must match the existing size ({src.sizes[sd]}) at "
                f"non-singleton dimension {d}.  Target sizes: {list(to._sizes())}.  Tensor sizes: "
                f"{list(src._sizes())}")
    return 0


cdef Py_ssize_t _bernoulli_tensor_run(int st, char* out, const char* p, bint p_double, Py_ssize_t n,
                                      MT19937* e) noexcept nogil:
    if st == ST_UINT8 or st == ST_BOOL:
        return _k_bernoulli_tensor(<uint8_t*>out, p, p_double, n, e)
    elif st == ST_INT8:
        return _k_bernoulli_tensor(<int8_t*>out, p, p_double, n, e)
    elif st == ST_INT16:
        return _k_bernoulli_tensor(<int16_t*>out, p, p_double, n, e)
    elif st == ST_INT32:
        return _k_bernoulli_tensor(<int32_t*>out, p, p_double, n, e)
    elif st == ST_INT64:
        return _k_bernoulli_tensor(<int64_t*>out, p, p_double, n, e)
    elif st == ST_FLOAT32:
        return _k_bernoulli_tensor(<float*>out, p, p_double, n, e)
    else:
        return _k_bernoulli_tensor(<double*>out, p, p_double, n, e)


cdef int _bernoulli_tensor(TensorImpl self, TensorImpl p, Generator gen) except -1:
    """bernoulli_impl_ with a tensor p broadcast to self (TensorIterator over self and p)."""
    cdef Py_ssize_t p_strides[MAX_DIMS]
    cdef int perm[MAX_DIMS]
    cdef Walk out_walk, p_walk
    cdef TensorImpl out_buf = None, p_buf = None
    cdef char* out_data
    cdef const char* p_data
    cdef bint out_linear, p_linear, p_double
    cdef Py_ssize_t n = self.n_elem, bad
    cdef int st = self.scalar_type
    if n == 0:
        return 0
    if st == ST_FLOAT16:
        _not_implemented("bernoulli_tensor_cpu_self_", st)
    _check_cpu(p, "bernoulli_")
    _expand_strides(p, self, p_strides)
    if not _is_float_kernel_type(p.scalar_type):
        _not_implemented("bernoulli_tensor_cpu_p_", p.scalar_type)
    p_double = p.scalar_type == ST_FLOAT64
    _dim_order(self.nd, self.sizes, self.strides, p_strides, perm)
    out_linear = _walk_of(self, perm, self.strides, self.itemsize, &out_walk)
    p_linear = _walk_of(self, perm, p_strides, p.itemsize, &p_walk)
    if out_linear:
        out_data = self.data()
    else:
        # gathered first, so that elements after a bad p keep their values, as in PyTorch
        out_buf = empty_contiguous(1, &n, st, None)
        out_data = out_buf.data()
        _walk_copy(self.data(), &out_walk, out_data, self.itemsize, True)
    if p_linear:
        p_data = p.data()
    else:
        p_buf = empty_contiguous(1, &n, p.scalar_type, None)
        p_data = p_buf.data()
    with nogil:
        if p_buf is not None:
            _walk_copy(p.data(), &p_walk, p_buf.data(), p.itemsize, True)
        gen.lock()
        bad = _bernoulli_tensor_run(st, out_data, p_data, p_double, n, &gen.engine)
        gen.unlock()
        if out_buf is not None:
            _walk_copy(self.data(), &out_walk, out_data, self.itemsize, False)
    _bump(self)
    if bad >= 0:
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    return 0


@float16_via_float32
def bernoulli_tensor_cpu(TensorImpl self not None, TensorImpl p not None, generator=None):
    """aten::bernoulli_.Tensor"""
    _check_cpu(self, "bernoulli_")
    _bernoulli_tensor(self, p, generator_or_default(generator))
    return self


@float16_via_float32
def bernoulli_cpu(TensorImpl self not None, generator=None):
    """aten::bernoulli: a 0/1 tensor like self (contiguous), each element drawn with probability self."""
    cdef TensorImpl result
    _check_cpu(self, "bernoulli")
    result = empty_like_cpu(self, self.scalar_type, False)
    _bernoulli_tensor(result, self, generator_or_default(generator))
    return result


@float16_via_float32
def bernoulli_p_cpu(TensorImpl self not None, double p, generator=None):
    """aten::bernoulli.p: a 0/1 tensor like self (contiguous), each element 1 with probability p."""
    cdef TensorImpl result
    _check_cpu(self, "bernoulli")
    result = empty_like_cpu(self, self.scalar_type, False)
    _bernoulli_scalar(result, p, generator_or_default(generator))
    return result


# ==== normal with tensor mean/std ======================================================================

cdef inline double _load_d(const char* p, int st) noexcept nogil:
    if st == ST_FLOAT64:
        return (<const double*>p)[0]
    if st == ST_FLOAT32:
        return (<const float*>p)[0]
    if st == ST_INT64:
        return <double>(<const int64_t*>p)[0]
    if st == ST_INT32:
        return (<const int32_t*>p)[0]
    if st == ST_INT16:
        return (<const int16_t*>p)[0]
    if st == ST_INT8:
        return (<const int8_t*>p)[0]
    return (<const uint8_t*>p)[0]


cdef inline float _load_f(const char* p, int st) noexcept nogil:
    """The element converted straight to float (as PyTorch's cast to a float computation)."""
    if st == ST_FLOAT64:
        return <float>(<const double*>p)[0]
    if st == ST_FLOAT32:
        return (<const float*>p)[0]
    if st == ST_INT64:
        return <float>(<const int64_t*>p)[0]
    if st == ST_INT32:
        return <float>(<const int32_t*>p)[0]
    if st == ST_INT16:
        return (<const int16_t*>p)[0]
    if st == ST_INT8:
        return (<const int8_t*>p)[0]
    return (<const uint8_t*>p)[0]


cdef int _combine(TensorImpl ret, TensorImpl other, bint multiply) except -1:
    """ret (contiguous float32/float64) *= or += other broadcast to ret's shape, computed in
    promote(ret, other) and written back in ret's dtype (an in-place binary op)."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int perm[MAX_DIMS]
    cdef Walk w
    cdef TensorImpl buf
    cdef Py_ssize_t i, n = ret.n_elem
    cdef int ost = other.scalar_type, k
    cdef int common = promote(ret.scalar_type, ost)
    cdef float* rf
    cdef double* rd
    cdef const char* src
    if n == 0:
        return 0
    if not is_floating(common) and common != ret.scalar_type:
        raise output_cast_error(_type_name(common), _type_name(ret.scalar_type))
    _expand_strides(other, ret, strides)
    # ret is contiguous: walk other in ret's logical order (row-major).
    for k in range(ret.nd):
        perm[k] = ret.nd - 1 - k
    _walk_of(ret, perm, strides, other.itemsize, &w)
    buf = empty_contiguous(1, &n, ost, None)
    with nogil:
        _walk_copy(other.data(), &w, buf.data(), other.itemsize, True)
        src = buf.data()
        if ret.scalar_type == ST_FLOAT32 and common == ST_FLOAT32:
            rf = <float*>ret.data()
            for i in range(n):
                if multiply:
                    rf[i] = rf[i] * _load_f(src + i * other.itemsize, ost)
                else:
                    rf[i] = rf[i] + _load_f(src + i * other.itemsize, ost)
        elif ret.scalar_type == ST_FLOAT32:
            rf = <float*>ret.data()
            for i in range(n):
                if multiply:
                    rf[i] = <float>(<double>rf[i] * _load_d(src + i * other.itemsize, ost))
                else:
                    rf[i] = <float>(<double>rf[i] + _load_d(src + i * other.itemsize, ost))
        else:
            rd = <double*>ret.data()
            for i in range(n):
                if multiply:
                    rd[i] = rd[i] * _load_d(src + i * other.itemsize, ost)
                else:
                    rd[i] = rd[i] + _load_d(src + i * other.itemsize, ost)
    return 0


cdef int _check_normal_tensor_std(TensorImpl std) except -1:
    """CHECK_NORMAL_TENSOR_STD: every element >= 0 (a NaN fails)."""
    cdef TensorImpl flat
    cdef Py_ssize_t i, n = std.n_elem
    cdef int perm[MAX_DIMS]
    cdef Walk w
    cdef bint ok = True
    cdef const char* p
    if n == 0:
        return 0
    for i in range(std.nd):
        perm[i] = std.nd - 1 - i
    _walk_of(std, perm, std.strides, std.itemsize, &w)
    flat = empty_contiguous(1, &n, std.scalar_type, None)
    with nogil:
        _walk_copy(std.data(), &w, flat.data(), std.itemsize, True)
        p = flat.data()
        for i in range(n):
            if not (_load_d(p + i * std.itemsize, std.scalar_type) >= 0):
                ok = False
                break
    if not ok:
        raise RuntimeError("normal expects all elements of std >= 0.0")
    return 0


@float16_via_float32
def normal_tensor_float_cpu(TensorImpl mean not None, double std=1, generator=None):
    """aten::normal.Tensor_float: normal(0, std) like mean (contiguous), plus mean."""
    cdef Generator gen = generator_or_default(generator)
    cdef TensorImpl ret
    _check_cpu(mean, "normal")
    _check_normal_std(std)
    ret = empty_contiguous(mean.nd, mean.sizes, mean.scalar_type, None)
    _normal_inplace(ret, 0.0, std, gen)
    _combine(ret, mean, False)
    return ret


@float16_via_float32
def normal_float_tensor_cpu(double mean, TensorImpl std not None, generator=None):
    """aten::normal.float_Tensor: normal(0, 1) like std (contiguous), times std, plus mean."""
    cdef Generator gen = generator_or_default(generator)
    cdef TensorImpl ret, mean_t
    cdef Py_ssize_t one = 1
    _check_cpu(std, "normal")
    _check_normal_tensor_std(std)
    ret = empty_contiguous(std.nd, std.sizes, std.scalar_type, None)
    _normal_inplace(ret, 0.0, 1.0, gen)
    _combine(ret, std, True)
    # full({}, mean, ret.options()): mean rounded to ret's dtype first
    mean_t = empty_contiguous(0, &one, ret.scalar_type, None)
    if ret.scalar_type == ST_FLOAT32:
        (<float*>mean_t.data())[0] = <float>mean
    else:
        (<double*>mean_t.data())[0] = mean
    _combine(ret, mean_t, False)
    return ret


@float16_via_float32
def normal_tensor_tensor_cpu(TensorImpl mean not None, TensorImpl std not None, generator=None):
    """aten::normal.Tensor_Tensor: normal(0, 1) of the broadcast shape (mean's dtype), times std, plus mean."""
    cdef Generator gen = generator_or_default(generator)
    cdef TensorImpl ret
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int nd, d, a, b
    cdef Py_ssize_t sa, sb
    _check_cpu(mean, "normal")
    _check_cpu(std, "normal")
    _check_normal_tensor_std(std)
    nd = mean.nd if mean.nd > std.nd else std.nd
    for d in range(nd - 1, -1, -1):
        a = d - (nd - mean.nd)
        b = d - (nd - std.nd)
        sa = mean.sizes[a] if a >= 0 else 1
        sb = std.sizes[b] if b >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                               f"non-singleton dimension {d}")
        sizes[d] = sa if sb == 1 else sb
    ret = empty_contiguous(nd, sizes, mean.scalar_type, None)
    _normal_inplace(ret, 0.0, 1.0, gen)
    _combine(ret, std, True)
    _combine(ret, mean, False)
    return ret


# ==== *_like factories ==================================================================================

cdef TensorImpl _like(TensorImpl self, object dtype, object layout, object device, object pin_memory,
                      object memory_format, str op):
    """empty_like(self, dtype, ...) on CPU: preserve_format unless contiguous_format is asked."""
    cdef int st = self.scalar_type if dtype is None else (<DType?>dtype).scalar_type
    _check_cpu(self, op)
    if layout is not None and layout is not _layout.strided:
        raise RuntimeError(f"Ember supports only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError("pin_memory=True needs CUDA, which this CPU kernel cannot use")
    if device is not None and device.type != "cpu":
        raise RuntimeError(f"{op}: Ember has random kernels for CPU tensors only, got device '{device}'")
    if memory_format is not None and memory_format is not _layout.preserve_format \
            and memory_format is not _layout.contiguous_format:
        raise RuntimeError(f"{op}: unsupported memory format {memory_format!r} (preserve or contiguous only)")
    return empty_like_cpu(self, st, memory_format is not _layout.contiguous_format)


def rand_like_cpu(TensorImpl self not None, dtype=None, layout=None, device=None, pin_memory=None,
                  memory_format=None):
    """aten::rand_like"""
    return uniform_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "rand_like"), 0.0, 1.0, None)


def rand_like_generator_cpu(TensorImpl self not None, generator=None, dtype=None, layout=None, device=None,
                            pin_memory=None, memory_format=None):
    """aten::rand_like.generator"""
    return uniform_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "rand_like"), 0.0, 1.0,
                       generator)


def randn_like_cpu(TensorImpl self not None, dtype=None, layout=None, device=None, pin_memory=None,
                   memory_format=None):
    """aten::randn_like"""
    return normal_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randn_like"), 0.0, 1.0, None)


def randn_like_generator_cpu(TensorImpl self not None, generator=None, dtype=None, layout=None, device=None,
                             pin_memory=None, memory_format=None):
    """aten::randn_like.generator"""
    return normal_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randn_like"), 0.0, 1.0,
                      generator)


def randint_like_cpu(TensorImpl self not None, int64_t high, dtype=None, layout=None, device=None, pin_memory=None,
                     memory_format=None):
    """aten::randint_like: [0, high)"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0, high,
                           None)


def randint_like_generator_cpu(TensorImpl self not None, int64_t high, generator=None, dtype=None, layout=None,
                               device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.generator"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0, high,
                           generator)


cdef int64_t _scalar_high(TensorImpl high) except? -1:
    if high.nd != 0 or high.n_elem != 1 or high.device_type != 0:
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return <int64_t>high.item()


def randint_like_tensor_cpu(TensorImpl self not None, TensorImpl high not None, dtype=None, layout=None,
                            device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.Tensor: high given as a 0-dim CPU tensor"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0,
                           _scalar_high(high), None)


def randint_like_tensor_generator_cpu(TensorImpl self not None, TensorImpl high not None, generator=None, dtype=None,
                                      layout=None, device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.Tensor_generator"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0,
                           _scalar_high(high), generator)


def randint_like_low_cpu(TensorImpl self not None, int64_t low, int64_t high, dtype=None, layout=None, device=None,
                         pin_memory=None, memory_format=None):
    """aten::randint_like.low_dtype: [low, high)"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), low, high,
                           None)


def randint_like_low_generator_cpu(TensorImpl self not None, int64_t low, int64_t high, generator=None, dtype=None,
                                   layout=None, device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.low_generator_dtype"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), low, high,
                           generator)


# ==== randperm ===========================================================================================

ctypedef fused perm_t:
    uint8_t
    int8_t
    int16_t
    int32_t
    int64_t
    float
    double


cdef void _k_randperm(perm_t* r, Py_ssize_t stride, int64_t n, MT19937* e) noexcept nogil:
    """randperm_cpu: Fisher-Yates with 32-bit words for n < 2**32 / 20, else the inside-out
    variant with 64-bit words."""
    cdef int64_t i, z
    cdef perm_t save
    if n < 214748364:
        for i in range(n):
            r[i * stride] = <perm_t>i
        for i in range(n - 1):
            z = <int64_t>(mt_random(e) % <uint64_t>(n - i))
            save = r[i * stride]
            r[i * stride] = r[(z + i) * stride]
            r[(z + i) * stride] = save
        return
    for i in range(n):
        z = <int64_t>(mt_random64(e) % <uint64_t>(i + 1))
        r[i * stride] = r[z * stride]
        r[z * stride] = <perm_t>i


@float16_via_float32
def randperm_generator_cpu(int64_t n, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    """aten::randperm.generator: a random permutation of 0..n-1 (int64 unless dtype says otherwise)."""
    cdef Generator gen = generator_or_default(generator)
    cdef int st = ST_INT64 if dtype is None else (<DType?>dtype).scalar_type
    cdef TensorImpl out
    cdef Py_ssize_t size = n
    cdef MT19937* e
    cdef char* data
    if layout is not None and layout is not _layout.strided:
        raise RuntimeError(f"Ember supports only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError("pin_memory=True needs CUDA, which this CPU kernel cannot use")
    if device is not None and device.type != "cpu":
        raise RuntimeError(f"randperm: Ember has random kernels for CPU tensors only, got device '{device}'")
    check_randperm(n, st)
    out = empty_contiguous(1, &size, st, None)
    data = out.data()
    e = &gen.engine
    with nogil:
        gen.lock()
        if st == ST_UINT8:
            _k_randperm(<uint8_t*>data, 1, n, e)
        elif st == ST_INT8:
            _k_randperm(<int8_t*>data, 1, n, e)
        elif st == ST_INT16:
            _k_randperm(<int16_t*>data, 1, n, e)
        elif st == ST_INT32:
            _k_randperm(<int32_t*>data, 1, n, e)
        elif st == ST_INT64:
            _k_randperm(<int64_t*>data, 1, n, e)
        elif st == ST_FLOAT32:
            _k_randperm(<float*>data, 1, n, e)
        else:
            _k_randperm(<double*>data, 1, n, e)
        gen.unlock()
    return out


# ==== multinomial ==========================================================================================

cdef int _multinomial_replacement(const char* base, int st, Py_ssize_t s0, Py_ssize_t s1, int64_t n_dist,
                                  int64_t n_cat, int64_t n_sample, int64_t* result, char* cum,
                                  MT19937* e) noexcept nogil:
    """multinomial_with_replacement_apply: per row, check it and build the normalised cumulative
    sum in the input dtype, then binary-search one 53-bit uniform per sample. Returns 0, or the
    first failing check (1: entry < 0 or NaN, 2: infinite entry, 3: sum <= 0): like PyTorch,
    earlier rows have drawn their samples by then."""
    cdef int64_t i, j, left, right, mid
    cdef float fsum, fv
    cdef double dsum, dv, u
    cdef float* cf = <float*>cum
    cdef double* cd = <double*>cum
    cdef bint is_f = st == ST_FLOAT32
    for i in range(n_dist):
        if is_f:
            fsum = 0
            for j in range(n_cat):
                fv = (<const float*>(base + i * s0 + j * s1))[0]
                if not (fv >= 0):
                    return 1
                if not (fv - fv == 0):
                    return 2
                fsum += fv
                cf[j] = fsum
            if not (fsum > 0):
                return 3
            for j in range(n_cat):
                cf[j] /= fsum
        else:
            dsum = 0
            for j in range(n_cat):
                dv = (<const double*>(base + i * s0 + j * s1))[0]
                if not (dv >= 0):
                    return 1
                if not (dv - dv == 0):
                    return 2
                dsum += dv
                cd[j] = dsum
            if not (dsum > 0):
                return 3
            for j in range(n_cat):
                cd[j] /= dsum
        for j in range(n_sample):
            u = mt_uniform_double(e)
            left = 0
            right = n_cat
            if is_f:
                cf[n_cat - 1] = 1
            else:
                cd[n_cat - 1] = 1
            while right - left > 0:
                mid = left + (right - left) // 2
                if (<double>cf[mid] if is_f else cd[mid]) < u:
                    left = mid + 1
                else:
                    right = mid
            result[i * n_sample + j] = left
    return 0


cdef inline bint _gt_nan_max(double a, double b) noexcept nogil:
    """a ranks above b in argmax/topk order (NaN is the largest)."""
    if isnan(a):
        return not isnan(b)
    return a > b


cdef int _check_multinomial_rows(const char* base, int st, Py_ssize_t s0, Py_ssize_t s1, int64_t n_dist,
                                 int64_t n_cat) except -1:
    """The fast path's checks: no inf/nan/negative entry, then no all-zero row."""
    cdef int64_t i, j
    cdef double v
    cdef bint any_nonzero
    for i in range(n_dist):
        for j in range(n_cat):
            v = _load_d(base + i * s0 + j * s1, st)
            if not (v >= 0 and v < INFINITY):
                raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    for i in range(n_dist):
        any_nonzero = False
        for j in range(n_cat):
            if _load_d(base + i * s0 + j * s1, st) != 0:
                any_nonzero = True
                break
        if not any_nonzero:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return 0


cdef void _multinomial_topk(const char* base, int st, Py_ssize_t s0, Py_ssize_t s1, const char* qbase,
                            Py_ssize_t qs0, Py_ssize_t qs1, int64_t n_dist, int64_t n_cat, int64_t k,
                            int64_t* res, double* keys, int64_t* idx) noexcept nogil:
    """Per row: keys p / q in the input dtype, then the k largest, descending (argmax for k = 1:
    the first maximum; ties otherwise go to the lower index)."""
    cdef int64_t i, j, m, pos
    cdef double key
    for i in range(n_dist):
        for j in range(n_cat):
            if st == ST_FLOAT32:
                keys[j] = <double>((<const float*>(base + i * s0 + j * s1))[0]
                                   / (<const float*>(qbase + i * qs0 + j * qs1))[0])
            else:
                keys[j] = ((<const double*>(base + i * s0 + j * s1))[0]
                           / (<const double*>(qbase + i * qs0 + j * qs1))[0])
        m = 0
        for j in range(n_cat):
            key = keys[j]
            if m == k and not _gt_nan_max(key, keys[idx[k - 1]]):
                continue
            pos = m if m < k else k - 1
            while pos > 0 and _gt_nan_max(key, keys[idx[pos - 1]]):
                idx[pos] = idx[pos - 1]
                pos -= 1
            idx[pos] = j
            if m < k:
                m += 1
        for j in range(k):
            res[i * k + j] = idx[j]


def multinomial_cpu(TensorImpl self not None, int64_t num_samples, bint replacement=False, generator=None):
    """aten::multinomial: num_samples category indices per row of self (1 or 2 dims).

    Without replacement (or for one sample) PyTorch's fast path: q ~ Exp(1) like self, then the
    top num_samples of self / q per row; with replacement, inverse-CDF sampling per row."""
    cdef Generator gen = generator_or_default(generator)
    cdef int64_t n_cat, n_dist
    cdef Py_ssize_t out_sizes[2]
    cdef Py_ssize_t s0, s1, qs0, qs1, ncat_sz
    cdef TensorImpl result, q, cum
    cdef int64_t* res
    cdef int st = self.scalar_type
    cdef int bad
    cdef const char* base
    cdef double* keys
    cdef int64_t* idx
    cdef OpArgs args
    _check_cpu(self, "multinomial")
    if not (self.nd > 0 and self.nd <= 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not is_floating(st):
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_type_name(st)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = self.sizes[self.nd - 1]
    if not (replacement or num_samples <= n_cat):
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_cat > (1 << 24):
        raise RuntimeError("number of categories cannot exceed 2^24")
    n_dist = self.sizes[0] if self.nd == 2 else 1
    if self.nd == 1:
        out_sizes[0] = num_samples
    else:
        out_sizes[0] = n_dist
        out_sizes[1] = num_samples
    result = empty_contiguous(self.nd, out_sizes, ST_INT64, None)
    if result.n_elem == 0:
        return result
    if st == ST_FLOAT16:
        raise RuntimeError("multinomial is not implemented for half on CPU")
    s1 = self.strides[self.nd - 1] * self.itemsize
    s0 = self.strides[0] * self.itemsize if self.nd == 2 else 0
    base = self.data()
    res = <int64_t*>result.data()
    if not replacement or num_samples == 1:
        _check_multinomial_rows(base, st, s0, s1, n_dist, n_cat)
        q = empty_like_cpu(self, st, True)
        args.op = OP_EXPONENTIAL
        args.a = 1.0
        _fill(q, gen, &args)
        qs1 = q.strides[q.nd - 1] * q.itemsize
        qs0 = q.strides[0] * q.itemsize if self.nd == 2 else 0
        keys = <double*>PyMem_Malloc(n_cat * sizeof(double))
        idx = <int64_t*>PyMem_Malloc(num_samples * sizeof(int64_t))
        if keys == NULL or idx == NULL:
            PyMem_Free(keys)
            PyMem_Free(idx)
            raise MemoryError()
        with nogil:
            _multinomial_topk(base, st, s0, s1, q.data(), qs0, qs1, n_dist, n_cat, num_samples, res, keys, idx)
        PyMem_Free(keys)
        PyMem_Free(idx)
        return result
    ncat_sz = n_cat
    cum = empty_contiguous(1, &ncat_sz, st, None)
    with nogil:
        gen.lock()
        bad = _multinomial_replacement(base, st, s0, s1, n_dist, n_cat, num_samples, res, cum.data(), &gen.engine)
        gen.unlock()
    if bad == 1:
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if bad == 2:
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if bad == 3:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return result


# ==== native_dropout ==========================================================================================

@float16_via_float32
def native_dropout_cpu(TensorImpl input not None, double p, train=None):
    """aten::native_dropout: (input * mask * (1 / (1 - p)), mask) with a bool mask like input."""
    cdef TensorImpl mask, output
    cdef double p1m, scale
    cdef Py_ssize_t n = input.n_elem, i
    cdef int st = input.scalar_type
    cdef int perm[MAX_DIMS]
    cdef Walk w_in, w_mask
    cdef TensorImpl xin, mflat
    cdef float fscale
    cdef float* of
    cdef double* od
    cdef const uint8_t* mk
    _check_cpu(input, "native_dropout")
    if n == 0:
        return input, empty_like_cpu(input, st, True)
    if train is None or train:
        p1m = 1.0 - p
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        mask = empty_like_cpu(input, ST_BOOL, True)
        _bernoulli_scalar(mask, p1m, generator_or_default(None))
        if not _is_float_kernel_type(st):
            if is_floating(st):
                _not_implemented("mul_cpu", st)
            raise output_cast_error("Float", _type_name(st))
        # output = input.mul(mask).mul_(scale): like input (mask shares its layout), in input's dtype
        output = empty_like_cpu(input, st, True)
        _dim_order(input.nd, input.sizes, input.strides, NULL, perm)
        _walk_of(input, perm, input.strides, input.itemsize, &w_in)
        _walk_of(input, perm, mask.strides, 1, &w_mask)
        xin = empty_contiguous(1, &n, st, None)
        mflat = empty_contiguous(1, &n, ST_BOOL, None)
        with nogil:
            _walk_copy(input.data(), &w_in, xin.data(), input.itemsize, True)
            _walk_copy(mask.data(), &w_mask, mflat.data(), 1, True)
            mk = <const uint8_t*>mflat.data()
            if st == ST_FLOAT32:
                fscale = <float>scale
                of = <float*>xin.data()
                for i in range(n):
                    of[i] = (of[i] * <float>mk[i]) * fscale
            else:
                od = <double*>xin.data()
                for i in range(n):
                    od[i] = (od[i] * <double>mk[i]) * scale
            _walk_copy(output.data(), &w_in, xin.data(), input.itemsize, False)
        return output, mask
    mask = empty_like_cpu(input, ST_BOOL, True)
    _fill_ones_bool(mask)
    output = empty_like_cpu(input, st, True)
    _copy_same_layout(output, input)
    return output, mask


cdef void _fill_ones_bool(TensorImpl t) noexcept:
    cdef Py_ssize_t i, span = 1
    cdef uint8_t* d = <uint8_t*>t.data()
    cdef int k
    for k in range(t.nd):
        span += (t.sizes[k] - 1) * t.strides[k]
    for i in range(span):
        d[i] = 1


cdef int _copy_same_layout(TensorImpl dst, TensorImpl src) except -1:
    """dst (empty_like(src)) = src, element by element in src's memory order."""
    cdef int perm[MAX_DIMS]
    cdef Walk ws, wd
    cdef Py_ssize_t n = src.n_elem
    cdef TensorImpl flat = empty_contiguous(1, &n, src.scalar_type, None)
    _dim_order(src.nd, src.sizes, src.strides, NULL, perm)
    _walk_of(src, perm, src.strides, src.itemsize, &ws)
    _walk_of(src, perm, dst.strides, dst.itemsize, &wd)
    with nogil:
        _walk_copy(src.data(), &ws, flat.data(), src.itemsize, True)
        _walk_copy(dst.data(), &wd, flat.data(), src.itemsize, False)
    return 0
