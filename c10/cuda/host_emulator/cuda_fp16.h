// The part of CUDA's cuda_fp16.h that Ember's kernels use, for the host emulator
// (ember_cuda_host.h): __half as IEEE binary16 storage, converted through GCC's _Float16.
#pragma once
#include <string.h>

struct __half { unsigned short x; };

static inline float __half2float(__half h) { _Float16 f; memcpy(&f, &h.x, 2); return (float)f; }
static inline __half __float2half_rn(float v) { _Float16 f = (_Float16)v; __half h; memcpy(&h.x, &f, 2); return h; }
static inline __half __float2half(float v) { return __float2half_rn(v); }
static inline __half __ushort_as_half(unsigned short v) { __half h; h.x = v; return h; }
static inline __half __double2half(double v) { return __float2half_rn((float)v); }
