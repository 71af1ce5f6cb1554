// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a counter-
// based generator, so every element's random words are a pure function of (seed, offset, index)
// and any thread can draw its own without state. Host and device: test/torch/test_philox.py
// compiles it for the host and checks the published known-answer vectors.
#pragma once
#if !defined(__CUDACC__) && !defined(EMBER_CUDA_HOST)
#define __host__
#define __device__
#define __forceinline__ inline
#endif

struct ember_philox_words { unsigned int w[4]; };

__host__ __device__ __forceinline__ unsigned int ember_mulhilo(unsigned int a, unsigned int b, unsigned int* lo) {
  const unsigned long long p = (unsigned long long)a * b;
  *lo = (unsigned int)p;
  return (unsigned int)(p >> 32);
}

__host__ __device__ __forceinline__ ember_philox_words ember_philox(unsigned int c0, unsigned int c1,
                                                                   unsigned int c2, unsigned int c3,
                                                                   unsigned int k0, unsigned int k1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {                       // the key schedule: Weyl increments between rounds
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    unsigned int lo0, lo1;
    const unsigned int hi0 = ember_mulhilo(0xD2511F53u, c0, &lo0);
    const unsigned int hi1 = ember_mulhilo(0xCD9E8D57u, c2, &lo1);
    const unsigned int n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
  }
  ember_philox_words out = {{c0, c1, c2, c3}};
  return out;
}
