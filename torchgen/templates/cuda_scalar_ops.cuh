// Scalar functions ember_pointwise formulas call: the CUDA twin of
// aten/native/cpu/scalar_ops.pxd (same names and semantics; keep the two in step).
// Included into every generated .cu (which PyCUDA compiles with aten/native/cuda/kernels and the
// repository root on the include path, for bfloat16.cuh, float8.cuh, complex.cuh and the c10 headers
// they include).
// Names carry an ember_ prefix so they never collide with CUDA's math overloads.
// float16, bfloat16 and float8 kernels compute in float (converted as they load), so no helper takes them.
#include <cuda_fp16.h>
#include "half.cuh"
#include "bfloat16.cuh"
#include "float8.cuh"
#include "complex.cuh"
template <typename T> __device__ __forceinline__ constexpr bool ember_signed() { return (T)(-1) < (T)0; }
// a < 0, never compared for an unsigned T (nvcc warns of a pointless comparison there)
template <typename T> __device__ __forceinline__ bool ember_negative(T a) {
    if constexpr (ember_signed<T>()) return a < (T)0;
    else return false;
}

template <typename T> __device__ __forceinline__ T ember_truncdiv(T a, T b) {
    if (b == 0) return 0;
    if (ember_signed<T>() && b == (T)-1) return (T)(0 - a);
    return (T)(a / b);
}
__device__ __forceinline__ float ember_truncdiv(float a, float b) { return truncf(a / b); }
__device__ __forceinline__ double ember_truncdiv(double a, double b) { return trunc(a / b); }

template <typename T> __device__ __forceinline__ T ember_floordiv(T a, T b) {
    if (b == 0) return 0;
    if (ember_signed<T>() && b == (T)-1) return (T)(0 - a);
    T q = (T)(a / b);
    if (a % b != 0 && ember_negative(a) != ember_negative(b)) q -= 1;
    return q;
}
template <typename F> __device__ __forceinline__ F ember_floordiv_float(F a, F b) {
    if (b == 0) return a / b;
    double mod = fmod((double)a, (double)b);
    double div = ((double)a - mod) / (double)b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div != 0) {
        double fl = floor(div);
        if (div - fl > 0.5) fl += 1;
        return (F)fl;
    }
    return (F)copysign(0.0, (double)a / (double)b);
}
__device__ __forceinline__ float ember_floordiv(float a, float b) { return ember_floordiv_float(a, b); }
__device__ __forceinline__ double ember_floordiv(double a, double b) { return ember_floordiv_float(a, b); }

template <typename T> __device__ __forceinline__ T ember_remainder(T a, T b) {
    if (b == 0 || (ember_signed<T>() && b == (T)-1)) return 0;
    T r = a % b;
    if (r != 0 && ember_negative(r) != ember_negative(b)) r += b;
    return r;
}
template <typename F> __device__ __forceinline__ F ember_remainder_float(F a, F b) {
    double m = fmod((double)a, (double)b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return (F)m;
}
__device__ __forceinline__ float ember_remainder(float a, float b) { return ember_remainder_float(a, b); }
__device__ __forceinline__ double ember_remainder(double a, double b) { return ember_remainder_float(a, b); }

template <typename T> __device__ __forceinline__ T ember_fmod(T a, T b) {
    if (b == 0 || (ember_signed<T>() && b == (T)-1)) return 0;
    return a % b;
}
__device__ __forceinline__ float ember_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double ember_fmod(double a, double b) { return fmod(a, b); }

template <typename T> __device__ __forceinline__ T ember_pow(T a, T b) {
    if (ember_negative(b)) {
        if (a == 1) return 1;
        if (a == (T)-1) return (T)((b % 2) != 0 ? -1 : 1);
        return 0;
    }
    T result = 1, base = a;
    long long e = (long long)b;
    while (e) {
        if (e & 1) result = (T)(result * base);
        e >>= 1;
        base = (T)(base * base);
    }
    return result;
}
__device__ __forceinline__ float ember_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double ember_pow(double a, double b) { return pow(a, b); }

template <typename T> __device__ __forceinline__ T ember_abs(T a) { return ember_negative(a) ? (T)(0 - a) : a; }
__device__ __forceinline__ float ember_abs(float a) { return fabsf(a); }
__device__ __forceinline__ double ember_abs(double a) { return fabs(a); }

template <typename T> __device__ __forceinline__ T ember_sign(T a) { return (T)((0 < a) - ember_negative(a)); }

template <typename T> __device__ __forceinline__ T ember_floor(T a) { return a; }
__device__ __forceinline__ float ember_floor(float a) { return floorf(a); }
__device__ __forceinline__ double ember_floor(double a) { return floor(a); }
template <typename T> __device__ __forceinline__ T ember_ceil(T a) { return a; }
__device__ __forceinline__ float ember_ceil(float a) { return ceilf(a); }
__device__ __forceinline__ double ember_ceil(double a) { return ceil(a); }
template <typename T> __device__ __forceinline__ T ember_trunc(T a) { return a; }
__device__ __forceinline__ float ember_trunc(float a) { return truncf(a); }
__device__ __forceinline__ double ember_trunc(double a) { return trunc(a); }
template <typename T> __device__ __forceinline__ T ember_round(T a) { return a; }
__device__ __forceinline__ float ember_round(float a) { return nearbyintf(a); }
__device__ __forceinline__ double ember_round(double a) { return nearbyint(a); }

template <typename T> __device__ __forceinline__ T ember_round_decimals(T a, T decimals) {
    double ten_pow = pow(10.0, fabs((double)decimals));
    if (decimals > 0) return (T)(nearbyint((double)a * ten_pow) / ten_pow);
    return (T)(nearbyint((double)a / ten_pow) * ten_pow);
}

template <typename T> __device__ __forceinline__ T ember_maximum(T a, T b) {
    if (a != a) return a;
    if (b != b) return b;
    return a > b ? a : b;
}
template <typename T> __device__ __forceinline__ T ember_minimum(T a, T b) {
    if (a != a) return a;
    if (b != b) return b;
    return a < b ? a : b;
}
template <typename T> __device__ __forceinline__ T ember_fmax(T a, T b) { return a > b ? a : b; }
__device__ __forceinline__ float ember_fmax(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double ember_fmax(double a, double b) { return fmax(a, b); }
template <typename T> __device__ __forceinline__ T ember_fmin(T a, T b) { return a < b ? a : b; }
__device__ __forceinline__ float ember_fmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double ember_fmin(double a, double b) { return fmin(a, b); }

template <typename T> __device__ __forceinline__ bool ember_isnan(T a) { return a != a; }
template <typename T> __device__ __forceinline__ bool ember_isinf(T a) { return false; }
__device__ __forceinline__ bool ember_isinf(float a) { return ::isinf(a); }
__device__ __forceinline__ bool ember_isinf(double a) { return ::isinf(a); }
template <typename T> __device__ __forceinline__ bool ember_isfinite(T a) { return true; }
__device__ __forceinline__ bool ember_isfinite(float a) { return ::isfinite(a); }
__device__ __forceinline__ bool ember_isfinite(double a) { return ::isfinite(a); }

template <typename T> __device__ __forceinline__ T ember_lshift(T a, T b) {
    if (ember_negative(b) || (long long)b >= (long long)(8 * sizeof(T))) return 0;
    return (T)(a << b);
}
template <typename T> __device__ __forceinline__ T ember_rshift(T a, T b) {
    if (ember_negative(b) || (long long)b >= (long long)(8 * sizeof(T))) return (T)(ember_negative(a) ? -1 : 0);
    return (T)(a >> b);
}

template <typename T> __device__ __forceinline__ T ember_erfinv(T y) { return (T)erfinv((double)y); }
__device__ __forceinline__ float ember_erfinv(float y) { return erfinvf(y); }
