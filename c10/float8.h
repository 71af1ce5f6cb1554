/* The four float8 storage formats, each a struct holding its byte so that no C arithmetic or
 * implicit conversion touches it by accident; loops convert through float with the functions
 * below, which give PyTorch's CPU conversions bit for bit (test/data/dtypes/casts.npz):
 *
 *   e5m2      IEEE-style: infinities and NaNs; overflow rounds to infinity
 *   e4m3fn    no infinities, NaN is S.1111.111; every overflow and infinity saturates to +-448
 *   e4m3fnuz  no infinities, no negative zero, the one NaN is 0x80 (exponent bias 8); overflow
 *   e5m2fnuz  past the largest value by half an ulp or more is NaN (exponent bias 16)
 *
 * Rounding is to nearest, ties to even, subnormals included. */
#ifndef EMBER_FLOAT8_H
#define EMBER_FLOAT8_H
#include <math.h>
#include <stdint.h>
#include <string.h>

/* CUDA sources define EMBER_INLINE as __device__ __forceinline__ first (kernels/float8.cuh). */
#ifndef EMBER_INLINE
#define EMBER_INLINE static inline
#endif

typedef struct { uint8_t x; } ember_e5m2;
typedef struct { uint8_t x; } ember_e4m3fn;
typedef struct { uint8_t x; } ember_e5m2fnuz;
typedef struct { uint8_t x; } ember_e4m3fnuz;

enum { EMBER_FP8_IEEE, EMBER_FP8_FN, EMBER_FP8_FNUZ };

EMBER_INLINE float ember_fp8_bits_as_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* NaNs decode with PyTorch's payloads: the format's mantissa moved to the top of float's (e5m2 as
 * the float16 it is the upper half of converts: quieted), and fnuz's one NaN as 0x7F800001. */
EMBER_INLINE float ember_fp8_decode(uint8_t v, int mbits, int bias, int kind) {
    int sign = v >> 7, field = (v >> mbits) & ((1 << (7 - mbits)) - 1), mant = v & ((1 << mbits) - 1);
    int top = (1 << (7 - mbits)) - 1;
    uint32_t nan = ((uint32_t)sign << 31) | 0x7F800000u | ((uint32_t)mant << (23 - mbits));
    float magnitude;
    if (kind == EMBER_FP8_FNUZ && v == 0x80)
        return ember_fp8_bits_as_float(0x7F800001u);
    if (kind == EMBER_FP8_IEEE && field == top)
        return mant ? ember_fp8_bits_as_float(nan | 0x400000u) : (sign ? -INFINITY : INFINITY);
    if (kind == EMBER_FP8_FN && field == top && mant == (1 << mbits) - 1)
        return ember_fp8_bits_as_float(nan);
    magnitude = field ? ldexpf(1.0f + (float)mant / (float)(1 << mbits), field - bias)
                      : ldexpf((float)mant / (float)(1 << mbits), 1 - bias);
    return sign ? -magnitude : magnitude;
}

EMBER_INLINE uint8_t ember_fp8_encode(float f, int mbits, int bias, int kind, float largest, uint8_t largest_code) {
    uint8_t sign = signbit(f) ? 0x80 : 0;
    double a = fabs((double)f), q, r;
    int e, field;
    if (isnan(f))
        return kind == EMBER_FP8_FNUZ ? 0x80 : (uint8_t)(sign | 0x7F);
    if (isinf(f)) {
        if (kind == EMBER_FP8_IEEE) return (uint8_t)(sign | ((0x7F >> mbits) << mbits));
        return kind == EMBER_FP8_FN ? (uint8_t)(sign | largest_code) : 0x80;
    }
    if (a == 0.0)
        return kind == EMBER_FP8_FNUZ ? 0 : sign;
    frexp(a, &e);                                    /* a = m * 2^e, m in [0.5, 1) */
    e -= 1;                                          /* a in [2^e, 2^(e+1)) */
    if (e < 1 - bias) e = 1 - bias;                  /* subnormals share the smallest normal's spacing */
    q = ldexp(1.0, e - mbits);
    r = nearbyint(a / q) * q;                        /* round to nearest, ties to even (the default mode) */
    if (r > (double)largest) {
        if (kind == EMBER_FP8_IEEE) return (uint8_t)(sign | ((0x7F >> mbits) << mbits));
        return kind == EMBER_FP8_FN ? (uint8_t)(sign | largest_code) : 0x80;
    }
    if (r == 0.0)
        return kind == EMBER_FP8_FNUZ ? 0 : sign;
    frexp(r, &e);
    e -= 1;
    if (e < 1 - bias)                                /* subnormal: the mantissa counts the spacing */
        return (uint8_t)(sign | (uint8_t)(r / ldexp(1.0, 1 - bias - mbits)));
    field = e + bias;
    return (uint8_t)(sign | (field << mbits) | (int)(r / ldexp(1.0, e - mbits) - (1 << mbits)));
}

EMBER_INLINE float ember_e5m2_to_float(ember_e5m2 v) { return ember_fp8_decode(v.x, 2, 15, EMBER_FP8_IEEE); }
EMBER_INLINE float ember_e4m3fn_to_float(ember_e4m3fn v) { return ember_fp8_decode(v.x, 3, 7, EMBER_FP8_FN); }
EMBER_INLINE float ember_e5m2fnuz_to_float(ember_e5m2fnuz v) { return ember_fp8_decode(v.x, 2, 16, EMBER_FP8_FNUZ); }
EMBER_INLINE float ember_e4m3fnuz_to_float(ember_e4m3fnuz v) { return ember_fp8_decode(v.x, 3, 8, EMBER_FP8_FNUZ); }

EMBER_INLINE ember_e5m2 ember_float_to_e5m2(float f) {
    ember_e5m2 r; r.x = ember_fp8_encode(f, 2, 15, EMBER_FP8_IEEE, 57344.0f, 0x7B); return r;
}
EMBER_INLINE ember_e4m3fn ember_float_to_e4m3fn(float f) {
    ember_e4m3fn r; r.x = ember_fp8_encode(f, 3, 7, EMBER_FP8_FN, 448.0f, 0x7E); return r;
}
EMBER_INLINE ember_e5m2fnuz ember_float_to_e5m2fnuz(float f) {
    ember_e5m2fnuz r; r.x = ember_fp8_encode(f, 2, 16, EMBER_FP8_FNUZ, 57344.0f, 0x7F); return r;
}
EMBER_INLINE ember_e4m3fnuz ember_float_to_e4m3fnuz(float f) {
    ember_e4m3fnuz r; r.x = ember_fp8_encode(f, 3, 8, EMBER_FP8_FNUZ, 240.0f, 0x7F); return r;
}
#endif
