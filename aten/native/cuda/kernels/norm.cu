// native_layer_norm's forward on the device (handwritten; aten/native/cuda/norm.py): input
// contiguous (rows, M); one block of 256 threads per row computes the mean, then the mean of
// squared deviations (two passes, in double as the CPU kernel), writes mean and rstd, then
// y = (x - mean) * rstd * weight + bias (weight and bias optional, length M).

#include "block_reduce.cuh"

#define EMBER_NORM_THREADS 256

template <typename T>
__device__ __forceinline__ void layer_norm_rows(long long rows, long long M, const T* __restrict__ x,
                                                const T* __restrict__ weight, const T* __restrict__ bias,
                                                double eps, T* __restrict__ y, T* __restrict__ mean_out,
                                                T* __restrict__ rstd_out) {
  __shared__ double scratch[EMBER_NORM_THREADS];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * M;
    T* yr = y + row * M;
    double s = 0;
    for (long long j = threadIdx.x; j < M; j += blockDim.x) s += (double)xr[j];
    const double mean = ember_block_reduce(s, scratch, EmberSum()) / M;
    double q = 0;
    for (long long j = threadIdx.x; j < M; j += blockDim.x) {
      const double d = (double)xr[j] - mean;
      q += d * d;
    }
    const double rstd = 1.0 / sqrt(ember_block_reduce(q, scratch, EmberSum()) / M + eps);
    if (threadIdx.x == 0) {
      mean_out[row] = (T)mean;
      rstd_out[row] = (T)rstd;
    }
    for (long long j = threadIdx.x; j < M; j += blockDim.x) {
      double v = ((double)xr[j] - mean) * rstd;
      if (weight) v *= (double)weight[j];
      if (bias) v += (double)bias[j];
      yr[j] = (T)v;
    }
  }
}

#define EMBER_LAYER_NORM(T, NAME)                                                                  \
  extern "C" __global__ void layer_norm_rows_##NAME(long long rows, long long M, const T* x,       \
                                                    const T* weight, const T* bias, double eps,    \
                                                    T* y, T* mean, T* rstd) {                      \
    layer_norm_rows<T>(rows, M, x, weight, bias, eps, y, mean, rstd);                              \
  }

EMBER_LAYER_NORM(float, float32)
EMBER_LAYER_NORM(double, float64)
