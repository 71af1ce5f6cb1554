// Dtype conversion of a contiguous array on the device (aten/native/cuda/runtime/transfer.py):
// cast_<from>_to_<to>, as c10's static_cast (bool: != 0; half: read as float, written rounded to
// nearest through float, as c10::Half).

#include <cuda_fp16.h>

template <typename T> __device__ __forceinline__ T ember_load(T v) { return v; }
__device__ __forceinline__ float ember_load(__half v) { return __half2float(v); }

template <typename Out, typename V> __device__ __forceinline__ Out ember_as(V v) { return (Out)v; }
template <typename V> __device__ __forceinline__ unsigned char ember_as_bool(V v) { return (unsigned char)(v != 0); }
template <typename V> __device__ __forceinline__ __half ember_as_half(V v) { return __float2half_rn((float)v); }

#define EMBER_CAST(IN, IN_T, OUT, OUT_T, STORE)                                                    \
  extern "C" __global__ void cast_##IN##_to_##OUT(long long n, OUT_T* out, const IN_T* in) {      \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;                   \
         i += (long long)blockDim.x * gridDim.x)                                                  \
      out[i] = STORE(ember_load(in[i]));                                                          \
  }

#define EMBER_CASTS_FROM(IN, IN_T)                                                                 \
  EMBER_CAST(IN, IN_T, bool, unsigned char, ember_as_bool)                                         \
  EMBER_CAST(IN, IN_T, uint8, unsigned char, ember_as<unsigned char>)                              \
  EMBER_CAST(IN, IN_T, int8, signed char, ember_as<signed char>)                                   \
  EMBER_CAST(IN, IN_T, int16, short, ember_as<short>)                                              \
  EMBER_CAST(IN, IN_T, int32, int, ember_as<int>)                                                  \
  EMBER_CAST(IN, IN_T, int64, long long, ember_as<long long>)                                      \
  EMBER_CAST(IN, IN_T, float16, __half, ember_as_half)                                             \
  EMBER_CAST(IN, IN_T, float32, float, ember_as<float>)                                            \
  EMBER_CAST(IN, IN_T, float64, double, ember_as<double>)

EMBER_CASTS_FROM(bool, unsigned char)
EMBER_CASTS_FROM(uint8, unsigned char)
EMBER_CASTS_FROM(int8, signed char)
EMBER_CASTS_FROM(int16, short)
EMBER_CASTS_FROM(int32, int)
EMBER_CASTS_FROM(int64, long long)
EMBER_CASTS_FROM(float16, __half)
EMBER_CASTS_FROM(float32, float)
EMBER_CASTS_FROM(float64, double)
