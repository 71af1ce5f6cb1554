/* Branch-free float32 exp, exp2, expm1, log, log1p, tanh and erf that gcc vectorises, and the CPU-capability switch.
 *
 * Shared by the softmax rows (nn_vec.h) and the generated pointwise loops
 * (torchgen/targets/cpu_loops.py: a float32 loop whose formula only calls functions of
 * torchgen.formula.VECTOR_FLOAT32 is compiled twice, baseline and AVX2+FMA, and picked at run
 * time by ember_use_avx2(), as PyTorch's CPU capability dispatch picks its SLEEF kernels).
 *
 * The functions here have no target attribute: they are always inlined, so each caller compiles
 * them for its own ISA. Every one is straight-line code: special values (inf, NaN, 0, negative
 * log arguments, overflow, underflow to denormals and 0) come out of clamps and selects, never
 * branches, so a loop calling them vectorises. Largest error against the exact result, over
 * every 61st to 127th float32 bit pattern (test/torch/test_vector_math.py keeps checking it),
 * AVX2+FMA / baseline: exp 0.90 / 1.20 ulp, exp2 0.85 / 1.15, expm1 1.41 / 1.42, log 0.75 /
 * 0.82, log1p 1.44, tanh 1.36 / 1.33, erf 0.97 / 1.18 (glibc: about 0.5; SLEEF u10: 1.0).
 *
 * exp(x) = 2^n * p(r), n = round(x / ln 2), r = x - n ln 2 (|r| <= ln2/2), p a Taylor
 * polynomial of degree 7 (truncation error below 0.1 ulp). n is rounded by adding 1.5 * 2^23,
 * whose low mantissa bits then hold n, so 2^n is built with integer adds and shifts that SSE2
 * and AVX2 have for every lane; it is applied as two factors 2^(n/2) * 2^(n - n/2), so the
 * results near overflow and the denormal results (down to x = -103.97) round once, correctly.
 */
#ifndef EMBER_VEC_MATH_H
#define EMBER_VEC_MATH_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

/* FP exceptions are not observed anywhere in Ember, nor is errno: without this, the selects below
 * would stay branches, since gcc may not execute a possibly trapping operation speculatively, sqrt
 * would keep its errno branch, and no loop calling these would vectorise. Scoped to this header and
 * to nn_vec.h (which includes it). */
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math", "no-math-errno")

#define EMBER_VM_INLINE static inline __attribute__((always_inline))

EMBER_VM_INLINE float ember_vm_f32(int32_t i) { float f; memcpy(&f, &i, 4); return f; }
EMBER_VM_INLINE int32_t ember_vm_i32(float f) { int32_t i; memcpy(&i, &f, 4); return i; }

/* p * 2^n for the integer n held in the low bits of t = n + 1.5 * 2^23, n in [-152, 128]. */
EMBER_VM_INLINE float ember_vm_scale(float p, float t) {
    int32_t n = ember_vm_i32(t) - 0x4B400000;
    int32_t n1 = n >> 1, n2 = n - n1;
    return (p * ember_vm_f32((n1 + 127) << 23)) * ember_vm_f32((n2 + 127) << 23);
}

/* e^r for |r| <= ln2 / 2 (+ a little). */
EMBER_VM_INLINE float ember_vm_exp_poly(float r) {
    return 1.0f + r * (1.0f + r * (0.5f + r * (1.66666666666666667e-1f + r * (4.16666666666666667e-2f
           + r * (8.33333333333333333e-3f + r * (1.38888888888888889e-3f + r * 1.98412698412698413e-4f))))));
}

/* e^xc = p * 2^n: returns p, sets *t = n + 1.5 * 2^23 (see ember_vm_scale). */
EMBER_VM_INLINE float ember_vm_exp_reduce(float xc, float* t) {
    const float magic = 12582912.0f; /* 1.5 * 2^23 */
    *t = xc * 1.44269504088896341f + magic;
    float n = *t - magic;
    float r = xc - n * 0.693145751953125f - n * 1.428606765330187045e-06f;
    return ember_vm_exp_poly(r);
}

EMBER_VM_INLINE float ember_vm_expf(float x) {
    /* Beyond the clamps the result is inf or 0 anyway; NaN passes both (comparisons are false). */
    float xc = x > 88.8f ? 88.8f : x;
    xc = xc < -104.5f ? -104.5f : xc;
    float t, p = ember_vm_exp_reduce(xc, &t);
    return ember_vm_scale(p, t);
}

/* exp with one scaling multiply instead of two, about 15% cheaper, for the softmax rows
 * (nn_vec.h), whose arguments x - max are <= 0: results below 2^-126 give 0 (terms that small
 * do not change the row's sum) and arguments above 88.3 give inf (e^x is within 1.5x of FLT_MAX
 * there; the full ember_vm_expf is exact up to overflow). */
EMBER_VM_INLINE float ember_vm_expf_flush(float x) {
    float xc = x > 88.3f ? 88.3f : x;
    float t, p = ember_vm_exp_reduce(xc, &t);
    float e = p * ember_vm_f32((ember_vm_i32(t) - 0x4B400000 + 127) << 23);
    e = x > 88.3f ? INFINITY : e;
    return x < -87.33654475f ? 0.0f : e;
}

EMBER_VM_INLINE float ember_vm_exp2f(float x) {
    const float magic = 12582912.0f;
    float xc = x > 128.5f ? 128.5f : x;
    xc = xc < -151.0f ? -151.0f : xc;
    float t = xc + magic;
    float f = xc - (t - magic); /* exact, |f| <= 1/2 */
    /* 2^f = e^(f ln 2): Taylor coefficients ln2^k / k! */
    float p = 1.0f + f * (6.93147180559945309e-1f + f * (2.40226506959100712e-1f + f * (5.55041086648215800e-2f
              + f * (9.61812910762847717e-3f + f * (1.33335581464284434e-3f + f * (1.54035303933816099e-4f
              + f * 1.52527338040598403e-5f))))));
    return ember_vm_scale(p, t);
}

/* e^x - 1 = 2^n (e^r - 1) + (2^n - 1) with n, r as for exp: no cancellation for small x (n = 0,
 * r = x) and 2^n - 1 exact; e^r - 1 a Taylor polynomial of degree 9. Above 80 it is e^x (the -1
 * is below half an ulp), below -87 it is -1; -0 stays -0. */
EMBER_VM_INLINE float ember_vm_expm1f(float x) {
    float xc = x > 80.0f ? 80.0f : x;
    xc = xc < -87.0f ? -87.0f : xc;
    const float magic = 12582912.0f;
    float t = xc * 1.44269504088896341f + magic;
    float n = t - magic;
    float r = xc - n * 0.693145751953125f - n * 1.428606765330187045e-06f;
    float em1 = r + r * r * (0.5f + r * (1.66666666666666667e-1f + r * (4.16666666666666667e-2f
                + r * (8.33333333333333333e-3f + r * (1.38888888888888889e-3f + r * (1.98412698412698413e-4f
                + r * (2.48015873015873016e-5f + r * 2.75573192239858907e-6f)))))));
    float s = ember_vm_f32((ember_vm_i32(t) - 0x4B400000 + 127) << 23);
    float e = s * em1 + (s - 1.0f);
    e = x > 80.0f ? ember_vm_expf(x) : e;
    return x == 0.0f ? x : e;
}

/* log(x) as musl's logf (FreeBSD's e_logf.c): x = 2^k * m, m in [sqrt(1/2), sqrt(2)), f = m - 1,
 * s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)); the branches for denormal,
 * zero, negative, inf and NaN arguments are selects. */
EMBER_VM_INLINE float ember_vm_logf(float x) {
    int sub = x < 1.17549435e-38f;                      /* denormal (or 0 or negative): scale up */
    float xs = sub ? x * 33554432.0f : x;               /* 2^25 */
    uint32_t ix = (uint32_t)ember_vm_i32(xs) + (0x3f800000 - 0x3f3504f3);
    int32_t k = (int32_t)(ix >> 23) - 0x7f - (sub ? 25 : 0);
    float f = ember_vm_f32((int32_t)((ix & 0x007fffff) + 0x3f3504f3)) - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s, w = z * z;
    float t1 = w * (0x1.999c26p-2f /* 0.40000972152 */ + w * 0x1.f13c4cp-3f /* 0.24279078841 */);
    float t2 = z * (0x1.555554p-1f /* 0.66666662693 */ + w * 0x1.23d3dcp-2f /* 0.28498786688 */);
    float hfsq = 0.5f * f * f, dk = (float)k;
    float r = s * (hfsq + (t2 + t1)) + dk * 9.0580006145e-06f - hfsq + f + dk * 6.9313812256e-01f;
    r = x == INFINITY ? INFINITY : r;
    r = x == 0.0f ? -INFINITY : r;
    return x >= 0.0f ? r : NAN;                          /* negative or NaN */
}

/* log(1 + x) = log(u) + c / u, u = 1 + x rounded, c = x - (u - 1) its rounding error (exact
 * for u below 2^24; above, c / u is below the result's ulp); x when u - 1 is 0 (|x| below half
 * an ulp of 1: -0 stays -0). */
EMBER_VM_INLINE float ember_vm_log1pf(float x) {
    float u = 1.0f + x;
    float d = u - 1.0f;
    float r = ember_vm_logf(u) + (x - d) / u;
    r = d == 0.0f ? x : r;
    r = x == -1.0f ? -INFINITY : r;                      /* (x - d) / u would be 0 / 0 */
    return x == INFINITY ? x : r;
}

/* tanh: |x| < 0.625: |x| + |x|^3 P(x^2) (a least-squares fit of relative error on Chebyshev
 * nodes), else 1 - 2 / (e^(2|x|) + 1); the sign put back last (-0 stays -0, NaN stays NaN). */
EMBER_VM_INLINE float ember_vm_tanhf(float x) {
    float ax = fabsf(x);
    float z = ax * ax;
    float small = ax + ax * z * (-3.333333135e-01f + z * (1.333320588e-01f + z * (-5.394676328e-02f
                  + z * (2.170070447e-02f + z * (-8.177400567e-03f + z * 2.142963698e-03f)))));
    float big = 1.0f - 2.0f / (ember_vm_expf(2.0f * ax) + 1.0f);
    return copysignf(ax < 0.625f ? small : big, x);
}

/* erf: |x| < 0.875: |x| + |x| Q(x^2); |x| < 3.92: 1 - e^(-x^2) G(|x|), G ~ erfc(x) e^(x^2) a
 * polynomial in |x| - 2.40625 (least-squares fits of the relative, resp. absolute, error on
 * Chebyshev nodes); beyond, 1 (erfc < half an ulp of 1). The sign put back last. */
EMBER_VM_INLINE float ember_vm_erff(float x) {
    float ax = fabsf(x);
    float z = ax * ax;
    float small = ax + ax * (1.283791512e-01f + z * (-3.761255741e-01f + z * (1.128252447e-01f
                  + z * (-2.679396980e-02f + z * (5.035891663e-03f + z * -6.222516531e-04f)))));
    float u = ax - 2.40625f;
    float g = 2.180023938e-01f + u * (-7.924569398e-02f + u * (2.731083333e-02f + u * (-8.996622637e-03f
              + u * (2.917310223e-03f + u * (-7.360609015e-04f + u * (2.805700060e-04f + u * (-1.772571850e-04f
              + u * (-8.224664634e-05f + u * -3.806794484e-05f))))))));
    float big = 1.0f - ember_vm_expf(-z) * g;
    float r = ax < 0.875f ? small : big;
    r = ax >= 3.92f ? 1.0f : r;
    return copysignf(r, x);
}

/* Correctly rounded in every ISA, so the same bits as libm's sqrtf, floorf...: vector instructions
 * where the ISA has them (sqrtps everywhere; roundps from SSE4.1, in the AVX2 loops). round is half
 * to even, as sm.round (PyTorch's std::nearbyint). sqrt vectorises only without errno (the
 * pragma above, and the generated loops' own: cpu_vector_loop.c.j2). */
EMBER_VM_INLINE float ember_vm_sqrtf(float x) { return __builtin_sqrtf(x); }
EMBER_VM_INLINE float ember_vm_floorf(float x) { return __builtin_floorf(x); }
EMBER_VM_INLINE float ember_vm_ceilf(float x) { return __builtin_ceilf(x); }
EMBER_VM_INLINE float ember_vm_truncf(float x) { return __builtin_truncf(x); }
EMBER_VM_INLINE float ember_vm_roundf(float x) { return __builtin_nearbyintf(x); }

/* The helpers of scalar_ops.pxd as selects (the same comparisons, so the same results): NaN-propagating
 * maximum and minimum, isnan, and sign (0 for NaN). */
EMBER_VM_INLINE int ember_vm_isnanf(float a) { return a != a; }
EMBER_VM_INLINE float ember_vm_maximumf(float a, float b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
EMBER_VM_INLINE float ember_vm_minimumf(float a, float b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
EMBER_VM_INLINE float ember_vm_signf(float a) { return (float)((0 < a) - (a < 0)); }

/* Elements per block when a generated loop gathers strided operands (torchgen/targets/cpu_loops.py). */
#define EMBER_VM_BLOCK 256

/* The vector code paths (ember_cpu_level below picks one). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define EMBER_HAVE_AVX2 1
#define EMBER_AVX2_ATTR __attribute__((target("avx2,fma")))
/* AVX-512 with 512-bit vectors (gcc's default tuning would keep 256): the same formulas, contracted into
 * FMAs as in the AVX2 build, so each element's bits are the AVX2 build's; 16 lanes per instruction */
#define EMBER_AVX512_ATTR \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,prefer-vector-width=512")))
#endif

/* This CPU's vector level, decided once per module: 2 AVX-512 (F, BW, VL, DQ: what PyTorch requires for
 * its AVX512 capability), 1 AVX2+FMA, 0 the baseline; ATEN_CPU_CAPABILITY=avx2, =default (or =base) asks
 * for less, as PyTorch's variable does. */
static int ember_cpu_level(void) {
#ifdef EMBER_HAVE_AVX2
    static int cached = -1;
    if (cached < 0) {
        const char* env = getenv("ATEN_CPU_CAPABILITY");
        int cap = !env ? 2 : strcmp(env, "default") == 0 || strcmp(env, "base") == 0 ? 0
                  : strcmp(env, "avx2") == 0 ? 1 : 2;
        __builtin_cpu_init();
        int level = !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 0
                    : __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                      && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") ? 2 : 1;
        cached = level < cap ? level : cap;
    }
    return cached;
#else
    return 0;
#endif
}

static int ember_use_avx2(void) { return ember_cpu_level() >= 1; }
static int ember_use_avx512(void) { return ember_cpu_level() >= 2; }

/* The body of an entry point compiled twice, NAME##_avx2 and NAME##_base (no result): the copy this
 * CPU runs (optim_step.h, norm_rows.h, col_sum.h). */
#ifdef EMBER_HAVE_AVX2
#define EMBER_ISA_PICK(NAME, ...) \
    if (ember_use_avx2()) { NAME##_avx2(__VA_ARGS__); return; } NAME##_base(__VA_ARGS__);
#else
#define EMBER_ISA_PICK(NAME, ...) NAME##_base(__VA_ARGS__);
#endif

#pragma GCC pop_options
#endif
