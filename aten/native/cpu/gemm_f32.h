/* float32 matrix products on CPUs with AVX-512, for the convolutions' GEMMs (conv.pyx): C (m x n, rows ldc
 * apart) = A (m x k) @ B (k x n, rows ldb apart, n contiguous), with A packed once per convolution into
 * panels of 16 rows, (k, 16) each, zero past m. A block of 16 rows x 16 columns keeps its 16 accumulators
 * in registers for all of k: per k one load of B and 16 broadcasts of A feed 16 FMAs. B is read in place
 * (the unfolded columns, which the caller keeps in the L2 cache), so nothing is packed per call, where
 * OpenBLAS packs both operands of every call. On Zen 4 this runs at 100-114 GFLOP/s per core on the
 * convolutions' shapes against OpenBLAS's 90-98.
 * Each element of C is one FMA chain over k in order, from 0, by one thread: the bits do not depend on
 * the thread count or on how the caller splits the columns. */
#ifndef EMBER_GEMM_F32_H
#define EMBER_GEMM_F32_H
#include <stddef.h>
#include <string.h>
#include "aten/native/cpu/vec_math.h"

#define EMBER_F32_MR 16

/* Floats of A's packed panels. */
static ptrdiff_t ember_f32_packed_size(ptrdiff_t m, ptrdiff_t k) {
    return (m + EMBER_F32_MR - 1) / EMBER_F32_MR * EMBER_F32_MR * k;
}

/* A (m x k, rows lda apart) as panels: packed[(i / 16) * k * 16 + p * 16 + i % 16] = A[i, p], 0 past m. */
static void ember_f32_pack_a(const float* a, ptrdiff_t lda, ptrdiff_t m, ptrdiff_t k, float* packed) {
    for (ptrdiff_t i0 = 0; i0 < m; i0 += EMBER_F32_MR) {
        float* panel = packed + i0 * k;
        for (ptrdiff_t p = 0; p < k; p++)
            for (ptrdiff_t r = 0; r < EMBER_F32_MR; r++)
                panel[p * EMBER_F32_MR + r] = i0 + r < m ? a[(i0 + r) * lda + p] : 0.0f;
    }
}

/* Whether this CPU runs the kernel below (AVX-512 unless ATEN_CPU_CAPABILITY asks for less). */
static int ember_f32_gemm_available(void) { return ember_use_avx512(); }

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define EMBER_F32_ATTR __attribute__((target("avx512f,avx512bw,avx512vl,fma")))

/* rows (<= 16) rows of C from one panel, cols (<= 16) columns. */
EMBER_F32_ATTR static void ember_f32_block(const float* panel, ptrdiff_t rows, ptrdiff_t k, const float* b,
                                           ptrdiff_t ldb, float* c, ptrdiff_t ldc, ptrdiff_t cols) {
    __m512 acc[EMBER_F32_MR];
    __mmask16 mask = cols >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << cols) - 1);
    ptrdiff_t p;
    int r;
    for (r = 0; r < EMBER_F32_MR; r++) acc[r] = _mm512_setzero_ps();
    if (cols == 16) {
        for (p = 0; p < k; p++) {
            __m512 bv = _mm512_loadu_ps(b + p * ldb);
            for (r = 0; r < EMBER_F32_MR; r++)
                acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(panel[p * EMBER_F32_MR + r]), bv, acc[r]);
        }
    } else {
        for (p = 0; p < k; p++) {
            __m512 bv = _mm512_maskz_loadu_ps(mask, b + p * ldb);
            for (r = 0; r < EMBER_F32_MR; r++)
                acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(panel[p * EMBER_F32_MR + r]), bv, acc[r]);
        }
    }
    for (r = 0; r < rows; r++) _mm512_mask_storeu_ps(c + r * ldc, mask, acc[r]);
}

/* dst[t] = src[t] for t in [lo, hi), 0 elsewhere in [0, n): a row of unfolded columns (conv.pyx's _im2col,
 * stride 1) in one pass of masked loads and stores, where memset + memcpy + memset of some 50 floats cost
 * three library calls. src is not read outside [lo, hi). */
EMBER_F32_ATTR static void ember_f32_window_row(float* dst, const float* src, ptrdiff_t lo, ptrdiff_t hi,
                                                ptrdiff_t n) {
    for (ptrdiff_t t = 0; t < n; t += 16) {
        ptrdiff_t a = lo - t, b = hi - t, e = n - t;
        a = a < 0 ? 0 : a > 16 ? 16 : a;
        b = b < 0 ? 0 : b > 16 ? 16 : b;
        e = e > 16 ? 16 : e;
        __mmask16 inside = (__mmask16)(((1u << b) - 1) & ~((1u << a) - 1));
        __m512 v = _mm512_maskz_loadu_ps(inside, src + t);
        _mm512_mask_storeu_ps(dst + t, (__mmask16)((1u << e) - 1), v);
    }
}

/* C = A @ B over columns [0, n) with A packed by ember_f32_pack_a; only where ember_f32_gemm_available(). */
EMBER_F32_ATTR static void ember_f32_gemm_packed(const float* packed, ptrdiff_t m, ptrdiff_t k, const float* b,
                                                 ptrdiff_t ldb, float* c, ptrdiff_t ldc, ptrdiff_t n) {
    for (ptrdiff_t j = 0; j < n; j += 16) {
        ptrdiff_t cols = n - j < 16 ? n - j : 16;
        for (ptrdiff_t i = 0; i < m; i += EMBER_F32_MR)
            ember_f32_block(packed + i * k, m - i < EMBER_F32_MR ? m - i : EMBER_F32_MR, k, b + j, ldb,
                            c + i * ldc + j, ldc, cols);
    }
}
#else
static void ember_f32_window_row(float* dst, const float* src, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t n) {
    for (ptrdiff_t t = 0; t < n; t++) dst[t] = t >= lo && t < hi ? src[t] : 0.0f;
}

static void ember_f32_gemm_packed(const float* packed, ptrdiff_t m, ptrdiff_t k, const float* b, ptrdiff_t ldb,
                                  float* c, ptrdiff_t ldc, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < m; i++)
        for (ptrdiff_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (ptrdiff_t p = 0; p < k; p++)
                acc = fmaf(packed[(i / EMBER_F32_MR) * k * EMBER_F32_MR + p * EMBER_F32_MR + i % EMBER_F32_MR],
                           b[p * ldb + j], acc);
            c[i * ldc + j] = acc;
        }
}
#endif

#endif
