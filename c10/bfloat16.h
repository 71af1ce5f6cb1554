/* bfloat16 storage for the CPU loops and the CUDA kernels: a struct holding the bits, so no C
 * arithmetic or implicit conversion can touch it by accident; loops convert through these functions
 * (PyTorch's c10::BFloat16, as its CPU conversion kernels give them), so both devices store the same bits. */
#ifndef EMBER_BFLOAT16_H
#define EMBER_BFLOAT16_H
#include <stdint.h>
#include <string.h>

/* CUDA sources define EMBER_INLINE as __device__ __forceinline__ first (kernels/bfloat16.cuh). */
#ifndef EMBER_INLINE
#define EMBER_INLINE static inline
#endif

typedef struct { uint16_t x; } ember_bf16;

EMBER_INLINE float ember_bf16_to_float(ember_bf16 v) {
    uint32_t bits = (uint32_t)v.x << 16;     /* exact: bfloat16 is float32's upper half */
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Round to nearest, ties to even; every NaN becomes 0xFFFF, as PyTorch's vectorised CPU conversion
 * writes (float and double tensors converted, results of pointwise ops). A select, not a branch, so
 * loops calling it vectorise (aten/native/cpu/vec_reduced.h). */
EMBER_INLINE ember_bf16 ember_float_to_bf16(float f) {
    ember_bf16 r;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    r.x = f != f ? (uint16_t)0xFFFF : (uint16_t)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
    return r;
}
/* The same rounding with NaN as 0x7FC0, as c10::BFloat16's constructor writes: PyTorch's element-by-
 * element paths (fill_, torch.tensor(), float16 converted to bfloat16). */
EMBER_INLINE ember_bf16 ember_float_to_bf16_scalar(float f) {
    ember_bf16 r;
    if (f != f) {
        r.x = 0x7FC0;
        return r;
    }
    return ember_float_to_bf16(f);
}
#endif
