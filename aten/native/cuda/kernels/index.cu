// index_select and index_add along one dimension (handwritten; aten/native/cuda/indexing.py): the
// tensors are contiguous and seen as (outer, size, inner) around that dimension; `index` holds n
// int64 positions. index_select writes out (outer, n, inner); index_add adds alpha * source
// (outer, n, inner) into self with atomics, so repeated indices accumulate. A position outside
// [0, size) (negative ones too, as PyTorch's) sets bad[0] to 1 + its place in index and bad[1] to it;
// the host raises
// PyTorch's error for it at the next synchronisation (runtime/device_checks.py).

__device__ __forceinline__ long long checked_index(long long p, long long size, long long j, long long* bad) {
  if (p < 0 || p >= size) {
    if (atomicCAS((unsigned long long*)bad, 0ULL, (unsigned long long)(j + 1)) == 0ULL) bad[1] = p;
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

// index_select moves elements unchanged, so it goes by element width: every dtype has one
#define EMBER_INDEX_SELECT(T, BYTES)                                                               \
  extern "C" __global__ void index_select_##BYTES(long long outer, long long size, long long inner, \
                                                  long long n, const T* in, const long long* index, \
                                                  T* out, long long* bad) {                         \
    index_select<T>(outer, size, inner, n, in, index, out, bad);                                   \
  }

EMBER_INDEX_SELECT(unsigned char, 1)
EMBER_INDEX_SELECT(unsigned short, 2)
EMBER_INDEX_SELECT(unsigned int, 4)
EMBER_INDEX_SELECT(unsigned long long, 8)

#define EMBER_INDEX(T, NAME)                                                                       \
  extern "C" __global__ void index_add_##NAME(long long outer, long long size, long long inner,    \
                                              long long n, T* self, const long long* index,        \
                                              const T* source, T alpha, long long* bad) {          \
    index_add<T>(outer, size, inner, n, self, index, source, alpha, bad);                          \
  }

EMBER_INDEX(float, float32)
EMBER_INDEX(double, float64)
EMBER_INDEX(int, int32)
EMBER_INDEX(long long, int64)

// ---- advanced indexing, gather and scatter --------------------------------------------------------
// One thread per element of the indexing result (int64 `meta`, uploaded per launch):
//   [nd, K, allow_negative, sizes[nd], self_strides[nd], value_strides[nd],
//    K x (index pointer, self stride of the indexed dim, its size, index_strides[nd])]
// The self offset of result element e is the sum of its coordinates times self_strides (0 along
// the indexed block) plus, for each index tensor, its value at e (wrapped when negative values
// count from the end) times the indexed dim's stride. A value out of range records 1 + e, the
// value and k in bad[0..2] (the first thread to find one); the host raises PyTorch's error for it.

#define EMBER_MAX_INDEX_DIMS 32   // advanced_indexing.py _MAX_DIMS

__device__ __forceinline__ long long indexed_offset(long long e, const long long* __restrict__ meta,
                                                    long long* value_offset, long long* bad) {
  const int nd = (int)meta[0], K = (int)meta[1];
  const bool allow_negative = meta[2] != 0;
  const long long* sizes = meta + 3;
  const long long* self_strides = sizes + nd;
  const long long* value_strides = self_strides + nd;
  long long coord[EMBER_MAX_INDEX_DIMS];
  long long rest = e, offset = 0, voffset = 0;
  for (int d = nd - 1; d >= 0; --d) {
    coord[d] = rest % sizes[d];
    rest /= sizes[d];
    offset += coord[d] * self_strides[d];
    voffset += coord[d] * value_strides[d];
  }
  const long long* block = value_strides + nd;
  for (int k = 0; k < K; ++k, block += 3 + nd) {
    const long long* index = (const long long*)block[0];
    long long at = 0;
    for (int d = 0; d < nd; ++d) at += coord[d] * block[3 + d];
    const long long value = index[at], size = block[2];
    const long long p = (value < 0 && allow_negative) ? value + size : value;
    if (p < 0 || p >= size) {
      if (atomicCAS((unsigned long long*)bad, 0ULL, (unsigned long long)(e + 1)) == 0ULL) {
        bad[1] = value;
        bad[2] = k;
      }
      return -1;
    }
    offset += p * block[1];
  }
  *value_offset = voffset;
  return offset;
}

template <typename T>
__device__ __forceinline__ void take(long long n, const long long* meta, const T* __restrict__ src,
                                     T* __restrict__ out, long long* bad) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n; e += (long long)blockDim.x * gridDim.x) {
    long long unused;
    const long long offset = indexed_offset(e, meta, &unused, bad);
    if (offset >= 0) out[e] = src[offset];
  }
}

// self[offset] = value, or += with atomics (kAdd) so that repeated positions all count.
template <typename T, bool kAdd>
__device__ __forceinline__ void put(long long n, const long long* meta, T* dst, const T* __restrict__ values,
                                    long long* bad) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n; e += (long long)blockDim.x * gridDim.x) {
    long long voffset;
    const long long offset = indexed_offset(e, meta, &voffset, bad);
    if (offset < 0) continue;
    if constexpr (kAdd) atomic_add(dst + offset, values[voffset]);
    else dst[offset] = values[voffset];
  }
}

// Copies by element width: the bytes move unchanged whatever the dtype.
#define EMBER_MOVE(T, BYTES)                                                                      \
  extern "C" __global__ void take_##BYTES(long long n, const long long* meta, const T* src, T* out, \
                                          long long* bad) {                                       \
    take<T>(n, meta, src, out, bad);                                                              \
  }                                                                                               \
  extern "C" __global__ void put_##BYTES(long long n, const long long* meta, T* dst, const T* values, \
                                         long long* bad) {                                        \
    put<T, false>(n, meta, dst, values, bad);                                                     \
  }

EMBER_MOVE(unsigned char, 1)
EMBER_MOVE(unsigned short, 2)
EMBER_MOVE(unsigned int, 4)
EMBER_MOVE(unsigned long long, 8)

#define EMBER_PUT_ADD(T, NAME)                                                                    \
  extern "C" __global__ void put_add_##NAME(long long n, const long long* meta, T* dst, const T* values, \
                                            long long* bad) {                                     \
    put<T, true>(n, meta, dst, values, bad);                                                      \
  }

EMBER_PUT_ADD(float, float32)
EMBER_PUT_ADD(double, float64)
EMBER_PUT_ADD(int, int32)
EMBER_PUT_ADD(long long, int64)

// scatter_reduce's prod, amax and amin (op 0, 1, 2): a compare-and-swap loop on the value's bits,
// so that repeated positions all combine. amax/amin propagate a NaN from the source and keep one
// already in self, as the CPU's reductions do.
template <typename T> __device__ __forceinline__ T reduce_combine(T a, T b, int op) {
  if (op == 0) return (T)(a * b);
  if (op == 1) return (b != b || a < b) ? b : a;
  return (b != b || b < a) ? b : a;
}

template <typename T, typename Bits> __device__ __forceinline__ void atomic_combine(T* address, T v, int op) {
  Bits* bits = (Bits*)address;
  Bits old = *bits, assumed;
  do {
    assumed = old;
    T current;
    memcpy(&current, &assumed, sizeof(T));
    const T next = reduce_combine(current, v, op);
    Bits wanted;
    memcpy(&wanted, &next, sizeof(T));
    if (wanted == assumed) return;
    old = atomicCAS(bits, assumed, wanted);
  } while (assumed != old);
}

// mean's last step: each sum over its count (at least 1); integers divide with floor, as PyTorch's
// (the template serves the integral types; float and double have their overloads)
template <typename T> __device__ __forceinline__ T divide_by_count(T s, long long c) {
  const T b = (T)(c > 0 ? c : 1);
  T q = (T)(s / b);
  if (s % b != 0 && s < 0) q -= 1;
  return q;
}
__device__ __forceinline__ float divide_by_count(float s, long long c) { return s / (float)(c > 0 ? c : 1); }
__device__ __forceinline__ double divide_by_count(double s, long long c) { return s / (double)(c > 0 ? c : 1); }

#define EMBER_PUT_REDUCE(T, BITS, NAME)                                                           \
  extern "C" __global__ void put_reduce_##NAME(long long n, const long long* meta, T* dst, const T* values, \
                                               long long* bad, int op) {                          \
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n;                   \
         e += (long long)blockDim.x * gridDim.x) {                                                \
      long long voffset;                                                                          \
      const long long offset = indexed_offset(e, meta, &voffset, bad);                           \
      if (offset >= 0) atomic_combine<T, BITS>(dst + offset, values[voffset], op);               \
    }                                                                                             \
  }                                                                                               \
  extern "C" __global__ void divide_by_counts_##NAME(long long n, T* sums, const long long* counts) { \
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n;                   \
         e += (long long)blockDim.x * gridDim.x)                                                  \
      sums[e] = divide_by_count(sums[e], counts[e]);                                              \
  }

EMBER_PUT_REDUCE(float, unsigned int, float32)
EMBER_PUT_REDUCE(double, unsigned long long, float64)
EMBER_PUT_REDUCE(int, unsigned int, int32)
EMBER_PUT_REDUCE(long long, unsigned long long, int64)

// nonzero over a contiguous tensor, in chunks of `chunk` elements per thread: the counts per chunk
// first, then (from their prefix sums, taken on the host) each chunk's positions in order, written
// as nd coordinates out[j * nd + d] (meta = [nd, sizes[nd]]). float16 and bfloat16 are read as
// their bits: nonzero unless both zeros (the sign bit masked off).
template <typename T> __device__ __forceinline__ bool is_nonzero(T v) { return v != T(0); }
struct ember_float16_bits { unsigned short bits; };    // float16 and bfloat16 alike
template <> __device__ __forceinline__ bool is_nonzero(ember_float16_bits v) { return (v.bits & 0x7fff) != 0; }

template <typename T>
__device__ __forceinline__ void count_nonzero_chunks(long long n, long long chunk, const T* x, long long* counts) {
  const long long chunks = (n + chunk - 1) / chunk;
  for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < chunks;
       c += (long long)blockDim.x * gridDim.x) {
    long long count = 0;
    const long long end = min(n, (c + 1) * chunk);
    for (long long i = c * chunk; i < end; ++i) count += is_nonzero(x[i]);
    counts[c] = count;
  }
}

template <typename T>
__device__ __forceinline__ void write_nonzero_chunks(long long n, long long chunk, const T* x,
                                                     const long long* starts, const long long* meta, long long* out) {
  const long long chunks = (n + chunk - 1) / chunk;
  const int nd = (int)meta[0];
  for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < chunks;
       c += (long long)blockDim.x * gridDim.x) {
    long long j = starts[c];
    const long long end = min(n, (c + 1) * chunk);
    for (long long i = c * chunk; i < end; ++i) {
      if (!is_nonzero(x[i])) continue;
      long long rest = i;
      for (int d = nd - 1; d >= 0; --d) {
        out[j * nd + d] = rest % meta[1 + d];
        rest /= meta[1 + d];
      }
      ++j;
    }
  }
}

#define EMBER_NONZERO(T, NAME)                                                                    \
  extern "C" __global__ void count_nonzero_chunks_##NAME(long long n, long long chunk, const T* x, \
                                                         long long* counts) {                     \
    count_nonzero_chunks<T>(n, chunk, x, counts);                                                 \
  }                                                                                               \
  extern "C" __global__ void write_nonzero_chunks_##NAME(long long n, long long chunk, const T* x, \
                                                         const long long* starts, const long long* meta, \
                                                         long long* out) {                        \
    write_nonzero_chunks<T>(n, chunk, x, starts, meta, out);                                      \
  }

EMBER_NONZERO(unsigned char, bool)
EMBER_NONZERO(unsigned char, uint8)
EMBER_NONZERO(signed char, int8)
EMBER_NONZERO(short, int16)
EMBER_NONZERO(int, int32)
EMBER_NONZERO(long long, int64)
EMBER_NONZERO(ember_float16_bits, float16)
EMBER_NONZERO(ember_float16_bits, bfloat16)
EMBER_NONZERO(float, float32)
EMBER_NONZERO(double, float64)
