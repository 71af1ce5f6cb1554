/* The float16 and bfloat16 loops of the generated pointwise kernels (torchgen/templates/cpu_pointwise.pyx.j2)
 * run the float32 loop of the same formula: operands widened to float32 block by block (exactly, with
 * F16C for contiguous float16: vec_half.h), results rounded back once when stored, as PyTorch's
 * opmath rounds them. The float32 loop brings its vector code, and no element converts in software. */
#ifndef EMBER_VEC_REDUCED_H
#define EMBER_VEC_REDUCED_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "c10/bfloat16.h"
#include "aten/native/cpu/vec_half.h"

#define EMBER_WIDENED_BLOCK 256

/* c10/bfloat16.h's conversions over a run, inlined with a constant step where contiguous so the loops vectorise */
static inline __attribute__((always_inline)) void ember_bf16_widen_run(const char* src, ptrdiff_t step, float* dst,
                                                                       ptrdiff_t m) {
    for (ptrdiff_t i = 0; i < m; i++) {
        ember_bf16 h;
        memcpy(&h, src + i * step, sizeof h);
        dst[i] = ember_bf16_to_float(h);
    }
}

static inline __attribute__((always_inline)) void ember_bf16_narrow_run(const float* src, char* dst, ptrdiff_t step,
                                                                        ptrdiff_t m) {
    for (ptrdiff_t i = 0; i < m; i++) {
        ember_bf16 r = ember_float_to_bf16(src[i]);
        memcpy(dst + i * step, &r, sizeof r);
    }
}

#ifdef EMBER_HAVE_AVX2
__attribute__((target("avx2"))) static void ember_bf16_widen_avx2(const char* src, float* dst, ptrdiff_t m) {
    ember_bf16_widen_run(src, sizeof(uint16_t), dst, m);
}
__attribute__((target("avx2"))) static void ember_bf16_narrow_avx2(const float* src, char* dst, ptrdiff_t m) {
    ember_bf16_narrow_run(src, dst, sizeof(uint16_t), m);
}
#endif

/* m elements at src (step bytes apart) as float32 at dst. Strided float16 is gathered a block at a
 * time first, so every float16 element converts through F16C where the CPU has it. */
static inline void ember_widen(const char* src, ptrdiff_t step, float* dst, ptrdiff_t m, int half) {
    if (half && step == (ptrdiff_t)sizeof(_Float16)) {
        ember_f16_to_f32((const _Float16*)src, dst, m);
    } else if (half) {
        _Float16 gathered[EMBER_WIDENED_BLOCK];
        for (ptrdiff_t s = 0; s < m; s += EMBER_WIDENED_BLOCK) {
            ptrdiff_t k = m - s < EMBER_WIDENED_BLOCK ? m - s : EMBER_WIDENED_BLOCK;
            for (ptrdiff_t i = 0; i < k; i++) memcpy(&gathered[i], src + (s + i) * step, sizeof(_Float16));
            ember_f16_to_f32(gathered, dst + s, k);
        }
    } else if (step == (ptrdiff_t)sizeof(uint16_t)) {
#ifdef EMBER_HAVE_AVX2
        if (ember_use_avx2()) { ember_bf16_widen_avx2(src, dst, m); return; }
#endif
        ember_bf16_widen_run(src, sizeof(uint16_t), dst, m);
    } else {
        ember_bf16_widen_run(src, step, dst, m);
    }
}

/* m float32 values (m <= EMBER_WIDENED_BLOCK) rounded into dst (step bytes apart): float16 through F16C
 * (then scattered), bfloat16
 * through c10/bfloat16.h's ember_float_to_bf16 (nearest even, NaN as 0xFFFF). */
static inline void ember_narrow(const float* src, char* dst, ptrdiff_t step, ptrdiff_t m, int half) {
    if (half) {
        _Float16 rounded[EMBER_WIDENED_BLOCK];
        _Float16* to = step == (ptrdiff_t)sizeof(_Float16) ? (_Float16*)dst : rounded;
        ember_f32_to_f16(src, to, m);
        if (to == rounded)
            for (ptrdiff_t i = 0; i < m; i++) memcpy(dst + i * step, &rounded[i], sizeof(_Float16));
    } else if (step == (ptrdiff_t)sizeof(uint16_t)) {
#ifdef EMBER_HAVE_AVX2
        if (ember_use_avx2()) { ember_bf16_narrow_avx2(src, dst, m); return; }
#endif
        ember_bf16_narrow_run(src, dst, sizeof(uint16_t), m);
    } else {
        ember_bf16_narrow_run(src, dst, step, m);
    }
}

#define EMBER_WIDENED_INPUTS 4

typedef void (*ember_loop_fn)(char** data, const ptrdiff_t* steps, ptrdiff_t n, const void* extra);

/* f (a float32 loop of `inputs` operands) over n float16 (half) or bfloat16 elements; a broadcast
 * operand (step 0) is widened once and passed with step 0. */
static void ember_run_widened(ember_loop_fn f, char** data, const ptrdiff_t* steps, ptrdiff_t n, const void* extra,
                              int inputs, int half) {
    float in[EMBER_WIDENED_INPUTS][EMBER_WIDENED_BLOCK], res[EMBER_WIDENED_BLOCK];
    char* blocks[EMBER_WIDENED_INPUTS + 1];
    ptrdiff_t block_steps[EMBER_WIDENED_INPUTS + 1];
    blocks[0] = (char*)res;
    block_steps[0] = sizeof(float);
    for (int j = 0; j < inputs; j++) {
        blocks[j + 1] = (char*)in[j];
        block_steps[j + 1] = steps[j + 1] == 0 ? 0 : (ptrdiff_t)sizeof(float);
        if (steps[j + 1] == 0) ember_widen(data[j + 1], 0, in[j], 1, half);
    }
    for (ptrdiff_t s = 0; s < n; s += EMBER_WIDENED_BLOCK) {
        ptrdiff_t m = n - s < EMBER_WIDENED_BLOCK ? n - s : EMBER_WIDENED_BLOCK;
        for (int j = 0; j < inputs; j++)
            if (steps[j + 1] != 0) ember_widen(data[j + 1] + s * steps[j + 1], steps[j + 1], in[j], m, half);
        f(blocks, block_steps, m, extra);
        ember_narrow(res, data[0] + s * steps[0], steps[0], m, half);
    }
}
#endif
