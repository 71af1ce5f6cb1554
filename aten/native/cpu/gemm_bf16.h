/* bfloat16 matrix products on CPUs with AVX512-BF16 (vdpbf16ps: pairs of bfloat16 products added into
 * float32 lanes), as PyTorch's oneDNN path runs them: C (m x n, bfloat16, row-major) = A (m x k, rows
 * lda apart, k contiguous) @ B (k x n, any strides), accumulated in float32 over the whole k and
 * rounded once (to nearest even). B is packed per strip of 32 columns as (k pairs, 32 columns, 2): each
 * 32-bit lane holds B[2p, j] and B[2p + 1, j], zero past the edges; A's pairs are read in place and
 * broadcast. A block of 12 rows x 32 columns keeps its 24 accumulators in registers for all of k.
 * Strips are split over OpenMP threads by the caller; each output element is computed by one thread in
 * one order, so the bits do not depend on the thread count. */
#ifndef EMBER_GEMM_BF16_H
#define EMBER_GEMM_BF16_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "aten/native/cpu/vec_math.h"

#define EMBER_BF16_MR 12
#define EMBER_BF16_NR 32

/* Whether this CPU runs the kernel below: AVX512-BF16 on top of the AVX-512 level (vec_math.h), which
 * ATEN_CPU_CAPABILITY (PyTorch's variable) can lower. Decided once. */
static int ember_has_avx512_bf16(void) {
#if defined(__GNUC__) && defined(__x86_64__)
    static int cached = -1;
    if (cached < 0) cached = ember_use_avx512() && __builtin_cpu_supports("avx512bf16");
    return cached;
#else
    return 0;
#endif
}

/* The packed strip of columns [j0, j0 + 32) of B: (k + 1) / 2 pairs of 32 columns of 2 bfloat16. */
static void ember_bf16_pack_strip(const uint16_t* b, ptrdiff_t k, ptrdiff_t n, ptrdiff_t sk, ptrdiff_t sn,
                                  ptrdiff_t j0, uint16_t* packed) {
    ptrdiff_t pairs = (k + 1) / 2, cols = n - j0 < EMBER_BF16_NR ? n - j0 : EMBER_BF16_NR;
    for (ptrdiff_t p = 0; p < pairs; p++) {
        uint16_t* dst = packed + p * 2 * EMBER_BF16_NR;
        const uint16_t* r0 = b + 2 * p * sk + j0 * sn;
        const uint16_t* r1 = r0 + sk;
        int second = 2 * p + 1 < k;
        ptrdiff_t j = 0;
        for (; j < cols; j++) {
            dst[2 * j] = r0[j * sn];
            dst[2 * j + 1] = second ? r1[j * sn] : 0;
        }
        for (; j < EMBER_BF16_NR; j++) dst[2 * j] = dst[2 * j + 1] = 0;
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define EMBER_BF16_ATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

/* The pair (a[2p], a[2p + 1]) of a row as one 32-bit lane; past an odd k the second is 0. */
EMBER_BF16_ATTR static inline __m512i ember_bf16_pair(const uint16_t* a, ptrdiff_t p, ptrdiff_t k) {
    uint32_t v;
    if (2 * p + 1 < k) memcpy(&v, a + 2 * p, 4);
    else v = a[2 * p];
    return _mm512_set1_epi32((int)v);
}

/* rows (<= 12) rows of A against one packed strip; cols (<= 32) columns of C written. */
EMBER_BF16_ATTR static void ember_bf16_block(const uint16_t* a, ptrdiff_t lda, ptrdiff_t rows, ptrdiff_t k,
                                             const uint16_t* packed, uint16_t* c, ptrdiff_t ldc, ptrdiff_t cols) {
    __m512 acc[EMBER_BF16_MR][2];
    ptrdiff_t pairs = (k + 1) / 2, full = k / 2, r, p;
    for (r = 0; r < EMBER_BF16_MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    if (rows == EMBER_BF16_MR) {
        for (p = 0; p < full; p++) {
            __m512bh b0 = (__m512bh)_mm512_loadu_si512(packed + p * 2 * EMBER_BF16_NR);
            __m512bh b1 = (__m512bh)_mm512_loadu_si512(packed + p * 2 * EMBER_BF16_NR + EMBER_BF16_NR);
#define EMBER_BF16_ROW(R)                                                                              \
            {   uint32_t v_; memcpy(&v_, a + (R) * lda + 2 * p, 4);                                   \
                __m512bh av_ = (__m512bh)_mm512_set1_epi32((int)v_);                                   \
                acc[R][0] = _mm512_dpbf16_ps(acc[R][0], av_, b0);                                      \
                acc[R][1] = _mm512_dpbf16_ps(acc[R][1], av_, b1); }
            EMBER_BF16_ROW(0) EMBER_BF16_ROW(1) EMBER_BF16_ROW(2) EMBER_BF16_ROW(3)
            EMBER_BF16_ROW(4) EMBER_BF16_ROW(5) EMBER_BF16_ROW(6) EMBER_BF16_ROW(7)
            EMBER_BF16_ROW(8) EMBER_BF16_ROW(9) EMBER_BF16_ROW(10) EMBER_BF16_ROW(11)
#undef EMBER_BF16_ROW
        }
        p = full;
    } else {
        p = 0;
    }
    for (; p < pairs; p++) {
        __m512bh b0 = (__m512bh)_mm512_loadu_si512(packed + p * 2 * EMBER_BF16_NR);
        __m512bh b1 = (__m512bh)_mm512_loadu_si512(packed + p * 2 * EMBER_BF16_NR + EMBER_BF16_NR);
        for (r = 0; r < rows; r++) {
            __m512bh av = (__m512bh)ember_bf16_pair(a + r * lda, p, k);
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
        }
    }
    __mmask32 mask = cols >= 32 ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << cols) - 1);
    for (r = 0; r < rows; r++) {
        __m256bh lo = _mm512_cvtneps_pbh(acc[r][0]), hi = _mm512_cvtneps_pbh(acc[r][1]);
        __m512i both = _mm512_inserti64x4(_mm512_castsi256_si512((__m256i)lo), (__m256i)hi, 1);
        _mm512_mask_storeu_epi16(c + r * ldc, mask, both);
    }
}

/* Columns [j0, j1) of C = A @ B, strip by strip (the caller's share), packing each strip into `packed`
 * ((k + 1) / 2 * 64 bfloat16). Returns 0 where the CPU has no AVX512-BF16 (nothing written). */
static int ember_bf16_gemm_cols(const uint16_t* a, ptrdiff_t lda, const uint16_t* b, ptrdiff_t sk, ptrdiff_t sn,
                                uint16_t* c, ptrdiff_t ldc, ptrdiff_t m, ptrdiff_t n, ptrdiff_t k,
                                ptrdiff_t j0, ptrdiff_t j1, uint16_t* packed) {
    if (!ember_has_avx512_bf16()) return 0;
    for (ptrdiff_t j = j0; j < j1; j += EMBER_BF16_NR) {
        ptrdiff_t cols = j1 - j < EMBER_BF16_NR ? j1 - j : EMBER_BF16_NR;
        ember_bf16_pack_strip(b, k, n, sk, sn, j, packed);
        for (ptrdiff_t i = 0; i < m; i += EMBER_BF16_MR) {
            ptrdiff_t rows = m - i < EMBER_BF16_MR ? m - i : EMBER_BF16_MR;
            ember_bf16_block(a + i * lda, lda, rows, k, packed, c + i * ldc + j, ldc, cols);
        }
    }
    return 1;
}
#else
static int ember_bf16_gemm_cols(const uint16_t* a, ptrdiff_t lda, const uint16_t* b, ptrdiff_t sk, ptrdiff_t sn,
                                uint16_t* c, ptrdiff_t ldc, ptrdiff_t m, ptrdiff_t n, ptrdiff_t k,
                                ptrdiff_t j0, ptrdiff_t j1, uint16_t* packed) {
    return 0;
}
#endif

#endif
