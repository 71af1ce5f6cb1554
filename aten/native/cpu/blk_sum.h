/* The leaf of Ember's pairwise float32 sums (reduce_sum.pyx: _blk for a contiguous run, _row_reduced): n
 * (<= 1024) elements added into 64 independent float32 lanes, lane j taking elements j, j + 64, ..., the
 * tail's elements added to lanes 0, 1, ... after, then the lanes folded in halves (j += j + 32, then 16,
 * 8, 4, 2, 1). Eight add chains keep the adders busy, where the 16 lanes before were latency-bound. GCC
 * vectors give the same lane arithmetic on every ISA (compiled for the baseline, AVX2+F16C and AVX-512,
 * picked at run time). The float16/bfloat16 versions widen as they read, exactly, and add the same values in
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

/* W float lanes per vector (8 or 16), 64 / W vectors: the same 64 lanes and the same additions at either width.
 * FOLD8 turns the last W-lane vector into lanes j + (j + 8) for j < 8. */
#define EMBER_BLK_SUM(KIND, SIZE, ISA, ATTR, VEC, W, LOAD, FOLD8)                                            \
    ATTR static float ember_blk_sum_##KIND##_##ISA(const char* x, ptrdiff_t n) {                       \
        VEC a[64 / W] = {{0}};                                                                         \
        ptrdiff_t i, j, h, m = n - n % 64;                                                             \
        for (i = 0; i < m; i += 64)                                                                    \
            for (j = 0; j < 64 / W; j++) a[j] += LOAD(x + (i + W * j) * SIZE);                         \
        /* the tail's elements go to lanes 0, 1, ...; -0.0 elsewhere, which adds nothing (keeps -0); a  \
         * block without one skips it, a saving of a third of a 1024-element block's time */           \
        if (m != n) {                                                                                  \
            float tail[64];                                                                            \
            VEC t[64 / W];                                                                             \
            for (i = m; i < n; i++) tail[i - m] = ember_blk_one_##KIND(x + i * SIZE);                  \
            for (i = n - m; i < 64; i++) tail[i] = -0.0f;                                              \
            memcpy(t, tail, sizeof t);                                                                 \
            for (j = 0; j < 64 / W; j++) a[j] += t[j];                                                 \
        }                                                                                              \
        /* lanes j += j + 32, + 16 (, + 8) as whole vectors, then + 8 within one, + 4, + 2, + 1 */     \
        for (h = 32 / W; h >= 1; h /= 2)                                                               \
            for (j = 0; j < h; j++) a[j] += a[j + h];                                                  \
        ember_blk_v8f f = FOLD8(a[0]);                                                                 \
        float l0 = f[0] + f[4], l1 = f[1] + f[5], l2 = f[2] + f[6], l3 = f[3] + f[7];                  \
        l0 += l2; l1 += l3;                                                                            \
        return l0 + l1;                                                                                \
    }
#define EMBER_BLK_SAME(v) (v)

EMBER_BLK_SUM(f32, 4, base, , ember_blk_v8f, 8, ember_blk_load_f32, EMBER_BLK_SAME)
EMBER_BLK_SUM(bf16, 2, base, , ember_blk_v8f, 8, ember_blk_load_bf16, EMBER_BLK_SAME)
EMBER_BLK_SUM(f16, 2, base, , ember_blk_v8f, 8, ember_blk_load_f16, EMBER_BLK_SAME)
#ifdef EMBER_HAVE_AVX2
#define EMBER_BLK_AVX2 __attribute__((target("avx2,f16c")))
EMBER_BLK_SUM(f32, 4, avx2, EMBER_BLK_AVX2, ember_blk_v8f, 8, ember_blk_load_f32, EMBER_BLK_SAME)
EMBER_BLK_SUM(bf16, 2, avx2, EMBER_BLK_AVX2, ember_blk_v8f, 8, ember_blk_load_bf16_avx2, EMBER_BLK_SAME)
EMBER_BLK_SUM(f16, 2, avx2, EMBER_BLK_AVX2, ember_blk_v8f, 8, ember_blk_load_f16_avx2, EMBER_BLK_SAME)

/* AVX-512: half the instructions per element (about 20% faster from L2 on Zen 4), the same bits */
#define EMBER_BLK_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
typedef float ember_blk_v16f __attribute__((vector_size(64)));
EMBER_BLK_AVX512 EMBER_BLK_INLINE ember_blk_v16f ember_blk_load16_f32(const void* p) {
    ember_blk_v16f v; memcpy(&v, p, 64); return v; }
EMBER_BLK_AVX512 EMBER_BLK_INLINE ember_blk_v16f ember_blk_load16_bf16(const void* p) {
    return (ember_blk_v16f)_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(
        _mm256_loadu_si256((const __m256i*)p)), 16)); }
EMBER_BLK_AVX512 EMBER_BLK_INLINE ember_blk_v16f ember_blk_load16_f16(const void* p) {
    return (ember_blk_v16f)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p)); }
EMBER_BLK_AVX512 EMBER_BLK_INLINE ember_blk_v8f ember_blk_fold16(ember_blk_v16f v) {
    ember_blk_v8f lo, hi;
    memcpy(&lo, &v, 32); memcpy(&hi, (const char*)&v + 32, 32);
    return lo + hi; }
EMBER_BLK_SUM(f32, 4, avx512, EMBER_BLK_AVX512, ember_blk_v16f, 16, ember_blk_load16_f32, ember_blk_fold16)
EMBER_BLK_SUM(bf16, 2, avx512, EMBER_BLK_AVX512, ember_blk_v16f, 16, ember_blk_load16_bf16, ember_blk_fold16)
EMBER_BLK_SUM(f16, 2, avx512, EMBER_BLK_AVX512, ember_blk_v16f, 16, ember_blk_load16_f16, ember_blk_fold16)
#endif

typedef float (*ember_blk_leaf)(const char*, ptrdiff_t);

/* The leaf this CPU runs for kind 0 float32, 1 bfloat16, 2 float16. */
static ember_blk_leaf ember_blk_leaf_for(int kind) {
#ifdef EMBER_HAVE_AVX2
    static int vector = -1;
    if (vector < 0) vector = !ember_use_avx2() || !__builtin_cpu_supports("f16c") ? 0 : ember_use_avx512() ? 2 : 1;
    if (vector == 2)
        return kind == 0 ? ember_blk_sum_f32_avx512 : kind == 1 ? ember_blk_sum_bf16_avx512 : ember_blk_sum_f16_avx512;
    if (vector)
        return kind == 0 ? ember_blk_sum_f32_avx2 : kind == 1 ? ember_blk_sum_bf16_avx2 : ember_blk_sum_f16_avx2;
#endif
    return kind == 0 ? ember_blk_sum_f32_base : kind == 1 ? ember_blk_sum_bf16_base : ember_blk_sum_f16_base;
}

static float ember_blk_halves(ember_blk_leaf leaf, const char* x, ptrdiff_t n, ptrdiff_t size) {
    if (n <= 1024) return leaf(x, n);
    ptrdiff_t h = (n / 2) & ~(ptrdiff_t)15;
    return ember_blk_halves(leaf, x, h, size) + ember_blk_halves(leaf, x + h * size, n - h, size);
}

/* The pairwise sum of n contiguous elements (kind as above): halves of a multiple of 16 elements down to
 * leaves of at most 1024, as reduce_sum.pyx's _row, in C: the recursion in Cython, with its six arguments
 * and every mode's code, cost 15-20% of a float32 sum read from cache. */
static float ember_blk_pairwise(const char* x, ptrdiff_t n, int kind) {
    return ember_blk_halves(ember_blk_leaf_for(kind), x, n, kind == 0 ? 4 : 2);
}

#endif
