// Strided copies on the device (handwritten; aten/native/cuda/runtime/transfer.py): element i of a shape is
// read at its source offset and written at its destination offset, both from element strides, so
// one kernel per element size serves clone/contiguous of any view and copy_ into any view.
// meta (device array): nd, sizes[nd], dst_strides[nd], src_strides[nd].

template <typename T>
__device__ __forceinline__ void strided_copy(long long n, const long long* __restrict__ meta, T* dst,
                                             const T* __restrict__ src) {
  const int nd = (int)meta[0];
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) {
    long long rem = i, d_off = 0, s_off = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const long long size = meta[1 + d];
      const long long idx = rem % size;
      rem /= size;
      d_off += idx * meta[1 + nd + d];
      s_off += idx * meta[1 + 2 * nd + d];
    }
    dst[d_off] = src[s_off];
  }
}

#define EMBER_STRIDED_COPY(BYTES, T)                                                               \
  extern "C" __global__ void strided_copy_##BYTES(long long n, const long long* meta, T* dst,      \
                                                  const T* src) {                                 \
    strided_copy<T>(n, meta, dst, src);                                                            \
  }

EMBER_STRIDED_COPY(1, unsigned char)
EMBER_STRIDED_COPY(2, unsigned short)
EMBER_STRIDED_COPY(4, unsigned int)
EMBER_STRIDED_COPY(8, unsigned long long)
struct alignas(16) ember_bytes16 { unsigned long long lo, hi; };     // a complex128 element
EMBER_STRIDED_COPY(16, ember_bytes16)
