# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Pointwise kernels the formula language cannot spell (they loop per element): digamma,
gcd and lcm. They run on the loop engine (loops.pointwise: broadcasting, strides, threads).

digamma follows the usual method (PyTorch's calc_digamma): the reflection formula below 0,
the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series; poles
(0 and negative integers) give -inf at +0, +inf at -0 and NaN at negative integers, as PyTorch.
gcd and lcm are integer-only (Euclid's algorithm on |a|, |b|), computed in int64 and stored in
the promoted dtype (wrapping as PyTorch's integer arithmetic does).
"""
from libc.math cimport tan, floor, log, NAN, INFINITY, copysign
from libc.stdint cimport int64_t

from c10.scalar_type cimport (ST_BOOL, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_INT64, dtype_of, is_floating,
                              default_float_type)
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport pointwise, cast_contiguous
from aten.native.pointwise_meta cimport result_type
from aten.native.cpu.half import float16_via_float32

cdef double _PI = 3.14159265358979323846


cdef inline double _digamma(double x) noexcept nogil:
    cdef double result = 0.0, z, poly, r
    if x == 0:
        return copysign(INFINITY, -x)
    if x < 0:
        if x == floor(x):
            return NAN
        # psi(1 - x) - psi(x) = pi / tan(pi x)
        r = x - floor(x)
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


@float16_via_float32
def digamma_cpu(TensorImpl self not None):
    cdef int st = self.scalar_type
    if not is_floating(st):
        st = default_float_type()
    if st == ST_FLOAT64:
        return pointwise(_digamma_f64, (self,), ST_FLOAT64, ST_FLOAT64, NULL)
    return pointwise(_digamma_f32, (self,), ST_FLOAT32, ST_FLOAT32, NULL)


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
    if is_floating(st) or st == ST_BOOL:
        raise RuntimeError(f"\"{name}_cpu\" not implemented for '{dtype_of(st).type_name}'")
    cdef TensorImpl out = pointwise(_lcm_i64 if is_lcm else _gcd_i64, (self, other), ST_INT64, ST_INT64, NULL)
    return out if st == ST_INT64 else cast_contiguous(out, st)


def gcd_cpu(TensorImpl self not None, TensorImpl other not None):
    return _integer_binary("gcd", self, other, False)


def lcm_cpu(TensorImpl self not None, TensorImpl other not None):
    return _integer_binary("lcm", self, other, True)
