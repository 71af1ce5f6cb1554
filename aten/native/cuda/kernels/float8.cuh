// The float8 storage formats on the device: the CPU loops' structs and conversions (c10/float8.h,
// the repository root being on every kernel's include path), compiled as device functions.
#pragma once
#ifndef EMBER_INLINE
#define EMBER_INLINE __device__ __forceinline__
#endif
#include "c10/float8.h"
