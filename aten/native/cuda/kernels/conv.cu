// Convolution (1-D as height 1, 2-D; grouped; strided, padded, dilated; transposed) and 2-D max
// pooling on the device (handwritten; aten/native/cuda/conv.py): one thread per output element
// sums its window directly, in the tensor's type. Inputs are contiguous (N, C, H, W); a transposed
// convolution's weight is (C, O / G, KH, KW), where an output position takes the input positions
// that stride onto it. The convolution backward passes run through these same kernels (the
// autograd formulas are convolutions of the gradient).

template <typename T>
__device__ __forceinline__ void conv2d_direct(long long N, long long C, long long H, long long W, long long O,
                                              long long KH, long long KW, long long HO, long long WO, long long G,
                                              long long sh, long long sw, long long ph, long long pw, long long dh,
                                              long long dw, int transposed, const T* __restrict__ x,
                                              const T* __restrict__ w, const T* __restrict__ bias,
                                              T* __restrict__ y) {
  const long long total = N * O * HO * WO, Cg = C / G, Og = O / G;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long ow = e % WO, oh = (e / WO) % HO, o = (e / (WO * HO)) % O, n = e / (WO * HO * O);
    const long long g = o / Og;
    T acc = bias ? bias[o] : T(0);
    for (long long c = 0; c < Cg; ++c) {
      const long long ci = g * Cg + c;
      const T* xc = x + (n * C + ci) * H * W;
      for (long long i = 0; i < KH; ++i) {
        long long ih;
        if (transposed) {
          const long long t = oh + ph - i * dh;
          if (t < 0 || t % sh) continue;
          ih = t / sh;
        } else {
          ih = oh * sh - ph + i * dh;
        }
        if (ih < 0 || ih >= H) continue;
        for (long long j = 0; j < KW; ++j) {
          long long iw;
          if (transposed) {
            const long long u = ow + pw - j * dw;
            if (u < 0 || u % sw) continue;
            iw = u / sw;
          } else {
            iw = ow * sw - pw + j * dw;
          }
          if (iw < 0 || iw >= W) continue;
          const long long widx = transposed ? ((ci * Og + (o - g * Og)) * KH + i) * KW + j
                                            : ((o * Cg + c) * KH + i) * KW + j;
          acc += w[widx] * xc[ih * W + iw];
        }
      }
    }
    y[e] = acc;
  }
}

// One output per thread: the window's maximum (NaN wins, then the first maximum) and its flat
// index ih * W + iw within the plane, as the CPU kernel's.
template <typename T>
__device__ __forceinline__ void max_pool2d(long long planes, long long H, long long W, long long HO, long long WO,
                                           long long KH, long long KW, long long sh, long long sw, long long ph,
                                           long long pw, long long dh, long long dw, const T* __restrict__ x,
                                           T* __restrict__ y, long long* __restrict__ indices) {
  const long long total = planes * HO * WO;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long ow = e % WO, oh = (e / WO) % HO, p = e / (WO * HO);
    const T* xp = x + p * H * W;
    long long best = -1;
    T value = T(0);
    for (long long i = 0; i < KH; ++i) {
      const long long ih = oh * sh - ph + i * dh;
      if (ih < 0 || ih >= H) continue;
      for (long long j = 0; j < KW; ++j) {
        const long long iw = ow * sw - pw + j * dw;
        if (iw < 0 || iw >= W) continue;
        const T v = xp[ih * W + iw];
        if (best < 0 || (v > value) || (v != v && value == value)) {
          value = v;
          best = ih * W + iw;
        }
      }
    }
    y[e] = value;
    indices[e] = best;
  }
}

// Average pooling, one thread per output: the window clipped to the padded frame gives the
// divisor when padding counts (count_include_pad), the window clipped to the input otherwise,
// unless a divisor overrides both (PyTorch's AvgPool2d rules). Sums accumulate in double.
template <typename T>
__device__ __forceinline__ void avg_pool2d(long long planes, long long H, long long W, long long HO, long long WO,
                                           long long KH, long long KW, long long sh, long long sw, long long ph,
                                           long long pw, int count_include_pad, long long divisor_override,
                                           const T* __restrict__ x, T* __restrict__ y) {
  const long long total = planes * HO * WO;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long ow = e % WO, oh = (e / WO) % HO, p = e / (WO * HO);
    long long h0 = oh * sh - ph, w0 = ow * sw - pw;
    long long h1 = min(h0 + KH, H + ph), w1 = min(w0 + KW, W + pw);
    const long long padded = (h1 - h0) * (w1 - w0);
    h0 = max(h0, 0LL); w0 = max(w0, 0LL); h1 = min(h1, H); w1 = min(w1, W);
    if (h0 >= h1 || w0 >= w1) { y[e] = T(0); continue; }
    const T* xp = x + p * H * W;
    double acc = 0;
    for (long long h = h0; h < h1; ++h)
      for (long long w = w0; w < w1; ++w) acc += xp[h * W + w];
    const long long divisor = divisor_override ? divisor_override
                                               : (count_include_pad ? padded : (h1 - h0) * (w1 - w0));
    y[e] = (T)(acc / divisor);
  }
}

// Adaptive average pooling, one thread per output: window [floor(o*I/O), ceil((o+1)*I/O)).
template <typename T>
__device__ __forceinline__ void adaptive_avg_pool2d(long long planes, long long H, long long W, long long HO,
                                                    long long WO, const T* __restrict__ x, T* __restrict__ y) {
  const long long total = planes * HO * WO;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long ow = e % WO, oh = (e / WO) % HO, p = e / (WO * HO);
    const long long h0 = oh * H / HO, h1 = ((oh + 1) * H + HO - 1) / HO;
    const long long w0 = ow * W / WO, w1 = ((ow + 1) * W + WO - 1) / WO;
    const T* xp = x + p * H * W;
    double acc = 0;
    for (long long h = h0; h < h1; ++h)
      for (long long w = w0; w < w1; ++w) acc += xp[h * W + w];
    y[e] = (T)(acc / ((h1 - h0) * (w1 - w0)));
  }
}

#define EMBER_CONV(T, NAME)                                                                        \
  extern "C" __global__ void conv2d_##NAME(long long N, long long C, long long H, long long W,     \
                                           long long O, long long KH, long long KW, long long HO,   \
                                           long long WO, long long G, long long sh, long long sw,  \
                                           long long ph, long long pw, long long dh, long long dw, \
                                           int transposed, const T* x, const T* w, const T* bias,  \
                                           T* y) {                                                 \
    conv2d_direct<T>(N, C, H, W, O, KH, KW, HO, WO, G, sh, sw, ph, pw, dh, dw, transposed, x, w, bias, y); \
  }                                                                                                \
  extern "C" __global__ void max_pool2d_##NAME(long long planes, long long H, long long W,         \
                                               long long HO, long long WO, long long KH,           \
                                               long long KW, long long sh, long long sw,           \
                                               long long ph, long long pw, long long dh,           \
                                               long long dw, const T* x, T* y, long long* indices) { \
    max_pool2d<T>(planes, H, W, HO, WO, KH, KW, sh, sw, ph, pw, dh, dw, x, y, indices);            \
  }                                                                                                \
  extern "C" __global__ void avg_pool2d_##NAME(long long planes, long long H, long long W,         \
                                               long long HO, long long WO, long long KH,           \
                                               long long KW, long long sh, long long sw,           \
                                               long long ph, long long pw, int count_include_pad,  \
                                               long long divisor_override, const T* x, T* y) {     \
    avg_pool2d<T>(planes, H, W, HO, WO, KH, KW, sh, sw, ph, pw, count_include_pad, divisor_override, x, y); \
  }                                                                                                \
  extern "C" __global__ void adaptive_avg_pool2d_##NAME(long long planes, long long H, long long W, \
                                                        long long HO, long long WO, const T* x, T* y) { \
    adaptive_avg_pool2d<T>(planes, H, W, HO, WO, x, y);                                            \
  }

EMBER_CONV(float, float32)
EMBER_CONV(double, float64)
