/* Vectorisable exp and the softmax rows built on it.
 *
 * float: ember_vm_expf_flush of vec_math.h (shared with the generated pointwise loops, with the
 * CPU-capability switch ember_use_avx2). double: exp(x) = 2^n * p(r), n = round(x / ln 2),
 * r = x - n ln 2 (|r| <= ln2/2), p a Taylor polynomial of degree 13 (truncation error below
 * half an ulp). n is rounded by adding 1.5 * 2^52, whose low mantissa bits then hold n, so 2^n
 * is built with integer adds and shifts that SSE2 and AVX2 have for every lane width: gcc
 * vectorises every loop here without -ffast-math. Double inputs below the smallest normal
 * result give 0 (exact for -inf, the masks of attention), NaN stays NaN.
 *
 * Sums use `omp simd reduction` so gcc may reorder them into vector lanes (-fopenmp).
 */
#ifndef EMBER_NN_VEC_H
#define EMBER_NN_VEC_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stddef.h>
#include <stdlib.h>
#include "vec_math.h"

/* FP exceptions are not observed anywhere in Ember: without this, the selects below (the
 * underflow to 0) would stay branches, since gcc may not execute a possibly trapping operation
 * speculatively, and no loop here would vectorise. Scoped to this header. */
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")

typedef struct {
    void (*softmax_row_f)(const float*, float*, Py_ssize_t);
    void (*softmax_row_d)(const double*, double*, Py_ssize_t);
    void (*log_softmax_row_f)(const float*, float*, Py_ssize_t);
    void (*log_softmax_row_d)(const double*, double*, Py_ssize_t);
    void (*softmax_cols_f)(const float*, float*, Py_ssize_t, Py_ssize_t, Py_ssize_t, int);
    void (*softmax_cols_d)(const double*, double*, Py_ssize_t, Py_ssize_t, Py_ssize_t, int);
    void (*exp_f)(const float*, float*, Py_ssize_t);
    void (*exp_d)(const double*, double*, Py_ssize_t);
    void (*softmax_grad_f)(const float*, const float*, float*, Py_ssize_t, Py_ssize_t, Py_ssize_t, int);
    void (*softmax_grad_d)(const double*, const double*, double*, Py_ssize_t, Py_ssize_t, Py_ssize_t, int);
} ember_vec_table;

#define EMBER_COLS 256

#define EMBER_VEC_DEFINE(SUF, ATTR)                                                              \
ATTR static inline double ember_exp_##SUF(double x) {                                             \
    const double magic = 6755399441055744.0; /* 1.5 * 2^52 */                                      \
    double xc = x > 709.0 ? 709.0 : x;                                                             \
    double t = xc * 1.4426950408889634074 + magic;                                                 \
    double n = t - magic;                                                                          \
    double r = xc - n * 6.93147180369123816490e-01 - n * 1.90821492927058770002e-10;              \
    double p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120       \
               + r * (1.0 / 720 + r * (1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880           \
               + r * (1.0 / 3628800 + r * (1.0 / 39916800 + r * (1.0 / 479001600                   \
               + r * (1.0 / 6227020800.0)))))))))))));                                              \
    int64_t ti; memcpy(&ti, &t, 8);                                                                \
    int64_t si = (ti - 0x4338000000000000LL + 1023) << 52;                                         \
    double s; memcpy(&s, &si, 8);                                                                  \
    double e = p * s;                                                                              \
    e = x > 709.782712893384 ? INFINITY : e;                                                      \
    return x < -708.3964185322641 ? 0.0 : e;                                                       \
}                                                                                                 \
ATTR static void ember_exp_f_##SUF(const float* x, float* y, Py_ssize_t n) {                       \
    for (Py_ssize_t i = 0; i < n; i++) y[i] = ember_vm_expf(x[i]);                                 \
}                                                                                                 \
ATTR static void ember_exp_d_##SUF(const double* x, double* y, Py_ssize_t n) {                     \
    for (Py_ssize_t i = 0; i < n; i++) y[i] = ember_exp_##SUF(x[i]);                               \
}                                                                                                 \
EMBER_ROWS(SUF, ATTR, float, f, ember_vm_expf_flush, logf)                                       \
EMBER_ROWS(SUF, ATTR, double, d, ember_exp_##SUF, log)

#define EMBER_ROWS(SUF, ATTR, T, TS, EXP, LOG)                                                   \
ATTR static inline T ember_rowmax_##TS##_##SUF(const T* x, Py_ssize_t n) {                        \
    T m = x[0];                                                                                    \
    _Pragma("omp simd reduction(max:m)")                                                          \
    for (Py_ssize_t i = 1; i < n; i++) m = x[i] > m ? x[i] : m;                                    \
    return m;                                                                                      \
}                                                                                                 \
ATTR static void ember_softmax_row_##TS##_##SUF(const T* x, T* y, Py_ssize_t n) {                  \
    T m = ember_rowmax_##TS##_##SUF(x, n), s = 0;                                                  \
    _Pragma("omp simd reduction(+:s)")                                                            \
    for (Py_ssize_t i = 0; i < n; i++) { T e = EXP(x[i] - m); y[i] = e; s += e; }                  \
    T inv = (T)1 / s;                                                                              \
    for (Py_ssize_t i = 0; i < n; i++) y[i] *= inv;                                                \
}                                                                                                 \
ATTR static void ember_log_softmax_row_##TS##_##SUF(const T* x, T* y, Py_ssize_t n) {              \
    T m = ember_rowmax_##TS##_##SUF(x, n), s = 0;                                                  \
    _Pragma("omp simd reduction(+:s)")                                                            \
    for (Py_ssize_t i = 0; i < n; i++) s += EXP(x[i] - m);                                         \
    T ls = LOG(s); /* (x - max) - log(sum): no cancellation against a huge max */                  \
    for (Py_ssize_t i = 0; i < n; i++) y[i] = (x[i] - m) - ls;                                     \
}                                                                                                 \
/* softmax along a strided dim for w (<= EMBER_COLS) adjacent columns: x[j * stride + c] */        \
ATTR static void ember_softmax_cols_##TS##_##SUF(const T* x, T* y, Py_ssize_t n, Py_ssize_t stride, \
                                                 Py_ssize_t w, int log_) {                          \
    T m[EMBER_COLS], s[EMBER_COLS];                                                                \
    for (Py_ssize_t c = 0; c < w; c++) { m[c] = x[c]; s[c] = 0; }                                  \
    for (Py_ssize_t j = 1; j < n; j++) {                                                           \
        const T* xr = x + j * stride;                                                              \
        for (Py_ssize_t c = 0; c < w; c++) m[c] = xr[c] > m[c] ? xr[c] : m[c];                     \
    }                                                                                              \
    for (Py_ssize_t j = 0; j < n; j++) {                                                           \
        const T* xr = x + j * stride; T* yr = y + j * stride;                                      \
        if (log_) { for (Py_ssize_t c = 0; c < w; c++) s[c] += EXP(xr[c] - m[c]); }                \
        else { for (Py_ssize_t c = 0; c < w; c++) { T e = EXP(xr[c] - m[c]); yr[c] = e; s[c] += e; } } \
    }                                                                                              \
    if (log_) {                                                                                    \
        for (Py_ssize_t c = 0; c < w; c++) s[c] = LOG(s[c]);                                       \
        for (Py_ssize_t j = 0; j < n; j++) {                                                       \
            const T* xr = x + j * stride; T* yr = y + j * stride;                                  \
            for (Py_ssize_t c = 0; c < w; c++) yr[c] = (xr[c] - m[c]) - s[c];                      \
        }                                                                                          \
    } else {                                                                                       \
        for (Py_ssize_t c = 0; c < w; c++) s[c] = (T)1 / s[c];                                     \
        for (Py_ssize_t j = 0; j < n; j++) {                                                       \
            T* yr = y + j * stride;                                                                \
            for (Py_ssize_t c = 0; c < w; c++) yr[c] *= s[c];                                      \
        }                                                                                          \
    }                                                                                              \
}

/* The gradients of softmax and log_softmax along a dim of n elements `stride` apart, for w (<= EMBER_COLS)
 * adjacent columns (stride 1, w 1: a row): softmax dx = y * (g - sum(g * y)), log_softmax
 * dx = g - exp(y) * sum(g), the formulas' own rounding points (functions_manual/pointwise.py). */
#define EMBER_GRAD_ROWS(SUF, ATTR, T, TS, EXP)                                                    \
ATTR static void ember_softmax_grad_##TS##_##SUF(const T* g, const T* y, T* dx, Py_ssize_t n,       \
                                                 Py_ssize_t stride, Py_ssize_t w, int log_) {       \
    if (stride == 1) {                                                                             \
        T s = 0;                                                                                   \
        if (log_) {                                                                                \
            _Pragma("omp simd reduction(+:s)")                                                    \
            for (Py_ssize_t i = 0; i < n; i++) s += g[i];                                          \
            for (Py_ssize_t i = 0; i < n; i++) dx[i] = g[i] - EXP(y[i]) * s;                       \
        } else {                                                                                   \
            _Pragma("omp simd reduction(+:s)")                                                    \
            for (Py_ssize_t i = 0; i < n; i++) s += g[i] * y[i];                                   \
            for (Py_ssize_t i = 0; i < n; i++) dx[i] = y[i] * (g[i] - s);                          \
        }                                                                                          \
        return;                                                                                    \
    }                                                                                              \
    T s[EMBER_COLS];                                                                               \
    for (Py_ssize_t c = 0; c < w; c++) s[c] = 0;                                                   \
    for (Py_ssize_t j = 0; j < n; j++) {                                                           \
        const T* gr = g + j * stride; const T* yr = y + j * stride;                                \
        if (log_) { for (Py_ssize_t c = 0; c < w; c++) s[c] += gr[c]; }                            \
        else { for (Py_ssize_t c = 0; c < w; c++) s[c] += gr[c] * yr[c]; }                         \
    }                                                                                              \
    for (Py_ssize_t j = 0; j < n; j++) {                                                           \
        const T* gr = g + j * stride; const T* yr = y + j * stride; T* dr = dx + j * stride;       \
        if (log_) { for (Py_ssize_t c = 0; c < w; c++) dr[c] = gr[c] - EXP(yr[c]) * s[c]; }        \
        else { for (Py_ssize_t c = 0; c < w; c++) dr[c] = yr[c] * (gr[c] - s[c]); }                \
    }                                                                                              \
}

#define EMBER_GRADS(SUF, ATTR)                                                                   \
EMBER_GRAD_ROWS(SUF, ATTR, float, f, ember_vm_expf)                                              \
EMBER_GRAD_ROWS(SUF, ATTR, double, d, ember_exp_##SUF)

EMBER_VEC_DEFINE(base, )
EMBER_GRADS(base, )
#ifdef EMBER_HAVE_AVX2
EMBER_VEC_DEFINE(avx2, EMBER_AVX2_ATTR)
EMBER_GRADS(avx2, EMBER_AVX2_ATTR)
/* 16 float lanes per instruction: the exp-bound rows do a third more per cycle on Zen 4 */
EMBER_VEC_DEFINE(avx512, EMBER_AVX512_ATTR)
EMBER_GRADS(avx512, EMBER_AVX512_ATTR)
#endif

#define EMBER_TABLE(SUF) { ember_softmax_row_f_##SUF, ember_softmax_row_d_##SUF,                \
    ember_log_softmax_row_f_##SUF, ember_log_softmax_row_d_##SUF, ember_softmax_cols_f_##SUF,     \
    ember_softmax_cols_d_##SUF, ember_exp_f_##SUF, ember_exp_d_##SUF, ember_softmax_grad_f_##SUF,      \
    ember_softmax_grad_d_##SUF }

static const ember_vec_table ember_vec_base = EMBER_TABLE(base);
#ifdef EMBER_HAVE_AVX2
static const ember_vec_table ember_vec_avx2 = EMBER_TABLE(avx2);
static const ember_vec_table ember_vec_avx512 = EMBER_TABLE(avx512);
#endif

static const ember_vec_table* ember_vec(void) {
#ifdef EMBER_HAVE_AVX2
    if (ember_use_avx512()) return &ember_vec_avx512;
    if (ember_use_avx2()) return &ember_vec_avx2;
#endif
    return &ember_vec_base;
}

static const char* ember_vec_level(void) {
    return ember_use_avx512() ? "avx512" : ember_use_avx2() ? "avx2" : "default";
}

#pragma GCC pop_options
#endif
