// The multi-tensor optimizer steps on CUDA (aten/native/cuda/fused_optim.py): one launch updates
// every parameter of a group. `spans` lists runs of at most one parameter's elements, seven int64
// each: the addresses of the parameter, its gradient and its states (0 where unused), then the
// run's [begin, end); a block takes a run at a time. Each element goes through the CPU loops'
// formulas (aten/native/optim_formulas.h); nvcc may contract a multiply and an add into one
// rounding, so the GPU's last bits can differ from the CPU's.
#include <math.h>
#include "aten/native/optim_formulas.h"

#define EMBER_SPAN_WIDTH 7

__device__ __forceinline__ float optim_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double optim_sqrt(double x) { return sqrt(x); }

template <typename T>
__device__ __forceinline__ void adam_spans(const long long* spans, long long count, int flags, const double* c) {
  EMBER_ADAM_CONSTANTS(T)
  for (long long k = blockIdx.x; k < count; k += gridDim.x) {
    const long long* s = spans + k * EMBER_SPAN_WIDTH;
    T* p = (T*)s[0];
    T* g = (T*)s[1];
    T* m = (T*)s[2];
    T* v = (T*)s[3];
    T* vmax = (T*)s[4];
    for (long long i = s[5] + threadIdx.x; i < s[6]; i += blockDim.x) {
      EMBER_ADAM_ELEMENT(T, optim_sqrt, i)
    }
  }
}

template <typename T>
__device__ __forceinline__ void sgd_spans(const long long* spans, long long count, int flags, const double* c) {
  EMBER_SGD_CONSTANTS(T)
  for (long long k = blockIdx.x; k < count; k += gridDim.x) {
    const long long* s = spans + k * EMBER_SPAN_WIDTH;
    T* p = (T*)s[0];
    T* g = (T*)s[1];
    T* buf = (T*)s[2];
    for (long long i = s[5] + threadIdx.x; i < s[6]; i += blockDim.x) {
      EMBER_SGD_ELEMENT(T, i)
    }
  }
}

#define EMBER_FUSED_OPTIM(T, NAME)                                                                     \
  extern "C" __global__ void fused_adam_##NAME(const long long* spans, long long count, int flags,    \
                                               double c0, double c1, double c2, double c3, double c4, \
                                               double c5, double c6, double c7) {                     \
    const double c[8] = {c0, c1, c2, c3, c4, c5, c6, c7};                                              \
    adam_spans<T>(spans, count, flags, c);                                                             \
  }                                                                                                    \
  extern "C" __global__ void fused_sgd_##NAME(const long long* spans, long long count, int flags,     \
                                              double c0, double c1, double c2, double c3, double c4) { \
    const double c[5] = {c0, c1, c2, c3, c4};                                                          \
    sgd_spans<T>(spans, count, flags, c);                                                              \
  }

EMBER_FUSED_OPTIM(float, float32)
EMBER_FUSED_OPTIM(double, float64)
