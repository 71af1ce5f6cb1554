// float16 stores on the device with the CPU loops' bits (x86's F16C conversion, which PyTorch's CPU
// conversions use): round to nearest even, and a NaN keeps its sign and the top of its payload,
// quieted. CUDA's __float2half_rn writes every NaN as 0x7FFF.
#pragma once
#include <cuda_fp16.h>

__device__ __forceinline__ __half ember_float_to_half(float f) {
    if (f != f) {
        const unsigned int bits = __float_as_uint(f);
        return __ushort_as_half((unsigned short)(((bits >> 16) & 0x8000u) | 0x7E00u | ((bits >> 13) & 0x3FFu)));
    }
    return __float2half_rn(f);
}
