// bfloat16 on the device: the CPU loops' struct and conversions (c10/bfloat16.h, the repository
// root being on every kernel's include path), compiled as device functions.
#pragma once
#ifndef EMBER_INLINE
#define EMBER_INLINE __device__ __forceinline__
#endif
#include "c10/bfloat16.h"
