// One axis of an upsampling op (handwritten; aten/native/cuda/upsample.py): the contiguous input
// seen as (outer, in_size, inner) around that axis, the output (outer, out_size, inner). Output
// index j reads `taps` input indices index[j * taps + t] (already clamped to the input by the
// host, aten/native/meta/upsample_taps) and, with weights, sums x * weight in the tap order, the
// CPU kernel's order; without weights (nearest) it copies the one tap. The op applies this to the
// last axis first, then the ones before it, as the CPU does.

template <typename T>
__device__ __forceinline__ void resample_axis(long long outer, long long in_size, long long out_size,
                                              long long inner, int taps, const T* __restrict__ x,
                                              const long long* __restrict__ index,
                                              const T* __restrict__ weight, T* __restrict__ out) {
  const long long total = outer * out_size * inner;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long i = e % inner, j = (e / inner) % out_size, o = e / (inner * out_size);
    const T* row = x + o * in_size * inner + i;
    const long long* at = index + j * taps;
    if (weight == nullptr) {
      out[e] = row[at[0] * inner];
      continue;
    }
    const T* w = weight + j * taps;
    T acc = row[at[0] * inner] * w[0];
    for (int t = 1; t < taps; ++t) acc += row[at[t] * inner] * w[t];
    out[e] = acc;
  }
}

#define EMBER_RESAMPLE(T, NAME)                                                                    \
  extern "C" __global__ void resample_axis_##NAME(long long outer, long long in_size,             \
                                                  long long out_size, long long inner, int taps,  \
                                                  const T* x, const long long* index,              \
                                                  const T* weight, T* out) {                       \
    resample_axis<T>(outer, in_size, out_size, inner, taps, x, index, weight, out);                \
  }

EMBER_RESAMPLE(unsigned char, uint8)
EMBER_RESAMPLE(float, float32)
EMBER_RESAMPLE(double, float64)
