// searchsorted on the device (handwritten; aten/native/cuda/search.py): one thread per value
// bisects its row of boundaries as PyTorch's cus_lower_bound / cus_upper_bound do (a
// `!(mid >= value)` test, so NaN boundaries behave as in PyTorch), through the sorter when one is
// given; check_sorter has vetted the sorter first (an index outside its row sets bad[0]).

template <typename T>
__device__ __forceinline__ void search(long long n, const T* __restrict__ values, const T* __restrict__ boundaries,
                                       const long long* __restrict__ sorter, long long per_row, long long row_len,
                                       int one_row, int right, long long* __restrict__ out) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n; e += (long long)blockDim.x * gridDim.x) {
    const long long start = one_row ? 0 : (e / per_row) * row_len;
    const T v = values[e];
    long long lo = 0, hi = row_len;
    while (lo < hi) {
      const long long mid = lo + ((hi - lo) >> 1);
      const T m = boundaries[start + (sorter ? sorter[start + mid] : mid)];
      if (right ? !(m > v) : !(m >= v)) lo = mid + 1;
      else hi = mid;
    }
    out[e] = lo;
  }
}

#define EMBER_SEARCH(T, NAME)                                                                       \
  extern "C" __global__ void searchsorted_##NAME(long long n, const T* values, const T* boundaries, \
                                                 const long long* sorter, long long per_row,        \
                                                 long long row_len, int one_row, int right,         \
                                                 long long* out) {                                  \
    search<T>(n, values, boundaries, sorter, per_row, row_len, one_row, right, out);                \
  }

EMBER_SEARCH(float, float32)
EMBER_SEARCH(double, float64)
EMBER_SEARCH(long long, int64)
EMBER_SEARCH(int, int32)
EMBER_SEARCH(short, int16)
EMBER_SEARCH(signed char, int8)
EMBER_SEARCH(unsigned char, uint8)

extern "C" __global__ void check_sorter(long long n, const long long* sorter, long long row_len,
                                        unsigned long long* bad) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n; e += (long long)blockDim.x * gridDim.x)
    if (sorter[e] < 0 || sorter[e] >= row_len) atomicCAS(bad, 0ULL, (unsigned long long)(e + 1));
}
