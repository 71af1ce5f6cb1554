# Scalar functions that ember_pointwise formulas call (torchgen/formula.py HELPERS): one
# definition per function over every dtype with a loop, with PyTorch's semantics per kind
# (integer floor division and remainder as Python's, NaN-propagating maximum, ...).
# aten/native/cuda/scalar_ops.cuh is the CUDA twin: keep the two in step.
# Integer division helpers never trap: a zero divisor gives 0 (kernels raise before the loop)
# and MIN / -1 wraps.
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t
from libc cimport math as libm

from aten.native.cpu.element_types cimport num_t


cdef inline bint _signed_int(num_t a) noexcept nogil:
    return num_t is int8_t or num_t is int16_t or num_t is int32_t or num_t is int64_t


cdef inline num_t truncdiv(num_t a, num_t b) noexcept nogil:
    if num_t is float:
        return libm.truncf(a / b)
    elif num_t is double:
        return libm.trunc(a / b)
    else:
        if b == 0:
            return 0
        if _signed_int(a) and b == <num_t>-1:
            return <num_t>(0 - a)
        return <num_t>(a / b)


cdef inline num_t floordiv(num_t a, num_t b) noexcept nogil:
    cdef num_t q
    cdef double mod, div, fl
    if num_t is float or num_t is double:
        # PyTorch's div_floor_floating: exact for representable quotients, signed zeros kept.
        if b == 0:
            return a / b
        mod = libm.fmod(a, b)
        div = (a - mod) / b
        if mod != 0 and ((b < 0) != (mod < 0)):
            div -= 1
        if div != 0:
            fl = libm.floor(div)
            if div - fl > 0.5:
                fl += 1
            return <num_t>fl
        return <num_t>libm.copysign(0.0, <double>a / <double>b)
    else:
        if b == 0:
            return 0
        if _signed_int(a) and b == <num_t>-1:
            return <num_t>(0 - a)
        q = <num_t>(a / b)
        if _signed_int(a) and a % b != 0 and ((a < 0) != (b < 0)):
            q -= 1
        return q


cdef inline num_t remainder(num_t a, num_t b) noexcept nogil:
    cdef num_t r
    cdef double m
    if num_t is float or num_t is double:
        m = libm.fmod(a, b)
        if m != 0 and ((b < 0) != (m < 0)):
            m += b
        return <num_t>m
    else:
        if b == 0 or (_signed_int(a) and b == <num_t>-1):
            return 0
        r = a % b
        if _signed_int(a) and r != 0 and ((r < 0) != (b < 0)):
            r += b
        return r


cdef inline num_t fmod(num_t a, num_t b) noexcept nogil:
    if num_t is float:
        return libm.fmodf(a, b)
    elif num_t is double:
        return libm.fmod(a, b)
    else:
        if b == 0 or (_signed_int(a) and b == <num_t>-1):
            return 0
        return a % b


cdef inline num_t pow(num_t a, num_t b) noexcept nogil:
    cdef num_t result = 1
    cdef num_t base = a
    cdef int64_t e
    if num_t is float:
        return libm.powf(a, b)
    elif num_t is double:
        return libm.pow(a, b)
    else:
        if _signed_int(a) and b < 0:
            if a == 1:
                return 1
            if a == <num_t>-1:
                return <num_t>(-1 if (b % 2) != 0 else 1)
            return 0
        e = <int64_t>b
        while e:
            if e & 1:
                result = <num_t>(result * base)
            e >>= 1
            base = <num_t>(base * base)
        return result


cdef inline num_t abs(num_t a) noexcept nogil:
    if num_t is float:
        return libm.fabsf(a)
    elif num_t is double:
        return libm.fabs(a)
    elif num_t is uint8_t:
        return a
    else:
        return <num_t>(0 - a) if a < 0 else a


cdef inline num_t sign(num_t a) noexcept nogil:
    if num_t is uint8_t:
        return 1 if a > 0 else 0
    return <num_t>((0 < a) - (a < 0))


cdef inline num_t floor(num_t a) noexcept nogil:
    if num_t is float:
        return libm.floorf(a)
    elif num_t is double:
        return libm.floor(a)
    else:
        return a


cdef inline num_t ceil(num_t a) noexcept nogil:
    if num_t is float:
        return libm.ceilf(a)
    elif num_t is double:
        return libm.ceil(a)
    else:
        return a


cdef inline num_t trunc(num_t a) noexcept nogil:
    if num_t is float:
        return libm.truncf(a)
    elif num_t is double:
        return libm.trunc(a)
    else:
        return a


cdef inline num_t round(num_t a) noexcept nogil:
    """Half to even, as PyTorch (std::nearbyint)."""
    if num_t is float:
        return libm.nearbyintf(a)
    elif num_t is double:
        return libm.nearbyint(a)
    else:
        return a


cdef inline num_t round_decimals(num_t a, num_t decimals) noexcept nogil:
    cdef double ten_pow
    if num_t is float or num_t is double:
        ten_pow = libm.pow(10.0, libm.fabs(decimals))
        if decimals > 0:
            return <num_t>(libm.nearbyint(a * ten_pow) / ten_pow)
        return <num_t>(libm.nearbyint(a / ten_pow) * ten_pow)
    else:
        return a


cdef inline num_t maximum(num_t a, num_t b) noexcept nogil:
    if num_t is float or num_t is double:
        if a != a:
            return a
        if b != b:
            return b
    return a if a > b else b


cdef inline num_t minimum(num_t a, num_t b) noexcept nogil:
    if num_t is float or num_t is double:
        if a != a:
            return a
        if b != b:
            return b
    return a if a < b else b


cdef inline num_t fmax(num_t a, num_t b) noexcept nogil:
    if num_t is float:
        return libm.fmaxf(a, b)
    elif num_t is double:
        return libm.fmax(a, b)
    else:
        return a if a > b else b


cdef inline num_t fmin(num_t a, num_t b) noexcept nogil:
    if num_t is float:
        return libm.fminf(a, b)
    elif num_t is double:
        return libm.fmin(a, b)
    else:
        return a if a < b else b


cdef inline bint isnan(num_t a) noexcept nogil:
    if num_t is float or num_t is double:
        return a != a
    return False


cdef inline bint isinf(num_t a) noexcept nogil:
    if num_t is float or num_t is double:
        return libm.isinf(a)
    return False


cdef inline bint isfinite(num_t a) noexcept nogil:
    if num_t is float or num_t is double:
        return libm.isfinite(a)
    return True


cdef inline num_t lshift(num_t a, num_t b) noexcept nogil:
    if num_t is float or num_t is double:
        return 0
    else:
        if b < 0 or <int64_t>b >= <int64_t>(8 * sizeof(num_t)):
            return 0
        return <num_t>(a << b)


cdef inline num_t rshift(num_t a, num_t b) noexcept nogil:
    if num_t is float or num_t is double:
        return 0
    else:
        if b < 0 or <int64_t>b >= <int64_t>(8 * sizeof(num_t)):
            return <num_t>(-1 if a < 0 else 0)
        return <num_t>(a >> b)


cdef inline num_t erfinv(num_t y) noexcept nogil:
    """Giles' approximation refined by two Newton steps on erf (double precision throughout)."""
    cdef double x, w, p, yy = y
    if num_t is float or num_t is double:
        if yy != yy or yy < -1 or yy > 1:
            return <num_t>libm.NAN
        if yy == 1:
            return <num_t>libm.INFINITY
        if yy == -1:
            return <num_t>(-libm.INFINITY)
        w = -libm.log((1.0 - yy) * (1.0 + yy))
        if w < 5.0:
            w = w - 2.5
            p = 2.81022636e-08
            p = 3.43273939e-07 + p * w
            p = -3.5233877e-06 + p * w
            p = -4.39150654e-06 + p * w
            p = 0.00021858087 + p * w
            p = -0.00125372503 + p * w
            p = -0.00417768164 + p * w
            p = 0.246640727 + p * w
            p = 1.50140941 + p * w
        else:
            w = libm.sqrt(w) - 3.0
            p = -0.000200214257
            p = 0.000100950558 + p * w
            p = 0.00134934322 + p * w
            p = -0.00367342844 + p * w
            p = 0.00573950773 + p * w
            p = -0.0076224613 + p * w
            p = 0.00943887047 + p * w
            p = 1.00167406 + p * w
            p = 2.83297682 + p * w
        x = p * yy
        x -= (libm.erf(x) - yy) / (1.1283791670955126 * libm.exp(-x * x))
        x -= (libm.erf(x) - yy) / (1.1283791670955126 * libm.exp(-x * x))
        return <num_t>x
    else:
        return 0
