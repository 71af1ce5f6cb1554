/* The row loops of layer norm and its backward (aten/native/cpu/norm.pyx), in C so that each compiles
 * twice: for the baseline ISA and, chosen at run time by ember_use_avx2(), for AVX2 (without FMA, so
 * that no multiply-add is contracted and both copies give the same bits). Statistics and the sums of
 * the backward are accumulated in double over 16 independent lanes (EMBER_SUM16): the loops
 * vectorise, and the order of additions is fixed by the row length alone.
 *
 * ember_ln_row_T: y = (x - mean) * rstd * w + b (either may be NULL) in the element type, with mean
 * and rstd = 1 / sqrt(biased variance + eps) written to *mean_out, *rstd_out.
 * ember_ln_grad_row_T: dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w (g where w is
 * NULL), xhat = (x - mean) * rstd: the two means in double, then per element in the element type.
 * ember_ln_grad_weight_rows_T: acc[i] += g[r, i] * (x[r, i] - mean[r]) * rstd[r] over rows [lo, hi). */
#ifndef EMBER_NORM_ROWS_H
#define EMBER_NORM_ROWS_H
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "aten/native/cpu/vec_math.h"

/* Four double lanes (GCC vector extensions: the same lane arithmetic on every ISA, so the base and
 * AVX2 copies agree bit for bit), loaded from 4 elements of either type. */
typedef double ember_v4d __attribute__((vector_size(32)));
typedef float ember_v4f __attribute__((vector_size(16)));
#define EMBER_NORM_INLINE static inline __attribute__((always_inline))
EMBER_NORM_INLINE ember_v4d ember_ld4d_f32(const float* p) {
    ember_v4f v; memcpy(&v, p, sizeof v); return __builtin_convertvector(v, ember_v4d); }
EMBER_NORM_INLINE ember_v4d ember_ld4d_f64(const double* p) { ember_v4d v; memcpy(&v, p, sizeof v); return v; }
/* g * w rounded to the element type (g where w is NULL), widened */
EMBER_NORM_INLINE ember_v4d ember_gw4d_f32(const float* g, const float* w) {
    ember_v4f gv, wv; memcpy(&gv, g, sizeof gv);
    if (w) { memcpy(&wv, w, sizeof wv); gv = gv * wv; }
    return __builtin_convertvector(gv, ember_v4d); }
EMBER_NORM_INLINE ember_v4d ember_gw4d_f64(const double* g, const double* w) {
    return w ? ember_ld4d_f64(g) * ember_ld4d_f64(w) : ember_ld4d_f64(g); }
/* The total of 16 lanes (four vectors) and a 16-element tail: the tail added lane-wise, the lanes
 * vector-wise (0 + 1) + (2 + 3), then the four sums as a tree. */
EMBER_NORM_INLINE double ember_sum16(ember_v4d s0, ember_v4d s1, ember_v4d s2, ember_v4d s3, const double* tail) {
    s0 += ember_ld4d_f64(tail); s1 += ember_ld4d_f64(tail + 4);
    s2 += ember_ld4d_f64(tail + 8); s3 += ember_ld4d_f64(tail + 12);
    ember_v4d t = (s0 + s1) + (s2 + s3);
    return (t[0] + t[1]) + (t[2] + t[3]); }

/* Sixteen double lanes as four vectors (four independent add chains: the loops run at the adders'
 * throughput, not their latency), lane j taking elements j, j + 16, ..., totalled by ember_sum16.
 * TERM(j) is the v4d of elements j..j+3,
 * STERM(j) the same as a double for one element (the tail, padded with zeros). */
#define EMBER_SUM16(RESULT, n, TERM, STERM)                                                            \
    do {                                                                                               \
        ember_v4d s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;                                        \
        double tail_[16] = {0};                                                                        \
        ptrdiff_t j_, m_ = (n) - (n) % 16;                                                             \
        for (j_ = 0; j_ < m_; j_ += 16) {                                                              \
            s0 += TERM(j_); s1 += TERM(j_ + 4); s2 += TERM(j_ + 8); s3 += TERM(j_ + 12);               \
        }                                                                                              \
        for (j_ = m_; j_ < (n); j_++) tail_[j_ - m_] = STERM(j_);                                      \
        RESULT = ember_sum16(s0, s1, s2, s3, tail_);                                                   \
    } while (0)

/* The loads by element type, and the summed terms of the rows below in the row functions' own names. */
#define EMBER_LD4D(p) _Generic((p), const float*: ember_ld4d_f32, const double*: ember_ld4d_f64)(p)
#define EMBER_GW4D(g, w) _Generic((g), const float*: ember_gw4d_f32, const double*: ember_gw4d_f64)(g, w)
#define EMBER_LN_X4(j) EMBER_LD4D(x + (j))
#define EMBER_LN_X1(j) ((double)x[j])
#define EMBER_LN_D4(j) ((EMBER_LD4D(x + (j)) - mean) * (EMBER_LD4D(x + (j)) - mean))
#define EMBER_LN_D1(j) (((double)x[j] - mean) * ((double)x[j] - mean))
#define EMBER_LN_G4(j) EMBER_GW4D(g + (j), w ? w + (j) : w)
#define EMBER_LN_G1(j) (w ? (double)(g[j] * w[j]) : (double)g[j])
#define EMBER_LN_GX1(j) (EMBER_LN_G1(j) * (((double)x[j] - mean) * rstd))

#define EMBER_NORM_ROWS(T, S, ISA, ATTR)                                                               \
    ATTR static void ember_ln_row_##S##_##ISA(const T* x, T* y, ptrdiff_t n, const T* w, const T* b,  \
                                              double eps, T* mean_out, T* rstd_out) {                 \
        double mean, var, rstd;                                                                        \
        ptrdiff_t i;                                                                                   \
        EMBER_SUM16(mean, n, EMBER_LN_X4, EMBER_LN_X1);                                                \
        mean /= n;                                                                                     \
        EMBER_SUM16(var, n, EMBER_LN_D4, EMBER_LN_D1);                                                 \
        rstd = 1.0 / sqrt(var / n + eps);                                                              \
        *mean_out = (T)mean;                                                                           \
        *rstd_out = (T)rstd;                                                                           \
        const T mu = (T)mean, rs = (T)rstd;                                                            \
        if (w && b) for (i = 0; i < n; i++) y[i] = (x[i] - mu) * rs * w[i] + b[i];                     \
        else if (w) for (i = 0; i < n; i++) y[i] = (x[i] - mu) * rs * w[i];                            \
        else if (b) for (i = 0; i < n; i++) y[i] = (x[i] - mu) * rs + b[i];                            \
        else for (i = 0; i < n; i++) y[i] = (x[i] - mu) * rs;                                          \
    }                                                                                                  \
    ATTR static void ember_ln_grad_row_##S##_##ISA(const T* g, const T* x, const T* w, T* dx,          \
                                                   ptrdiff_t n, double mean, double rstd) {            \
        ember_v4d a0 = {0, 0, 0, 0}, a1 = a0, a2 = a0, a3 = a0, c0 = a0, c1 = a0, c2 = a0, c3 = a0;    \
        double mg, mgx, ta[16] = {0}, tc[16] = {0};                                                    \
        ptrdiff_t i, m = n - n % 16;                                                                   \
        /* both sums in one pass, each over 16 lanes as EMBER_SUM16 adds them */                       \
        for (i = 0; i < m; i += 16) {                                                                  \
            ember_v4d g0 = EMBER_LN_G4(i), g1 = EMBER_LN_G4(i + 4);                                    \
            ember_v4d g2 = EMBER_LN_G4(i + 8), g3 = EMBER_LN_G4(i + 12);                               \
            a0 += g0; a1 += g1; a2 += g2; a3 += g3;                                                    \
            c0 += g0 * ((EMBER_LD4D(x + i) - mean) * rstd);                                            \
            c1 += g1 * ((EMBER_LD4D(x + i + 4) - mean) * rstd);                                       \
            c2 += g2 * ((EMBER_LD4D(x + i + 8) - mean) * rstd);                                        \
            c3 += g3 * ((EMBER_LD4D(x + i + 12) - mean) * rstd);                                       \
        }                                                                                              \
        for (i = m; i < n; i++) { ta[i - m] = EMBER_LN_G1(i); tc[i - m] = EMBER_LN_GX1(i); }           \
        mg = ember_sum16(a0, a1, a2, a3, ta) / n;                                                      \
        mgx = ember_sum16(c0, c1, c2, c3, tc) / n;                                                     \
        /* rstd * (gw - mg - xhat * mgx) = rstd * gw + (x - mean) * (-rstd^2 mgx) - rstd * mg */      \
        const T mu = (T)mean, a = (T)rstd, bx = (T)(-rstd * rstd * mgx), c = (T)(-rstd * mg);          \
        if (w) for (i = 0; i < n; i++) dx[i] = a * (g[i] * w[i]) + (x[i] - mu) * bx + c;               \
        else for (i = 0; i < n; i++) dx[i] = a * g[i] + (x[i] - mu) * bx + c;                          \
    }                                                                                                  \
    ATTR static void ember_ln_grad_weight_rows_##S##_##ISA(const T* g, const T* x, const T* mean,      \
                                                           const T* rstd, double* acc, ptrdiff_t lo,   \
                                                           ptrdiff_t hi, ptrdiff_t n) {                \
        for (ptrdiff_t r = lo; r < hi; r++) {                                                          \
            const double mu = mean[r], rs = rstd[r];                                                   \
            const T* gr = g + r * n;                                                                   \
            const T* xr = x + r * n;                                                                   \
            for (ptrdiff_t i = 0; i < n; i++) acc[i] += gr[i] * ((xr[i] - mu) * rs);                  \
        }                                                                                              \
    }

EMBER_NORM_ROWS(float, f32, base, )
EMBER_NORM_ROWS(double, f64, base, )
#ifdef EMBER_HAVE_AVX2
EMBER_NORM_ROWS(float, f32, avx2, __attribute__((target("avx2"))))
EMBER_NORM_ROWS(double, f64, avx2, __attribute__((target("avx2"))))
#endif

#define EMBER_NORM_ENTRIES(T, S)                                                                       \
    static void ember_ln_row_##S(const T* x, T* y, ptrdiff_t n, const T* w, const T* b, double eps,    \
                                 T* mean_out, T* rstd_out) {                                           \
        EMBER_ISA_PICK(ember_ln_row_##S, x, y, n, w, b, eps, mean_out, rstd_out) }                    \
    static void ember_ln_grad_row_##S(const T* g, const T* x, const T* w, T* dx, ptrdiff_t n,          \
                                      double mean, double rstd) {                                      \
        EMBER_ISA_PICK(ember_ln_grad_row_##S, g, x, w, dx, n, mean, rstd) }                           \
    static void ember_ln_grad_weight_rows_##S(const T* g, const T* x, const T* mean, const T* rstd,    \
                                              double* acc, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t n) {  \
        EMBER_ISA_PICK(ember_ln_grad_weight_rows_##S, g, x, mean, rstd, acc, lo, hi, n) }

EMBER_NORM_ENTRIES(float, f32)
EMBER_NORM_ENTRIES(double, f64)

#endif
