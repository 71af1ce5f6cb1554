// A block-wide reduction shared by the row kernels (reduce.cu, softmax.cu, norm.cu): every thread
// of the block passes its partial value and gets the block's result; `scratch` is shared memory of
// blockDim.x values (a power of two). Callers' loops are uniform across the block, so the
// barriers inside are reached by every thread.
#pragma once

template <typename T, typename Op>
__device__ __forceinline__ T ember_block_reduce(T v, T* scratch, Op op) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    __syncthreads();
  }
  const T result = scratch[0];
  __syncthreads();
  return result;
}

struct EmberSum {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

struct EmberProd {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
};

// the larger value, NaN winning (as PyTorch's max)
struct EmberMax {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return (b > a || b != b) ? b : a; }
};
