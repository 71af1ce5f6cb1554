// index_select and index_add along one dimension (handwritten; aten/native/cuda/indexing.py): the
// tensors are contiguous and seen as (outer, size, inner) around that dimension; `index` holds n
// int64 positions. index_select writes out (outer, n, inner); index_add adds alpha * source
// (outer, n, inner) into self with atomics, so repeated indices accumulate. A position outside
// [0, size) (negative ones too, as PyTorch's) sets bad[0] to 1 + its place in index; the launcher
// raises PyTorch's error for it.

__device__ __forceinline__ long long checked_index(long long p, long long size, long long j, long long* bad) {
  if (p < 0 || p >= size) {
    atomicCAS((unsigned long long*)bad, 0ULL, (unsigned long long)(j + 1));
    return -1;
  }
  return p;
}

template <typename T>
__device__ __forceinline__ void index_select(long long outer, long long size, long long inner, long long n,
                                             const T* __restrict__ in, const long long* __restrict__ index,
                                             T* __restrict__ out, long long* bad) {
  const long long total = outer * n * inner;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long i = e % inner, j = (e / inner) % n, o = e / (inner * n);
    const long long p = checked_index(index[j], size, j, bad);
    out[e] = p < 0 ? T(0) : in[(o * size + p) * inner + i];
  }
}

__device__ __forceinline__ void atomic_add(float* a, float v) { atomicAdd(a, v); }
__device__ __forceinline__ void atomic_add(double* a, double v) { atomicAdd(a, v); }
__device__ __forceinline__ void atomic_add(int* a, int v) { atomicAdd(a, v); }
__device__ __forceinline__ void atomic_add(long long* a, long long v) {
  atomicAdd((unsigned long long*)a, (unsigned long long)v);   // two's complement: the same bits
}

template <typename T>
__device__ __forceinline__ void index_add(long long outer, long long size, long long inner, long long n,
                                          T* self, const long long* __restrict__ index,
                                          const T* __restrict__ source, T alpha, long long* bad) {
  const long long total = outer * n * inner;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long i = e % inner, j = (e / inner) % n, o = e / (inner * n);
    const long long p = checked_index(index[j], size, j, bad);
    if (p >= 0) atomic_add(self + (o * size + p) * inner + i, alpha * source[e]);
  }
}

#define EMBER_INDEX(T, NAME)                                                                       \
  extern "C" __global__ void index_select_##NAME(long long outer, long long size, long long inner, \
                                                 long long n, const T* in, const long long* index, \
                                                 T* out, long long* bad) {                          \
    index_select<T>(outer, size, inner, n, in, index, out, bad);                                   \
  }                                                                                                \
  extern "C" __global__ void index_add_##NAME(long long outer, long long size, long long inner,    \
                                              long long n, T* self, const long long* index,        \
                                              const T* source, T alpha, long long* bad) {          \
    index_add<T>(outer, size, inner, n, self, index, source, alpha, bad);                          \
  }

EMBER_INDEX(float, float32)
EMBER_INDEX(double, float64)
EMBER_INDEX(int, int32)
EMBER_INDEX(long long, int64)
