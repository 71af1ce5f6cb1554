/* float32 <-> float16 over contiguous arrays: F16C's vcvtps2ph / vcvtph2ps, 8 at a time, where the
 * CPU has them (all AVX2 CPUs), else C's _Float16 conversion (libgcc's, in software: 80x slower).
 * Both round to nearest even, so every path gives the same bits (PyTorch's AVX2 kernels convert
 * with the same instructions). Included by the generated casts (torchgen/templates/cpu_cast.pyx.j2). */
#ifndef EMBER_VEC_HALF_H
#define EMBER_VEC_HALF_H
#include <stddef.h>
#include "aten/native/cpu/vec_math.h"

static void ember_f32_to_f16_base(const float* in, _Float16* out, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; i++) out[i] = (_Float16)in[i];
}

static void ember_f16_to_f32_base(const _Float16* in, float* out, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; i++) out[i] = (float)in[i];
}

#if defined(EMBER_HAVE_AVX2) && defined(__x86_64__)
#include <immintrin.h>
#define EMBER_HAVE_F16C 1

__attribute__((target("avx2,f16c"))) static void ember_f32_to_f16_f16c(const float* in, _Float16* out, ptrdiff_t n) {
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i*)(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) out[i] = (_Float16)in[i];
}

__attribute__((target("avx2,f16c"))) static void ember_f16_to_f32_f16c(const _Float16* in, float* out, ptrdiff_t n) {
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(in + i))));
    for (; i < n; i++) out[i] = (float)in[i];
}
#endif

/* The AVX2 path's CPUs (vec_math.h: AVX2+FMA, not ATEN_CPU_CAPABILITY=default) with F16C, which they
 * all have in practice; decided once per module. */
static int ember_use_f16c(void) {
#ifdef EMBER_HAVE_F16C
    static int cached = -1;
    if (cached < 0) cached = ember_use_avx2() && __builtin_cpu_supports("f16c");
    return cached;
#else
    return 0;
#endif
}

static void ember_f32_to_f16(const float* in, _Float16* out, ptrdiff_t n) {
#ifdef EMBER_HAVE_F16C
    if (ember_use_f16c()) { ember_f32_to_f16_f16c(in, out, n); return; }
#endif
    ember_f32_to_f16_base(in, out, n);
}

static void ember_f16_to_f32(const _Float16* in, float* out, ptrdiff_t n) {
#ifdef EMBER_HAVE_F16C
    if (ember_use_f16c()) { ember_f16_to_f32_f16c(in, out, n); return; }
#endif
    ember_f16_to_f32_base(in, out, n);
}
#endif
