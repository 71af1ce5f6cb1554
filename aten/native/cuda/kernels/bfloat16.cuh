// bfloat16 on the device as a struct of its bits, converted as the CPU loops convert it
// (c10/bfloat16.h), so both devices store the same bits: round to nearest even, NaN as 0xFFFF
// (PyTorch's vectorised conversion) or 0x7FC0 (c10::BFloat16's constructor, its element-by-element
// paths). Included by every generated kernel (cuda_scalar_ops.cuh) and by the handwritten ones.
#pragma once

struct ember_bf16 { unsigned short x; };

__device__ __forceinline__ float bf16_to_float(ember_bf16 v) { return __uint_as_float((unsigned int)v.x << 16); }

__device__ __forceinline__ ember_bf16 float_to_bf16(float f) {
    ember_bf16 r;
    if (f != f) { r.x = 0xFFFF; return r; }
    unsigned int bits = __float_as_uint(f);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    r.x = (unsigned short)(bits >> 16);
    return r;
}

__device__ __forceinline__ ember_bf16 float_to_bf16_scalar(float f) {
    if (f != f) { ember_bf16 r; r.x = 0x7FC0; return r; }
    return float_to_bf16(f);
}
