// uniform_, normal_ and bernoulli_ on the device (handwritten; aten/native/cuda/random.py): element
// i draws the four Philox words of counter (i, offset) under the 64-bit seed (philox.cuh), so
// results depend only on (seed, offset, i), not on the launch shape. Floats take 24 random bits,
// doubles 53 (two words); normal is Box-Muller on two uniforms. The output is contiguous.
// float16 draws as float32 and rounds once (PyTorch's CUDA transforms compute half in float).
#include <cuda_fp16.h>
#include "philox.cuh"

__device__ __forceinline__ ember_philox_words draw(long long i, unsigned long long seed, unsigned long long offset) {
  return ember_philox((unsigned int)i, (unsigned int)((unsigned long long)i >> 32), (unsigned int)offset,
                      (unsigned int)(offset >> 32), (unsigned int)seed, (unsigned int)(seed >> 32));
}

// [0, 1) from one word (24 bits: every float in it is exact) or two (53 bits)
__device__ __forceinline__ float unit_float(unsigned int w) { return (w >> 8) * (1.0f / 16777216.0f); }
__device__ __forceinline__ double unit_double(unsigned int hi, unsigned int lo) {
  return (((unsigned long long)hi << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
}

#define EMBER_GRID_LOOP(n) \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); i += (long long)blockDim.x * gridDim.x)

extern "C" __global__ void uniform_float32(long long n, float* out, double from, double to,
                                           unsigned long long seed, unsigned long long offset) {
  EMBER_GRID_LOOP(n) {
    const float u = unit_float(draw(i, seed, offset).w[0]);
    float v = (float)(from + (to - from) * u);
    out[i] = v < (float)to ? v : (float)from;   // rounding must not reach `to`
  }
}

extern "C" __global__ void uniform_float64(long long n, double* out, double from, double to,
                                           unsigned long long seed, unsigned long long offset) {
  EMBER_GRID_LOOP(n) {
    const ember_philox_words r = draw(i, seed, offset);
    const double v = from + (to - from) * unit_double(r.w[0], r.w[1]);
    out[i] = v < to ? v : from;
  }
}

// rounded to half a draw may reach `to`; it becomes `from`, as PyTorch's half uniform does
extern "C" __global__ void uniform_float16(long long n, __half* out, double from, double to,
                                           unsigned long long seed, unsigned long long offset) {
  EMBER_GRID_LOOP(n) {
    const float u = unit_float(draw(i, seed, offset).w[0]);
    const __half v = __float2half((float)(from + (to - from) * u));
    out[i] = __half2float(v) < (float)to ? v : __float2half((float)from);
  }
}

extern "C" __global__ void normal_float16(long long n, __half* out, double mean, double std,
                                          unsigned long long seed, unsigned long long offset) {
  EMBER_GRID_LOOP(n) {
    const ember_philox_words r = draw(i, seed, offset);
    const double u1 = unit_double(r.w[0], r.w[1]), u2 = unit_double(r.w[2], r.w[3]);
    out[i] = __float2half((float)(mean + std * sqrt(-2.0 * log(1.0 - u1)) * cospi(2.0 * u2)));
  }
}

extern "C" __global__ void normal_float32(long long n, float* out, double mean, double std,
                                          unsigned long long seed, unsigned long long offset) {
  EMBER_GRID_LOOP(n) {
    const ember_philox_words r = draw(i, seed, offset);
    const double u1 = unit_double(r.w[0], r.w[1]), u2 = unit_double(r.w[2], r.w[3]);
    out[i] = (float)(mean + std * sqrt(-2.0 * log(1.0 - u1)) * cospi(2.0 * u2));
  }
}

extern "C" __global__ void normal_float64(long long n, double* out, double mean, double std,
                                          unsigned long long seed, unsigned long long offset) {
  EMBER_GRID_LOOP(n) {
    const ember_philox_words r = draw(i, seed, offset);
    const double u1 = unit_double(r.w[0], r.w[1]), u2 = unit_double(r.w[2], r.w[3]);
    out[i] = mean + std * sqrt(-2.0 * log(1.0 - u1)) * cospi(2.0 * u2);
  }
}

// 1 with probability p, else 0, written as one byte (the launcher converts to the tensor's dtype)
extern "C" __global__ void bernoulli_bytes(long long n, unsigned char* out, double p, unsigned long long seed,
                                           unsigned long long offset) {
  EMBER_GRID_LOOP(n) {
    const ember_philox_words r = draw(i, seed, offset);
    out[i] = unit_double(r.w[0], r.w[1]) < p ? 1 : 0;
  }
}
