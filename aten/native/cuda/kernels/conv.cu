// Convolution as im2col + GEMM and its transpose as GEMM + col2im (aten/native/cuda/conv.py runs
// the GEMMs with gemm.cu), and 2-D max, average and adaptive average pooling, one thread per output
// element (handwritten). Inputs are contiguous (N, C, D, H, W); 2-D convolutions come as depth 1 and
// 1-D ones as depth and height 1.

// Volumes throughout: 2-D convolutions come with a depth of 1 (D = KD = DO = 1, sd = dd = 1, pd = 0).
// cols (N, C*KD*KH*KW, DO*HO*WO): row (c, a, i, j) holds, for each output position, the input
// element under kernel tap (a, i, j) of channel c, or 0 in the padding.
template <typename T>
__device__ __forceinline__ void im2col(long long N, long long C, long long D, long long H, long long W,
                                       long long KD, long long KH, long long KW, long long DO, long long HO,
                                       long long WO, long long sd, long long sh, long long sw, long long pd,
                                       long long ph, long long pw, long long dd, long long dh, long long dw,
                                       const T* __restrict__ x, T* __restrict__ cols) {
  const long long L = DO * HO * WO, K = KD * KH * KW, total = N * C * K * L;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long l = e % L, row = (e / L) % (C * K), n = e / (L * C * K);
    const long long j = row % KW, i = (row / KW) % KH, a = (row / (KW * KH)) % KD, c = row / K;
    const long long id = (l / (HO * WO)) * sd - pd + a * dd, ih = ((l / WO) % HO) * sh - ph + i * dh;
    const long long iw = (l % WO) * sw - pw + j * dw;
    cols[e] = (id >= 0 && id < D && ih >= 0 && ih < H && iw >= 0 && iw < W)
                  ? x[(((n * C + c) * D + id) * H + ih) * W + iw] : T(0);
  }
}

// A transposed convolution's output from cols (N, OG*KD*KH*KW, D*H*W) (the weight's transpose times
// the input, one group): output (od, oh, ow) of channel o sums the cols of every tap (a, i, j) and
// input position (id, ih, iw) that strides onto it, oh = ih * sh - ph + i * dh (and so for d, w);
// then the bias. Written into channels [o0, o0 + OG) of an output with O channels.
template <typename T>
__device__ __forceinline__ void col2im(long long N, long long OG, long long O, long long o0, long long D,
                                       long long H, long long W, long long KD, long long KH, long long KW,
                                       long long DO, long long HO, long long WO, long long sd, long long sh,
                                       long long sw, long long pd, long long ph, long long pw, long long dd,
                                       long long dh, long long dw, const T* __restrict__ cols,
                                       const T* __restrict__ bias, T* __restrict__ y) {
  const long long total = N * OG * DO * HO * WO;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)blockDim.x * gridDim.x) {
    const long long ow = e % WO, oh = (e / WO) % HO, od = (e / (WO * HO)) % DO;
    const long long o = (e / (WO * HO * DO)) % OG, n = e / (WO * HO * DO * OG);
    T acc = bias ? bias[o0 + o] : T(0);
    for (long long a = 0; a < KD; ++a) {
      const long long td = od + pd - a * dd;
      if (td < 0 || td % sd) continue;
      const long long id = td / sd;
      if (id >= D) continue;
      for (long long i = 0; i < KH; ++i) {
        const long long th = oh + ph - i * dh;
        if (th < 0 || th % sh) continue;
        const long long ih = th / sh;
        if (ih >= H) continue;
        for (long long j = 0; j < KW; ++j) {
          const long long tw = ow + pw - j * dw;
          if (tw < 0 || tw % sw) continue;
          const long long iw = tw / sw;
          if (iw >= W) continue;
          acc += cols[(((n * OG + o) * KD + a) * KH * KW + i * KW + j) * D * H * W + (id * H + ih) * W + iw];
        }
      }
    }
    y[(((n * O + o0 + o) * DO + od) * HO + oh) * WO + ow] = acc;
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
  extern "C" __global__ void im2col_##NAME(long long N, long long C, long long D, long long H,      \
                                           long long W, long long KD, long long KH, long long KW,  \
                                           long long DO, long long HO, long long WO, long long sd, \
                                           long long sh, long long sw, long long pd, long long ph, \
                                           long long pw, long long dd, long long dh, long long dw, \
                                           const T* x, T* cols) {                                  \
    im2col<T>(N, C, D, H, W, KD, KH, KW, DO, HO, WO, sd, sh, sw, pd, ph, pw, dd, dh, dw, x, cols); \
  }                                                                                                \
  extern "C" __global__ void col2im_##NAME(long long N, long long OG, long long O, long long o0,   \
                                           long long D, long long H, long long W, long long KD,    \
                                           long long KH, long long KW, long long DO, long long HO, \
                                           long long WO, long long sd, long long sh, long long sw, \
                                           long long pd, long long ph, long long pw, long long dd, \
                                           long long dh, long long dw, const T* cols, const T* bias, \
                                           T* y) {                                                 \
    col2im<T>(N, OG, O, o0, D, H, W, KD, KH, KW, DO, HO, WO, sd, sh, sw, pd, ph, pw, dd, dh, dw,  \
              cols, bias, y);                                                                      \
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
