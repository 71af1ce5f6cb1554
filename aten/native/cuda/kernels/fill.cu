// A contiguous array filled with one value on the device (aten/native/cuda/copy.py: fill_, zeros,
// ones and full through copy_ of a one-element value). PyCUDA packs neither numpy bools nor the
// reduced floats: bool comes as a byte, float16 and bfloat16 as a float rounded here (NaN as
// c10::BFloat16 writes it, as the CPU's fill_).

#include <cuda_fp16.h>
#include "bfloat16.cuh"

#define EMBER_FILL(NAME, T, ARG_T, STORE)                                                          \
  extern "C" __global__ void fill_##NAME(long long n, T* out, ARG_T v) {                           \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;                   \
         i += (long long)blockDim.x * gridDim.x)                                                  \
      out[i] = STORE;                                                                             \
  }

EMBER_FILL(bool, unsigned char, unsigned char, v)
EMBER_FILL(uint8, unsigned char, unsigned char, v)
EMBER_FILL(int8, signed char, signed char, v)
EMBER_FILL(int16, short, short, v)
EMBER_FILL(int32, int, int, v)
EMBER_FILL(int64, long long, long long, v)
EMBER_FILL(float16, __half, float, __float2half_rn(v))
EMBER_FILL(float32, float, float, v)
EMBER_FILL(float64, double, double, v)
EMBER_FILL(bfloat16, ember_bf16, float, ember_float_to_bf16_scalar(v))
