"""Pointwise kernels the formula language cannot spell (they loop per element): digamma,
polygamma, gcd and lcm. They run on the loop engine (loops.pointwise: broadcasting, strides, threads).

digamma follows the usual method (PyTorch's calc_digamma): the reflection formula below 0,
the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series; poles
(0 and negative integers) give -inf at +0, +inf at -0 and NaN at negative integers, as PyTorch.
polygamma(n, x) is digamma for n = 0, the trigamma series for n = 1 (reflection below 1/2, six
recurrence steps, then the asymptotic series), and (-1)^(n+1) n! zeta(n + 1, x) above, with the
Hurwitz zeta by Euler-Maclaurin summation (the Cephes method PyTorch uses, so that poles,
infinities and NaNs come out as PyTorch's: zeta(s, q) is +inf at q = 0, -1, ...).
gcd and lcm are integer-only (Euclid's algorithm on |a|, |b|), computed in int64 and stored in
the promoted dtype (wrapping as PyTorch's integer arithmetic does).
"""
from libc.math cimport (tan, sin, sinf, floor, trunc, log, exp, expf, lgamma, lgammaf, pow, fabs, NAN, INFINITY,
                        copysign)
from libc.stdint cimport int64_t

from c10.scalar_type cimport (ST_BOOL, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_INT64, dtype_of, is_floating,
                              is_integral, default_float_type)
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport pointwise, cast_contiguous
from aten.native.meta.pointwise cimport result_type

cdef double _PI = 3.14159265358979323846


cdef inline double _digamma(double x) noexcept nogil:
    cdef double result = 0.0, z, poly, r
    if x == 0:
        return copysign(INFINITY, -x)
    if x < 0:
        if x == floor(x):
            return NAN
        # psi(1 - x) - psi(x) = pi / tan(pi x), with x's fractional part r (pi r is exact
        # enough near the poles, as PyTorch's modf: x = -1e-9 keeps its digits)
        r = x - trunc(x)
        return _digamma(1.0 - x) - _PI / tan(_PI * r)
    while x < 10:
        result -= 1.0 / x
        x += 1
    if x == 10:
        return result + 2.25175258906672110764
    z = 1.0 / (x * x)
    poly = z * (8.33333333333333333333e-2 + z * (-8.33333333333333333333e-3 + z * (3.96825396825396825397e-3
           + z * (-4.16666666666666666667e-3 + z * (7.57575757575757575758e-3 + z * (-2.10927960927960927961e-2
           + z * 8.33333333333333333333e-2))))))
    return result + log(x) - 0.5 / x - poly


cdef void _digamma_f64(char** data, const Py_ssize_t* strides, Py_ssize_t n, const void* extra) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        (<double*>(data[0] + i * strides[0]))[0] = _digamma((<double*>(data[1] + i * strides[1]))[0])


cdef void _digamma_f32(char** data, const Py_ssize_t* strides, Py_ssize_t n, const void* extra) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        (<float*>(data[0] + i * strides[0]))[0] = <float>_digamma((<float*>(data[1] + i * strides[1]))[0])


def digamma_cpu(TensorImpl self not None):
    cdef int st = self.scalar_type
    if not is_floating(st):
        st = default_float_type()
    if st == ST_FLOAT64:
        return pointwise(_digamma_f64, (self,), ST_FLOAT64, ST_FLOAT64, NULL)
    return pointwise(_digamma_f32, (self,), ST_FLOAT32, ST_FLOAT32, NULL)


cdef inline double _trigamma(double x) noexcept nogil:
    cdef double sign = 1.0, result = 0.0, s, ixx
    cdef int i
    if x < 0.5:
        # psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
        sign = -1.0
        s = sin(_PI * x)
        result -= (_PI * _PI) / (s * s)
        x = 1.0 - x
    for i in range(6):
        result += 1.0 / (x * x)
        x += 1.0
    ixx = 1.0 / (x * x)
    result += (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0)))) / x
    return sign * result


# (2k)! / B_2k for k = 1..12 (B: Bernoulli numbers): the Euler-Maclaurin correction terms.
cdef double[12] _ZETA_A = [12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183792,
                           74724249600.0, -2950130727918.164, 116467828143500.67, -4597978722407473.0,
                           1.8152105401943546e+17, -7.166165256175667e+18]
cdef double _MACHEP = 1.11022302462515654042e-16


cdef inline double _zeta(double x, double q) noexcept nogil:
    """Hurwitz zeta(x, q) = sum_k (q + k)^-x: nine or more terms directly (q pushed past 9),
    then the Euler-Maclaurin tail."""
    cdef double a, b, k, s, t, w
    cdef int i
    if x == 1.0:
        return INFINITY
    if x < 1.0:
        return NAN
    if q <= 0.0:
        if q == floor(q):
            return INFINITY
        if x != floor(x):
            return NAN
    s = pow(q, -x)
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = pow(a, -x)
        s += b
        if -_MACHEP * s < b < _MACHEP * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for i in range(12):
        a *= x + k
        b /= w
        t = a * b / _ZETA_A[i]
        s = s + t
        if fabs(t / s) < _MACHEP:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


cdef inline double _polygamma(long n, double x) noexcept nogil:
    if n == 0:
        return _digamma(x)
    if n == 1:
        return _trigamma(x)
    return (1.0 if n % 2 else -1.0) * exp(lgamma(n + 1.0)) * _zeta(n + 1.0, x)


cdef void _polygamma_f64(char** data, const Py_ssize_t* strides, Py_ssize_t n, const void* extra) noexcept nogil:
    cdef Py_ssize_t i
    cdef long order = (<const long*>extra)[0]
    for i in range(n):
        (<double*>(data[0] + i * strides[0]))[0] = _polygamma(order, (<double*>(data[1] + i * strides[1]))[0])


cdef inline float _trigamma_f(float x) noexcept nogil:
    """_trigamma in float arithmetic, as PyTorch's float kernel (its values near the poles)."""
    cdef float sign = 1.0, result = 0.0, s, ixx
    cdef float one = 1.0, pi = <float>_PI
    cdef int i
    if x < <float>0.5:
        sign = -one
        s = sinf(pi * x)
        result -= (pi * pi) / (s * s)
        x = one - x
    for i in range(6):
        result += one / (x * x)
        x += one
    ixx = one / (x * x)
    result += (one + one / (<float>2.0 * x)
               + ixx * (one / <float>6.0 - ixx * (one / <float>30.0 - ixx * (one / <float>42.0)))) / x
    return sign * result


cdef inline float _polygamma_float(long n, float x) noexcept nogil:
    """float32: n! in float and zeta in double rounded to float before the product, as PyTorch."""
    cdef float fact
    if n == 0:
        return <float>_digamma(x)
    if n == 1:
        return _trigamma_f(x)
    fact = expf(lgammaf(<float>n + <float>1.0))
    return (<float>1.0 if n % 2 else <float>-1.0) * fact * <float>_zeta(n + 1.0, x)


cdef void _polygamma_f32(char** data, const Py_ssize_t* strides, Py_ssize_t n, const void* extra) noexcept nogil:
    cdef Py_ssize_t i
    cdef long order = (<const long*>extra)[0]
    for i in range(n):
        (<float*>(data[0] + i * strides[0]))[0] = _polygamma_float(order, (<float*>(data[1] + i * strides[1]))[0])


def polygamma_cpu(long n, TensorImpl self not None):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    cdef int st = self.scalar_type
    cdef long order = n
    if not is_floating(st):
        st = default_float_type()
    if st == ST_FLOAT64:
        return pointwise(_polygamma_f64, (self,), ST_FLOAT64, ST_FLOAT64, &order)
    return pointwise(_polygamma_f32, (self,), ST_FLOAT32, ST_FLOAT32, &order)


cdef inline int64_t _gcd(int64_t a, int64_t b) noexcept nogil:
    cdef int64_t t
    a = -a if a < 0 else a
    b = -b if b < 0 else b
    while b != 0:
        t = a % b
        a = b
        b = t
    return a


cdef void _gcd_i64(char** data, const Py_ssize_t* strides, Py_ssize_t n, const void* extra) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        (<int64_t*>(data[0] + i * strides[0]))[0] = _gcd((<int64_t*>(data[1] + i * strides[1]))[0],
                                                          (<int64_t*>(data[2] + i * strides[2]))[0])


cdef void _lcm_i64(char** data, const Py_ssize_t* strides, Py_ssize_t n, const void* extra) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t a, b, g, r
    for i in range(n):
        a = (<int64_t*>(data[1] + i * strides[1]))[0]
        b = (<int64_t*>(data[2] + i * strides[2]))[0]
        g = _gcd(a, b)
        if g == 0:
            r = 0
        else:
            r = <int64_t>(<unsigned long long>(a // g) * <unsigned long long>b)   # wraps, never traps
            r = -r if r < 0 else r
        (<int64_t*>(data[0] + i * strides[0]))[0] = r


cdef _integer_binary(str name, TensorImpl self, TensorImpl other, bint is_lcm):
    cdef int st = result_type((self, other))
    if not is_integral(st, False):        # floating, complex, bool
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dtype_of(st).type_name}'")
    cdef TensorImpl out = pointwise(_lcm_i64 if is_lcm else _gcd_i64, (self, other), ST_INT64, ST_INT64, NULL)
    return out if st == ST_INT64 else cast_contiguous(out, st)


def gcd_cpu(TensorImpl self not None, TensorImpl other not None):
    return _integer_binary("gcd", self, other, False)


def lcm_cpu(TensorImpl self not None, TensorImpl other not None):
    return _integer_binary("lcm", self, other, True)
