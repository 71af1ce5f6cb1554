// nll_loss_forward and nll_loss_backward on the device (handwritten; aten/native/cuda/loss.py): input (N, C) log
// probabilities, target (N) class indices, optional class weights. One block of 256 threads
// strides over the samples: loss_i = -weight[t] * input[i, t] (0 where t == ignore_index), written
// per sample for reduction 'none', else summed with the weights in a shared-memory tree
// (accumulating in double for float too, as the CPU kernel). A target outside [0, C) sets
// bad[0] to 1 + its sample index and bad[1] to the target; the host raises PyTorch's IndexError
// for it at the next synchronisation.

#define EMBER_NLL_THREADS 256

template <typename T>
__device__ __forceinline__ void nll_forward(long long N, long long C, const T* __restrict__ input,
                                            const long long* __restrict__ target, const T* __restrict__ weight,
                                            long long ignore_index, int reduction, T* __restrict__ out,
                                            T* __restrict__ total_weight, long long* __restrict__ bad) {
  __shared__ double loss_sum[EMBER_NLL_THREADS];
  __shared__ double weight_sum[EMBER_NLL_THREADS];
  double loss_acc = 0, weight_acc = 0;
  for (long long i = threadIdx.x; i < N; i += blockDim.x) {
    const long long t = target[i];
    double loss = 0;
    if (t != ignore_index) {
      if (t < 0 || t >= C) {
        if (atomicCAS((unsigned long long*)bad, 0ULL, (unsigned long long)(i + 1)) == 0ULL) bad[1] = t;
      } else {
        const double w = weight ? (double)weight[t] : 1.0;
        loss = -w * (double)input[i * C + t];
        weight_acc += w;
      }
    }
    if (reduction == 0) out[i] = (T)loss;
    loss_acc += loss;
  }
  loss_sum[threadIdx.x] = loss_acc;
  weight_sum[threadIdx.x] = weight_acc;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      loss_sum[threadIdx.x] += loss_sum[threadIdx.x + half];
      weight_sum[threadIdx.x] += weight_sum[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    total_weight[0] = (T)weight_sum[0];
    if (reduction == 1) out[0] = (T)(loss_sum[0] / weight_sum[0]);   // 0/0 is NaN, as PyTorch's
    if (reduction == 2) out[0] = (T)loss_sum[0];
  }
}

// The gradient on the input, one thread per element of (N, C): -weight[t] * grad at the sample's
// target class t, divided by total_weight for the mean (by 1 where that is 0), else 0; the
// composite's operations in its order (aten/native/composite/losses.py). A target out of range
// (the forward reported it) gives a row of zeros.
template <typename T>
__device__ __forceinline__ void nll_backward(long long N, long long C, const T* __restrict__ grad,
                                             const long long* __restrict__ target, const T* __restrict__ weight,
                                             long long ignore_index, int reduction,
                                             const T* __restrict__ total_weight, T* __restrict__ out) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < N * C;
       e += (long long)blockDim.x * gridDim.x) {
    const long long i = e / C, c = e % C, t = target[i];
    T v = 0;
    if (t == c && t != ignore_index) {
      T g = reduction == 0 ? grad[i] : grad[0];
      if (reduction == 1) g = g / (total_weight[0] == 0 ? (T)1 : total_weight[0]);
      v = -((weight ? weight[c] : (T)1) * g);
    }
    out[e] = v;
  }
}

// reduction: 0 none, 1 mean, 2 sum (at::Reduction); the forward takes one block of 256 threads
#define EMBER_NLL(T, NAME)                                                                         \
  extern "C" __global__ void nll_forward_##NAME(long long N, long long C, const T* input,          \
                                                const long long* target, const T* weight,          \
                                                long long ignore_index, int reduction, T* out,     \
                                                T* total_weight, long long* bad) {                 \
    nll_forward<T>(N, C, input, target, weight, ignore_index, reduction, out, total_weight, bad);  \
  }                                                                                                \
  extern "C" __global__ void nll_backward_##NAME(long long N, long long C, const T* grad,          \
                                                 const long long* target, const T* weight,         \
                                                 long long ignore_index, int reduction,            \
                                                 const T* total_weight, T* out) {                  \
    nll_backward<T>(N, C, grad, target, weight, ignore_index, reduction, total_weight, out);       \
  }

EMBER_NLL(float, float32)
EMBER_NLL(double, float64)
