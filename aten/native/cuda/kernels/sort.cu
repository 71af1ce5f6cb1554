// sort along the last dim of a contiguous (rows, n) tensor, in place, with each element's original
// position (handwritten; aten/native/cuda/sort.py). A bitonic network in the form whose every
// compare-exchange puts the smaller element first: merging a block of k starts by comparing each
// element with its mirror (i, i ^ (k - 1)), then halves (i, i ^ j). Positions at or beyond n act as
// +infinity and are never touched, so n needs no padding to a power of two.
//
// The order is total: NaN is the largest value (first when descending, as in PyTorch), and equal
// values keep their original order, so the result is the stable sort's in both directions.
// Rows of at most 2 * EMBER_SORT_THREADS elements sort in one block's shared memory; longer rows
// take one launch per network step (sort_step_*).

#define EMBER_SORT_THREADS 1024

template <typename T> __device__ __forceinline__ bool ember_sort_before(T a, long long ia, T b, long long ib,
                                                                        bool descending) {
  const bool a_nan = a != a, b_nan = b != b;   // never true for integers
  if (a_nan || b_nan) {
    if (a_nan && b_nan) return ia < ib;
    return descending ? a_nan : b_nan;
  }
  if (a == b) return ia < ib;
  return descending ? a > b : a < b;
}

// the pair (lo, hi) that thread t of a network step compares: block size k, distance j (j == k / 2
// and mirror: the first step of a merge)
__device__ __forceinline__ void ember_sort_pair(long long t, long long k, long long j, bool mirror,
                                                long long* lo, long long* hi) {
  if (mirror) {
    const long long half = k / 2, block = t / half, offset = t % half;
    *lo = block * k + offset;
    *hi = block * k + k - 1 - offset;
  } else {
    *lo = (t / j) * 2 * j + t % j;
    *hi = *lo + j;
  }
}

template <typename T> __device__ __forceinline__ void ember_sort_exchange(T* v, long long* idx, long long lo,
                                                                         long long hi, bool descending) {
  if (ember_sort_before(v[hi], idx[hi], v[lo], idx[lo], descending)) {
    const T tv = v[lo]; v[lo] = v[hi]; v[hi] = tv;
    const long long ti = idx[lo]; idx[lo] = idx[hi]; idx[hi] = ti;
  }
}

// one block per row (grid-strided over rows); p: n rounded up to a power of two, threads: p / 2
#define EMBER_SORT_SHARED(NAME, T)                                                                        \
  extern "C" __global__ void sort_shared_##NAME(long long rows, long long n, long long p, T* values,    \
                                                long long* indices, int descending) {                  \
    __shared__ T v[2 * EMBER_SORT_THREADS];                                                            \
    __shared__ long long idx[2 * EMBER_SORT_THREADS];                                                  \
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {                                   \
      T* rv = values + row * n;                                                                        \
      long long* ri = indices + row * n;                                                               \
      for (long long i = threadIdx.x; i < n; i += blockDim.x) { v[i] = rv[i]; idx[i] = i; }            \
      __syncthreads();                                                                                 \
      for (long long k = 2; k <= p; k *= 2) {                                                          \
        for (long long j = k / 2; j >= 1; j /= 2) {                                                    \
          for (long long t = threadIdx.x; t < p / 2; t += blockDim.x) {                                \
            long long lo, hi;                                                                          \
            ember_sort_pair(t, k, j, j == k / 2, &lo, &hi);                                            \
            if (hi < n) ember_sort_exchange(v, idx, lo, hi, descending != 0);                          \
          }                                                                                            \
          __syncthreads();                                                                             \
        }                                                                                              \
      }                                                                                                \
      for (long long i = threadIdx.x; i < n; i += blockDim.x) { rv[i] = v[i]; ri[i] = idx[i]; }        \
      __syncthreads();                                                                                 \
    }                                                                                                  \
  }

// one network step (k, j) over every row: rows * p / 2 pairs, grid-strided
#define EMBER_SORT_STEP(NAME, T)                                                                          \
  extern "C" __global__ void sort_step_##NAME(long long rows, long long n, long long p, T* values,      \
                                              long long* indices, long long k, long long j,            \
                                              int descending) {                                        \
    const long long pairs = p / 2;                                                                     \
    for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < rows * pairs;             \
         g += (long long)blockDim.x * gridDim.x) {                                                     \
      const long long row = g / pairs;                                                                 \
      long long lo, hi;                                                                                \
      ember_sort_pair(g % pairs, k, j, j == k / 2, &lo, &hi);                                          \
      if (hi < n) ember_sort_exchange(values + row * n, indices + row * n, lo, hi, descending != 0);   \
    }                                                                                                  \
  }

#define EMBER_SORT(NAME, T) EMBER_SORT_SHARED(NAME, T) EMBER_SORT_STEP(NAME, T)

EMBER_SORT(float32, float)
EMBER_SORT(float64, double)
EMBER_SORT(int64, long long)
EMBER_SORT(int32, int)
EMBER_SORT(int16, short)
EMBER_SORT(int8, signed char)
EMBER_SORT(uint8, unsigned char)

// positions 0..n-1 in every row, for the stepped sort
extern "C" __global__ void sort_iota(long long rows, long long n, long long* indices) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < rows * n;
       g += (long long)blockDim.x * gridDim.x)
    indices[g] = g % n;
}
