// softmax and log_softmax over the last dimension of a contiguous (rows, R) input (handwritten;
// aten/native/cuda/softmax.py moves the dimension last): one block of 256 threads per row finds the
// row's maximum, then the sum of exp(x - max) (in float for float, double for double), then writes
// exp(x - max) / sum or (x - max) - log(sum). Their gradients (_softmax_backward_data and
// _log_softmax_backward_data) take one pass per row likewise: a block sums grad * y (grad for
// log_softmax), then writes y * (grad - sum) or grad - exp(y) * sum, the composite's formulas.

#include "block_reduce.cuh"

#define EMBER_SOFTMAX_THREADS 256

template <typename T>
__device__ __forceinline__ void softmax_rows(long long rows, long long R, const T* __restrict__ in,
                                             T* __restrict__ out, int log) {
  __shared__ T scratch[EMBER_SOFTMAX_THREADS];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * R;
    T* y = out + row * R;
    T m = -INFINITY;
    for (long long j = threadIdx.x; j < R; j += blockDim.x) m = (x[j] > m || x[j] != x[j]) ? x[j] : m;
    m = ember_block_reduce(m, scratch, EmberMax());
    T s = T(0);
    for (long long j = threadIdx.x; j < R; j += blockDim.x) s += exp(x[j] - m);
    s = ember_block_reduce(s, scratch, EmberSum());
    if (log) {
      const T log_sum = ::log(s);   // (x - max) - log(sum), not x - (max + log(sum)): max may dwarf it
      for (long long j = threadIdx.x; j < R; j += blockDim.x) y[j] = (x[j] - m) - log_sum;
    } else {
      for (long long j = threadIdx.x; j < R; j += blockDim.x) y[j] = exp(x[j] - m) / s;
    }
  }
}

template <typename T>
__device__ __forceinline__ void softmax_backward_rows(long long rows, long long R, const T* __restrict__ grad,
                                                      const T* __restrict__ out, T* __restrict__ grad_in, int log) {
  __shared__ T scratch[EMBER_SOFTMAX_THREADS];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* g = grad + row * R;
    const T* y = out + row * R;
    T* d = grad_in + row * R;
    T s = T(0);
    for (long long j = threadIdx.x; j < R; j += blockDim.x) s += log ? g[j] : g[j] * y[j];
    s = ember_block_reduce(s, scratch, EmberSum());
    for (long long j = threadIdx.x; j < R; j += blockDim.x) d[j] = log ? g[j] - exp(y[j]) * s : y[j] * (g[j] - s);
  }
}

#define EMBER_SOFTMAX(T, NAME)                                                                     \
  extern "C" __global__ void softmax_rows_##NAME(long long rows, long long R, const T* in, T* out, \
                                                 int log) {                                        \
    softmax_rows<T>(rows, R, in, out, log);                                                        \
  }                                                                                                \
  extern "C" __global__ void softmax_backward_rows_##NAME(long long rows, long long R, const T* grad, \
                                                          const T* out, T* grad_in, int log) {     \
    softmax_backward_rows<T>(rows, R, grad, out, grad_in, log);                                    \
  }

EMBER_SOFTMAX(float, float32)
EMBER_SOFTMAX(double, float64)
