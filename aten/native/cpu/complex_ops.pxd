# Scalar functions that complex loops of ember_pointwise formulas call (torchgen/formula.py
# COMPLEX_FUNCTIONS): C99's complex.h, as PyTorch's CPU kernels reach it through std::complex
# (libstdc++ calls the same glibc functions), and the few C99 lacks, with PyTorch's definitions.
from c10.complex cimport complex64_t, complex128_t, complex_t
from libc cimport math as libm

cdef extern from "<complex.h>" nogil:
    float complex cexpf(float complex z)
    double complex cexp(double complex z)
    float complex clogf(float complex z)
    double complex clog(double complex z)
    float complex csqrtf(float complex z)
    double complex csqrt(double complex z)
    float complex csinf(float complex z)
    double complex csin(double complex z)
    float complex ccosf(float complex z)
    double complex ccos(double complex z)
    float complex ctanf(float complex z)
    double complex ctan(double complex z)
    float complex casinf(float complex z)
    double complex casin(double complex z)
    float complex cacosf(float complex z)
    double complex cacos(double complex z)
    float complex catanf(float complex z)
    double complex catan(double complex z)
    float complex csinhf(float complex z)
    double complex csinh(double complex z)
    float complex ccoshf(float complex z)
    double complex ccosh(double complex z)
    float complex ctanhf(float complex z)
    double complex ctanh(double complex z)
    float complex casinhf(float complex z)
    double complex casinh(double complex z)
    float complex cacoshf(float complex z)
    double complex cacosh(double complex z)
    float complex catanhf(float complex z)
    double complex catanh(double complex z)
    float complex cpowf(float complex z, float complex w)
    double complex cpow(double complex z, double complex w)
    float complex conjf(float complex z)
    double complex conj(double complex z)
    float cabsf(float complex z)
    double cabs(double complex z)
    float cargf(float complex z)
    double carg(double complex z)
    float crealf(float complex z)
    double creal(double complex z)
    float cimagf(float complex z)
    double cimag(double complex z)


# A complex number from its parts, without arithmetic (x + y*I would turn an infinite part into NaN).
cdef extern from *:
    """
    #include <complex.h>
    static inline float _Complex ember_cplxf(float re, float im) { return CMPLXF(re, im); }
    static inline double _Complex ember_cplx(double re, double im) { return CMPLX(re, im); }
    """
    float complex ember_cplxf(float re, float im) noexcept nogil
    double complex ember_cplx(double re, double im) noexcept nogil


# Products as c10::complex computes them, (ac - bd) + (ad + bc)i, not C99's (__mulsc3, which
# re-derives infinities from NaN parts and costs a call per element).
cdef inline complex64_t cmulf(complex64_t a, complex64_t b) noexcept nogil:
    return ember_cplxf(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


cdef inline complex128_t cmul(complex128_t a, complex128_t b) noexcept nogil:
    return ember_cplx(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


# std::log2 / std::log10 of a complex: log(z) divided part by part by log(base), as libstdc++ does.
cdef inline complex_t _log_base(complex_t z, double log_base) noexcept nogil:
    cdef complex_t l
    if complex_t is complex64_t:
        l = clogf(z)
        return ember_cplxf(crealf(l) / <float>log_base, cimagf(l) / <float>log_base)
    else:
        l = clog(z)
        return ember_cplx(creal(l) / log_base, cimag(l) / log_base)


cdef inline complex_t clog2(complex_t z) noexcept nogil:
    return _log_base(z, 0.693147180559945309417232121458176568)


cdef inline complex_t clog10(complex_t z) noexcept nogil:
    return _log_base(z, 2.30258509299404568401799145468436421)


# Either part NaN / infinite; finite only when both are (PyTorch's isnan, isinf, isfinite).
cdef inline bint cisnan(complex_t z) noexcept nogil:
    return libm.isnan(z.real) or libm.isnan(z.imag)


cdef inline bint cisinf(complex_t z) noexcept nogil:
    return libm.isinf(z.real) or libm.isinf(z.imag)


cdef inline bint cisfinite(complex_t z) noexcept nogil:
    return libm.isfinite(z.real) and libm.isfinite(z.imag)


# sgn: z / |z|, and 0 at 0 (PyTorch's sgn_impl).
cdef inline complex_t csgn(complex_t z) noexcept nogil:
    cdef complex_t zero = 0
    r = cabsf(z) if complex_t is complex64_t else cabs(z)
    return z / r if r != 0 else zero
