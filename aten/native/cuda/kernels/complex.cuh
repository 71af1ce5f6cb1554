// complex64 / complex128 on the device: ember_complex<float> / <double>, laid out as c10::complex
// (and C99's complex, which the CPU loops use): (real, imaginary), aligned to their size. Arithmetic
// is c10::complex's (the product (ac - bd) + (ad + bc)i, Smith's quotient); the functions that
// ember_pointwise's complex formulas call (torchgen/formula.py COMPLEX_FUNCTIONS, spelt ember_c<name>)
// compute in double for both dtypes, from the real functions with each one's branch cuts as C99 has
// them, so complex64 results are complex128's rounded once.
#pragma once
#include <math.h>

template <typename T> struct alignas(2 * sizeof(T)) ember_complex {
  T re, im;
  ember_complex() = default;    // trivial, so arrays of it can live in shared memory
  __host__ __device__ constexpr ember_complex(T r, T i = T(0)) : re(r), im(i) {}
  template <typename U>
  __host__ __device__ explicit constexpr ember_complex(ember_complex<U> z) : re((T)z.re), im((T)z.im) {}

  friend __host__ __device__ __forceinline__ ember_complex operator+(ember_complex a, ember_complex b) {
    return ember_complex(a.re + b.re, a.im + b.im);
  }
  friend __host__ __device__ __forceinline__ ember_complex operator-(ember_complex a, ember_complex b) {
    return ember_complex(a.re - b.re, a.im - b.im);
  }
  friend __host__ __device__ __forceinline__ ember_complex operator-(ember_complex a) {
    return ember_complex(-a.re, -a.im);
  }
  friend __host__ __device__ __forceinline__ ember_complex operator*(ember_complex a, ember_complex b) {
    return ember_complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
  }
  // Smith's algorithm (c10::complex's): the larger part of the divisor scales the other, so no
  // intermediate overflows where the quotient does not; 0 / 0 gives NaN, x / 0 infinities
  friend __host__ __device__ __forceinline__ ember_complex operator/(ember_complex a, ember_complex b) {
    const T abs_c = b.re < 0 ? -b.re : b.re, abs_d = b.im < 0 ? -b.im : b.im;
    if (abs_c >= abs_d) {
      if (abs_c == T(0) && abs_d == T(0)) return ember_complex(a.re / abs_c, a.im / abs_d);
      const T rat = b.im / b.re, scl = T(1) / (b.re + b.im * rat);
      return ember_complex((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    const T rat = b.re / b.im, scl = T(1) / (b.im + b.re * rat);
    return ember_complex((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
  }
  friend __host__ __device__ __forceinline__ bool operator==(ember_complex a, ember_complex b) {
    return a.re == b.re && a.im == b.im;
  }
  friend __host__ __device__ __forceinline__ bool operator!=(ember_complex a, ember_complex b) { return !(a == b); }
  __host__ __device__ __forceinline__ ember_complex& operator+=(ember_complex b) { return *this = *this + b; }
};

typedef ember_complex<double> ember_cd;

__device__ __forceinline__ double ember_cabs(ember_cd z) { return hypot(z.re, z.im); }
__device__ __forceinline__ double ember_cangle(ember_cd z) { return atan2(z.im, z.re); }
__device__ __forceinline__ ember_cd ember_times_i(ember_cd z) { return ember_cd(-z.im, z.re); }
__device__ __forceinline__ ember_cd ember_times_minus_i(ember_cd z) { return ember_cd(z.im, -z.re); }

__device__ __forceinline__ ember_cd ember_cexp(ember_cd z) {
  if (z.im == 0) return ember_cd(exp(z.re), z.im);    // exact on the real axis, infinities included
  const double e = exp(z.re);
  return ember_cd(e * cos(z.im), e * sin(z.im));
}

__device__ __forceinline__ ember_cd ember_clog(ember_cd z) {
  const double h = hypot(z.re, z.im);
  // near the unit circle log|z| is small: log1p of |z|^2 - 1, formed without cancelling
  const double mag = (h > 0.5 && h < 2.0) ? 0.5 * log1p((z.re - 1) * (z.re + 1) + z.im * z.im) : log(h);
  return ember_cd(mag, atan2(z.im, z.re));
}

// log(1 + u), accurate for small u
__device__ __forceinline__ ember_cd ember_clog1p(ember_cd u) {
  if (hypot(u.re, u.im) >= 0.5) return ember_clog(ember_cd(1 + u.re, u.im));
  return ember_cd(0.5 * log1p(u.re * (2 + u.re) + u.im * u.im), atan2(u.im, 1 + u.re));
}

// the principal root: the real part >= 0, the imaginary part with the sign of z's
__device__ __forceinline__ ember_cd ember_csqrt(ember_cd z) {
  if (z.re == 0 && z.im == 0) return ember_cd(0, z.im);
  if (isinf(z.im)) return ember_cd(INFINITY, z.im);
  const double big = fmax(fabs(z.re), fabs(z.im));
  const double s = big > 1e300 ? 0.25 : 1.0;     // scaled so that |x| + |z| cannot overflow
  const double t = sqrt((fabs(z.re * s) + hypot(z.re * s, z.im * s)) / 2) / sqrt(s);
  if (z.re >= 0) return ember_cd(t, z.im / (2 * t));
  return ember_cd(fabs(z.im) / (2 * t), copysign(t, z.im));
}

__device__ __forceinline__ ember_cd ember_csinh(ember_cd z) {
  if (z.im == 0) return ember_cd(sinh(z.re), z.im);
  return ember_cd(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im));
}
__device__ __forceinline__ ember_cd ember_ccosh(ember_cd z) {
  if (z.im == 0) return ember_cd(cosh(z.re), z.re == 0 ? z.im : copysign(1.0, z.re) * z.im);
  return ember_cd(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im));
}
// Kahan's form: tan(y) and sinh(x) once, no cancellation; beyond |x| = 22, tanh(x) is +-1 in double
__device__ __forceinline__ ember_cd ember_ctanh(ember_cd z) {
  if (fabs(z.re) > 22) return ember_cd(copysign(1.0, z.re), 4 * sin(z.im) * cos(z.im) * exp(-2 * fabs(z.re)));
  if (z.im == 0) return ember_cd(tanh(z.re), z.im);
  const double t = tan(z.im), beta = 1 + t * t, s = sinh(z.re), rho = sqrt(1 + s * s);
  const double d = 1 + beta * s * s;
  return ember_cd(beta * rho * s / d, t / d);
}
// the circular functions from the hyperbolic ones: sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz)
__device__ __forceinline__ ember_cd ember_csin(ember_cd z) {
  return ember_times_minus_i(ember_csinh(ember_times_i(z)));
}
__device__ __forceinline__ ember_cd ember_ccos(ember_cd z) { return ember_ccosh(ember_times_i(z)); }
__device__ __forceinline__ ember_cd ember_ctan(ember_cd z) {
  return ember_times_minus_i(ember_ctanh(ember_times_i(z)));
}

// asinh z = log(z + sqrt(z^2 + 1)) for Re z >= 0 (odd elsewhere), as log1p(z + z^2 / (1 + sqrt(z^2 + 1)))
__device__ __forceinline__ ember_cd ember_casinh(ember_cd z) {
  const bool flip = signbit(z.re);
  const ember_cd w = flip ? -z : z;
  ember_cd r;
  if (hypot(w.re, w.im) > 1e150) {                // w^2 would overflow: asinh w = log(2w) there
    r = ember_clog(w);
    r.re += 0.69314718055994530942;
  } else {
    const ember_cd w2 = w * w;
    r = ember_clog1p(w + w2 / (ember_cd(1) + ember_csqrt(w2 + ember_cd(1))));
  }
  return flip ? -r : r;
}
// Kahan's acosh: log(z + sqrt(z + 1) sqrt(z - 1)), right on both sides of its cut
__device__ __forceinline__ ember_cd ember_cacosh(ember_cd z) {
  if (hypot(z.re, z.im) > 1e150) {
    ember_cd r = ember_clog(z);
    r.re += 0.69314718055994530942;
    if (signbit(z.re) && z.im == 0) r.im = copysign(r.im, z.im);
    return r;
  }
  return ember_clog(z + ember_csqrt(z + ember_cd(1)) * ember_csqrt(z - ember_cd(1)));
}
__device__ __forceinline__ ember_cd ember_catanh(ember_cd z) {
  const ember_cd d = ember_clog1p(z) - ember_clog1p(-z);
  return ember_cd(0.5 * d.re, 0.5 * d.im);
}
// asin z = -i asinh(iz), atan z = -i atanh(iz)
__device__ __forceinline__ ember_cd ember_casin(ember_cd z) {
  return ember_times_minus_i(ember_casinh(ember_times_i(z)));
}
__device__ __forceinline__ ember_cd ember_catan(ember_cd z) {
  return ember_times_minus_i(ember_catanh(ember_times_i(z)));
}
__device__ __forceinline__ ember_cd ember_cacos(ember_cd z) {
  const ember_cd s = ember_casin(z);
  return ember_cd(1.57079632679489661923 - s.re, -s.im);
}

__device__ __forceinline__ ember_cd ember_cpow(ember_cd a, ember_cd b) {
  if (b.re == 0 && b.im == 0) return ember_cd(1);
  if (a.re == 0 && a.im == 0 && b.re > 0) return ember_cd(0);
  return ember_cexp(b * ember_clog(a));
}
__device__ __forceinline__ ember_cd ember_clog2(ember_cd z) {
  const ember_cd l = ember_clog(z);
  return ember_cd(l.re / 0.693147180559945309417232121458176568, l.im / 0.693147180559945309417232121458176568);
}
__device__ __forceinline__ ember_cd ember_clog10(ember_cd z) {
  const ember_cd l = ember_clog(z);
  return ember_cd(l.re / 2.30258509299404568401799145468436421, l.im / 2.30258509299404568401799145468436421);
}

// complex64: the same functions through double, rounded once
#define EMBER_COMPLEX64_VIA_DOUBLE(NAME)                                                           \
  __device__ __forceinline__ ember_complex<float> NAME(ember_complex<float> z) {                 \
    return ember_complex<float>(NAME(ember_cd(z)));                                                \
  }
EMBER_COMPLEX64_VIA_DOUBLE(ember_cexp)
EMBER_COMPLEX64_VIA_DOUBLE(ember_clog)
EMBER_COMPLEX64_VIA_DOUBLE(ember_clog2)
EMBER_COMPLEX64_VIA_DOUBLE(ember_clog10)
EMBER_COMPLEX64_VIA_DOUBLE(ember_csqrt)
EMBER_COMPLEX64_VIA_DOUBLE(ember_csin)
EMBER_COMPLEX64_VIA_DOUBLE(ember_ccos)
EMBER_COMPLEX64_VIA_DOUBLE(ember_ctan)
EMBER_COMPLEX64_VIA_DOUBLE(ember_casin)
EMBER_COMPLEX64_VIA_DOUBLE(ember_cacos)
EMBER_COMPLEX64_VIA_DOUBLE(ember_catan)
EMBER_COMPLEX64_VIA_DOUBLE(ember_csinh)
EMBER_COMPLEX64_VIA_DOUBLE(ember_ccosh)
EMBER_COMPLEX64_VIA_DOUBLE(ember_ctanh)
EMBER_COMPLEX64_VIA_DOUBLE(ember_casinh)
EMBER_COMPLEX64_VIA_DOUBLE(ember_cacosh)
EMBER_COMPLEX64_VIA_DOUBLE(ember_catanh)
#undef EMBER_COMPLEX64_VIA_DOUBLE
__device__ __forceinline__ ember_complex<float> ember_cpow(ember_complex<float> a, ember_complex<float> b) {
  return ember_complex<float>(ember_cpow(ember_cd(a), ember_cd(b)));
}
__device__ __forceinline__ float ember_cabs(ember_complex<float> z) { return (float)ember_cabs(ember_cd(z)); }
__device__ __forceinline__ float ember_cangle(ember_complex<float> z) { return (float)ember_cangle(ember_cd(z)); }

template <typename T> __device__ __forceinline__ ember_complex<T> ember_cconj(ember_complex<T> z) {
  return ember_complex<T>(z.re, -z.im);
}
template <typename T> __device__ __forceinline__ T ember_creal(ember_complex<T> z) { return z.re; }
template <typename T> __device__ __forceinline__ T ember_cimag(ember_complex<T> z) { return z.im; }
// either part NaN / infinite; finite only when both are (PyTorch's isnan, isinf, isfinite)
template <typename T> __device__ __forceinline__ bool ember_cisnan(ember_complex<T> z) {
  return isnan(z.re) || isnan(z.im);
}
template <typename T> __device__ __forceinline__ bool ember_cisinf(ember_complex<T> z) {
  return isinf(z.re) || isinf(z.im);
}
template <typename T> __device__ __forceinline__ bool ember_cisfinite(ember_complex<T> z) {
  return isfinite(z.re) && isfinite(z.im);
}
// sgn: z / |z|, and 0 at 0 (PyTorch's sgn_impl)
template <typename T> __device__ __forceinline__ ember_complex<T> ember_csgn(ember_complex<T> z) {
  const T r = ember_cabs(z);
  return r == T(0) ? ember_complex<T>(0) : ember_complex<T>(z.re / r, z.im / r);
}
