/* The leaf of Ember's pairwise float32 sums (reduce_sum.pyx: _blk for a contiguous run, _row_reduced): n
 * (<= 1024) elements added into 64 independent float32 lanes, lane j taking elements j, j + 64, ..., the
 * tail's elements added to lanes 0, 1, ... after, then the lanes folded in halves (j += j + 32, then 16,
 * 8, 4, 2, 1). Eight add chains keep the adders busy, where the 16 lanes before were latency-bound. GCC
 * vectors give the same lane arithmetic on every ISA (compiled for the baseline and for AVX2+F16C, picked
 * at run time). The float16/bfloat16 versions widen as they read, exactly, and add the same values in
 * the same order: a reduced sum is the float32 sum of its widened values, bit for bit. */
#ifndef EMBER_BLK_SUM_H
#define EMBER_BLK_SUM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "aten/native/cpu/vec_math.h"

typedef float ember_blk_v8f __attribute__((vector_size(32)));
typedef uint32_t ember_blk_v8u __attribute__((vector_size(32)));
typedef uint16_t ember_blk_v8h __attribute__((vector_size(16)));
typedef _Float16 ember_blk_v8f16 __attribute__((vector_size(16)));

#define EMBER_BLK_INLINE static inline __attribute__((always_inline))
EMBER_BLK_INLINE ember_blk_v8f ember_blk_load_f32(const void* p) { ember_blk_v8f v; memcpy(&v, p, 32); return v; }
EMBER_BLK_INLINE ember_blk_v8f ember_blk_load_bf16(const void* p) {
    ember_blk_v8h h; memcpy(&h, p, 16);
    return (ember_blk_v8f)(__builtin_convertvector(h, ember_blk_v8u) << 16); }
#ifdef EMBER_HAVE_AVX2
#include <immintrin.h>
/* the same widenings in one instruction each (gcc splits the generic bfloat16 one into 128-bit halves
 * and converts float16 vectors in software) */
__attribute__((target("avx2"))) EMBER_BLK_INLINE ember_blk_v8f ember_blk_load_bf16_avx2(const void* p) {
    return (ember_blk_v8f)_mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(
        _mm_loadu_si128((const __m128i*)p)), 16)); }
__attribute__((target("avx2,f16c"))) EMBER_BLK_INLINE ember_blk_v8f ember_blk_load_f16_avx2(const void* p) {
    return (ember_blk_v8f)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p)); }
#endif
EMBER_BLK_INLINE ember_blk_v8f ember_blk_load_f16(const void* p) {
    ember_blk_v8f16 h; memcpy(&h, p, 16); return __builtin_convertvector(h, ember_blk_v8f); }
EMBER_BLK_INLINE float ember_blk_one_f32(const void* p) { float f; memcpy(&f, p, 4); return f; }
EMBER_BLK_INLINE float ember_blk_one_bf16(const void* p) {
    uint16_t h; memcpy(&h, p, 2); uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
EMBER_BLK_INLINE float ember_blk_one_f16(const void* p) { _Float16 h; memcpy(&h, p, 2); return (float)h; }

#define EMBER_BLK_SUM(KIND, SIZE, ISA, ATTR, LOAD)                                                           \
    ATTR static float ember_blk_sum_##KIND##_##ISA(const char* x, ptrdiff_t n) {                       \
        ember_blk_v8f a[8] = {{0}}, t[8];                                                              \
        float tail[64];                                                                                \
        ptrdiff_t i, j, m = n - n % 64;                                                                \
        for (i = 0; i < m; i += 64)                                                                    \
            for (j = 0; j < 8; j++) a[j] += LOAD(x + (i + 8 * j) * SIZE);                              \
        /* the tail's elements go to lanes 0, 1, ...; -0.0 elsewhere, which adds nothing (keeps -0) */ \
        for (i = m; i < n; i++) tail[i - m] = ember_blk_one_##KIND(x + i * SIZE);                      \
        for (i = n - m; i < 64; i++) tail[i] = -0.0f;                                                  \
        memcpy(t, tail, sizeof t);                                                                     \
        for (j = 0; j < 8; j++) a[j] += t[j];                                                          \
        /* lanes j += j + 32, + 16, + 8 as whole vectors, then + 4, + 2, + 1 within the first */       \
        for (j = 0; j < 4; j++) a[j] += a[j + 4];                                                      \
        a[0] += a[2]; a[1] += a[3];                                                                    \
        a[0] += a[1];                                                                                  \
        float l0 = a[0][0] + a[0][4], l1 = a[0][1] + a[0][5], l2 = a[0][2] + a[0][6], l3 = a[0][3] + a[0][7]; \
        l0 += l2; l1 += l3;                                                                            \
        return l0 + l1;                                                                                \
    }

EMBER_BLK_SUM(f32, 4, base, , ember_blk_load_f32)
EMBER_BLK_SUM(bf16, 2, base, , ember_blk_load_bf16)
EMBER_BLK_SUM(f16, 2, base, , ember_blk_load_f16)
#ifdef EMBER_HAVE_AVX2
#define EMBER_BLK_AVX2 __attribute__((target("avx2,f16c")))
EMBER_BLK_SUM(f32, 4, avx2, EMBER_BLK_AVX2, ember_blk_load_f32)
EMBER_BLK_SUM(bf16, 2, avx2, EMBER_BLK_AVX2, ember_blk_load_bf16_avx2)
EMBER_BLK_SUM(f16, 2, avx2, EMBER_BLK_AVX2, ember_blk_load_f16_avx2)
#endif

/* The sum of n (<= 1024) contiguous elements: kind 0 float32, 1 bfloat16, 2 float16. */
static float ember_blk_sum(const char* x, ptrdiff_t n, int kind) {
#ifdef EMBER_HAVE_AVX2
    static int vector = -1;
    if (vector < 0) vector = ember_use_avx2() && __builtin_cpu_supports("f16c");
    if (vector) {
        if (kind == 0) return ember_blk_sum_f32_avx2(x, n);
        return kind == 1 ? ember_blk_sum_bf16_avx2(x, n) : ember_blk_sum_f16_avx2(x, n);
    }
#endif
    if (kind == 0) return ember_blk_sum_f32_base(x, n);
    return kind == 1 ? ember_blk_sum_bf16_base(x, n) : ember_blk_sum_f16_base(x, n);
}

#endif
