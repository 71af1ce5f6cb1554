"""The depthwise forward convolution on CPU (groups == input channels, float32/float64): conv.pyx's path for it.

Each output row is the sum over the kernel taps of a weight times a run of an input row (a multiply-add
over the row, in C, compiled for AVX2+FMA and for the baseline), with no unfolded columns at all; an
output plane is a task on the OpenMP threads.
"""
from cython.parallel cimport prange

from aten.native.cpu.element_types cimport floating_t


# The depthwise row kernel in C, compiled twice (AVX2 with FMA, and the baseline, which is all
# the build's -march gives), the first taken where the CPU has them: the loop is a multiply-add
# over a row, so the vector width is its speed.
cdef extern from *:
    """
    #define EMBER_DW_BODY(T) \
        Py_ssize_t ow; \
        if (sw == 1) { for (ow = lo; ow < hi; ow++) dst[ow] += wv * src[ow]; } \
        else { for (ow = lo; ow < hi; ow++) dst[ow] += wv * src[ow * sw]; }
    #if defined(__GNUC__) && defined(__x86_64__)
    #define EMBER_DW_ROW(NAME, T) \
    __attribute__((target("avx2,fma"))) static void NAME##_avx2(T* dst, const T* src, T wv, Py_ssize_t lo, \
                                                                Py_ssize_t hi, Py_ssize_t sw) { EMBER_DW_BODY(T) } \
    static void NAME##_base(T* dst, const T* src, T wv, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t sw) { \
        EMBER_DW_BODY(T) } \
    static void NAME(T* dst, const T* src, T wv, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t sw) { \
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) NAME##_avx2(dst, src, wv, lo, hi, sw); \
        else NAME##_base(dst, src, wv, lo, hi, sw); }
    #else
    #define EMBER_DW_ROW(NAME, T) \
    static void NAME(T* dst, const T* src, T wv, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t sw) { EMBER_DW_BODY(T) }
    #endif
    EMBER_DW_ROW(ember_dw_row_f32, float)
    EMBER_DW_ROW(ember_dw_row_f64, double)
    """
    void ember_dw_row_f32(float* dst, const float* src, float wv, Py_ssize_t lo, Py_ssize_t hi,
                          Py_ssize_t sw) noexcept nogil
    void ember_dw_row_f64(double* dst, const double* src, double wv, Py_ssize_t lo, Py_ssize_t hi,
                          Py_ssize_t sw) noexcept nogil


cdef void _depthwise(const floating_t* x, const floating_t* w, const floating_t* bias, floating_t* out, Py_ssize_t N,
                     Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Cout, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh,
                     Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Ho,
                     Py_ssize_t Wo, int nt) noexcept nogil:
    """One input channel per group (groups == C): each output row is the sum over the kernel taps
    of a weight times a run of an input row, with no columns at all. A task is one output plane."""
    cdef Py_ssize_t M = Cout // C, plane, n, co, oh, i, j, ih, iw0, lo, hi, ow
    cdef floating_t* dst
    cdef const floating_t* src
    cdef floating_t wv, bv
    for plane in prange(N * Cout, num_threads=nt, schedule="dynamic", chunksize=1):
        n = plane // Cout
        co = plane % Cout
        bv = 0
        if bias != NULL:
            bv = bias[co]
        for oh in range(Ho):
            dst = out + (plane * Ho + oh) * Wo
            for ow in range(Wo):
                dst[ow] = bv
            for i in range(kh):
                ih = oh * sh - ph + i * dh
                if ih < 0 or ih >= H:
                    continue
                for j in range(kw):
                    wv = w[(co * kh + i) * kw + j]
                    iw0 = j * dw - pw
                    lo = first_inside(iw0, sw)
                    hi = end_inside(W, Wo, iw0, sw)
                    src = x + ((n * C + co // M) * H + ih) * W + iw0
                    if floating_t is float:
                        ember_dw_row_f32(dst, src, wv, lo, hi, sw)
                    else:
                        ember_dw_row_f64(dst, src, wv, lo, hi, sw)


cdef void depthwise_forward(bint f64, const char* x, const char* w, const char* bias, char* out, Py_ssize_t N,
                            Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Cout, Py_ssize_t kh, Py_ssize_t kw,
                            Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw,
                            Py_ssize_t Ho, Py_ssize_t Wo, int nt) noexcept nogil:
    """out (N, Cout, Ho, Wo) of x (N, C, H, W) and w (Cout, 1, kh, kw), all contiguous, float64 or float32;
    bias NULL or (Cout,)."""
    if f64:
        _depthwise(<const double*>x, <const double*>w, <const double*>bias, <double*>out, N, C, H, W, Cout, kh, kw,
                   sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
    else:
        _depthwise(<const float*>x, <const float*>w, <const float*>bias, <float*>out, N, C, H, W, Cout, kh, kw,
                   sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
