// Row reductions on the device (handwritten; aten/native/cuda/reduce.py): the input is contiguous
// (rows, R), the reduced dimensions moved last; one block of 256 threads per row (grid-stride over
// rows) folds R with a strided loop, then a shared-memory tree. Sums accumulate in the result type
// (float in float, as PyTorch's CUDA sum); min/max propagate NaN and keep the first index of the
// extreme value, as PyTorch's.

#include "block_reduce.cuh"

#define EMBER_REDUCE_THREADS 256

// Sums (scaled for means) and products of each row; Op folds two values, `identity` is its unit.
template <typename T, typename Op>
__device__ __forceinline__ void fold_rows(long long rows, long long R, const T* __restrict__ in,
                                          T* __restrict__ out, double scale, T identity, Op op) {
  __shared__ T partial[EMBER_REDUCE_THREADS];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * R;
    T acc = identity;
    for (long long j = threadIdx.x; j < R; j += blockDim.x) acc = op(acc, x[j]);
    const T total = ember_block_reduce(acc, partial, op);
    if (threadIdx.x == 0) out[row] = scale == 1.0 ? total : (T)(total * scale);
  }
}

template <typename T>
__device__ __forceinline__ bool is_nan(T v) { return v != v; }

// Whether (a, ia) wins over (b, ib): NaN first, then the larger (smaller) value, then the lower index.
template <typename T>
__device__ __forceinline__ bool better(T a, long long ia, T b, long long ib, bool is_max) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) && (!is_nan(b) || ia < ib);
  if (a == b) return ia < ib;
  return is_max ? a > b : a < b;
}

template <typename T>
__device__ __forceinline__ void minmax_rows(long long rows, long long R, const T* __restrict__ in,
                                            T* __restrict__ values, long long* __restrict__ indices,
                                            int is_max) {
  __shared__ T best_v[EMBER_REDUCE_THREADS];
  __shared__ long long best_i[EMBER_REDUCE_THREADS];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * R;
    T v = x[0];
    long long vi = 0;
    for (long long j = threadIdx.x; j < R; j += blockDim.x)
      if (better(x[j], j, v, vi, is_max)) { v = x[j]; vi = j; }
    best_v[threadIdx.x] = v;
    best_i[threadIdx.x] = vi;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half &&
          better(best_v[threadIdx.x + half], best_i[threadIdx.x + half], best_v[threadIdx.x], best_i[threadIdx.x],
                 is_max)) {
        best_v[threadIdx.x] = best_v[threadIdx.x + half];
        best_i[threadIdx.x] = best_i[threadIdx.x + half];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if (values) values[row] = best_v[0];
      if (indices) indices[row] = best_i[0];
    }
    __syncthreads();
  }
}

// cumsum/cumprod along a dim of a contiguous (outer, n, inner) tensor: one thread per (outer,
// inner) line walks its n elements in order (neighbouring threads read neighbouring elements).
template <typename T>
__device__ __forceinline__ void scan_lines(long long outer, long long n, long long inner, const T* __restrict__ in,
                                           T* __restrict__ out, int prod) {
  const long long lines = outer * inner;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < lines;
       e += (long long)blockDim.x * gridDim.x) {
    const long long base = (e / inner) * n * inner + e % inner;
    T acc = prod ? T(1) : T(0);
    for (long long i = 0; i < n; ++i) {
      acc = prod ? acc * in[base + i * inner] : acc + in[base + i * inner];
      out[base + i * inner] = acc;
    }
  }
}

// cummax/cummin (is_max) the way PyTorch's CPU scan runs them: an element takes over when it is
// NaN, or when the running value is not NaN and the element is >= (<= for cummin) it, so among
// equal values the last index wins and a NaN, once seen, stays.
template <typename T>
__device__ __forceinline__ void extreme_lines(long long outer, long long n, long long inner, const T* __restrict__ in,
                                              T* __restrict__ values, long long* __restrict__ indices, int is_max) {
  const long long lines = outer * inner;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < lines;
       e += (long long)blockDim.x * gridDim.x) {
    const long long base = (e / inner) * n * inner + e % inner;
    T best = in[base];
    long long at = 0;
    for (long long i = 0; i < n; ++i) {
      const T v = in[base + i * inner];
      const bool takes = v != v || (best == best && (is_max ? v >= best : v <= best));
      if (takes) { best = v; at = i; }
      values[base + i * inner] = best;
      indices[base + i * inner] = at;
    }
  }
}

// logcumsumexp in double (PyTorch's CPU acc type for float and double): each element log-added
// to the running value as log1p(exp(min - max)) + max; a NaN running value stays NaN, and two
// equal infinities give the element.
template <typename T>
__device__ __forceinline__ void log_cumsum_exp_lines(long long outer, long long n, long long inner,
                                                     const T* __restrict__ in, T* __restrict__ out) {
  const long long lines = outer * inner;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < lines;
       e += (long long)blockDim.x * gridDim.x) {
    const long long base = (e / inner) * n * inner + e % inner;
    double acc = -INFINITY;
    for (long long i = 0; i < n; ++i) {
      const double x = (double)in[base + i * inner];
      double lo, hi;
      if (acc != acc) { lo = hi = acc; }
      else { lo = acc < x ? acc : x; hi = x < acc ? acc : x; }
      acc = (lo != hi || isfinite(lo)) ? log1p(exp(lo - hi)) + hi : x;
      out[base + i * inner] = (T)acc;
    }
  }
}

// Sums over the middle of a contiguous (outer, n, inner) input (a bias gradient's column sums, say),
// no transposed copy first: one thread per (outer, inner) element walks its n values, accumulating
// in Acc (double for floats, so the walk's order costs no accuracy); the launcher takes this path
// only when that gives enough threads.
template <typename T, typename Acc>
__device__ __forceinline__ void sum_lines(long long outer, long long n, long long inner, const T* __restrict__ in,
                                          T* __restrict__ out, double scale) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < outer * inner;
       e += (long long)blockDim.x * gridDim.x) {
    const T* x = in + (e / inner) * n * inner + e % inner;
    Acc acc = 0;
    for (long long k = 0; k < n; ++k) acc += (Acc)x[k * inner];
    out[e] = scale == 1.0 ? (T)acc : (T)(acc * scale);
  }
}

#define EMBER_EXTREME_SCAN(T, NAME)                                                                \
  extern "C" __global__ void extreme_lines_##NAME(long long outer, long long n, long long inner,  \
                                                  const T* in, T* values, long long* indices,     \
                                                  int is_max) {                                   \
    extreme_lines<T>(outer, n, inner, in, values, indices, is_max);                               \
  }

EMBER_EXTREME_SCAN(unsigned char, uint8)
EMBER_EXTREME_SCAN(signed char, int8)
EMBER_EXTREME_SCAN(short, int16)

#define EMBER_REDUCE(T, NAME, ACC)                                                                 \
  extern "C" __global__ void sum_lines_##NAME(long long outer, long long n, long long inner, const T* in, \
                                              T* out, double scale) {                              \
    sum_lines<T, ACC>(outer, n, inner, in, out, scale);                                            \
  }                                                                                                \
  extern "C" __global__ void sum_rows_##NAME(long long rows, long long R, const T* in, T* out,     \
                                             double scale) {                                       \
    fold_rows<T>(rows, R, in, out, scale, (T)0, EmberSum());                                       \
  }                                                                                                \
  extern "C" __global__ void prod_rows_##NAME(long long rows, long long R, const T* in, T* out) {  \
    fold_rows<T>(rows, R, in, out, 1.0, (T)1, EmberProd());                                        \
  }                                                                                                \
  extern "C" __global__ void minmax_rows_##NAME(long long rows, long long R, const T* in,          \
                                                T* values, long long* indices, int is_max) {       \
    minmax_rows<T>(rows, R, in, values, indices, is_max);                                          \
  }                                                                                                \
  extern "C" __global__ void scan_lines_##NAME(long long outer, long long n, long long inner,      \
                                               const T* in, T* out, int prod) {                    \
    scan_lines<T>(outer, n, inner, in, out, prod);                                                 \
  }                                                                                                \
  EMBER_EXTREME_SCAN(T, NAME)

// complex products (sums reduce the real view, reduce.py); c10::complex's product
#include "complex.cuh"
#define EMBER_COMPLEX_PROD(T, NAME)                                                                \
  extern "C" __global__ void prod_rows_##NAME(long long rows, long long R, const T* in, T* out) {  \
    fold_rows<T>(rows, R, in, out, 1.0, T(1), EmberProd());                                        \
  }
EMBER_COMPLEX_PROD(ember_complex<float>, complex64)
EMBER_COMPLEX_PROD(ember_complex<double>, complex128)

EMBER_REDUCE(float, float32, double)
EMBER_REDUCE(double, float64, double)
EMBER_REDUCE(int, int32, int)
EMBER_REDUCE(long long, int64, long long)

#define EMBER_LOG_CUMSUM_EXP(T, NAME)                                                              \
  extern "C" __global__ void log_cumsum_exp_lines_##NAME(long long outer, long long n, long long inner, \
                                                         const T* in, T* out) {                    \
    log_cumsum_exp_lines<T>(outer, n, inner, in, out);                                             \
  }

EMBER_LOG_CUMSUM_EXP(float, float32)
EMBER_LOG_CUMSUM_EXP(double, float64)
