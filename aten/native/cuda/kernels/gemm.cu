// C[b] = alpha * A[b] @ B[b] + beta * bias for float and double: a tiled shared-memory GEMM
// (handwritten; launched by aten/native/cuda/linalg.py; bias, read through its own strides so that
// it broadcasts, only when beta != 0, so NaN in an ignored bias stays out as PyTorch's). Each block computes a BM x BN tile of C, stepping through K in
// slices of BK held in shared memory; each of its 256 threads accumulates a TM x TN sub-tile in
// registers. A and B are read through element strides (row, column, batch), so transposed and
// sliced operands need no copy; C is contiguous (batch, M, N). Out-of-range loads read 0 and
// out-of-range stores are skipped, so any M, N, K works.

template <typename T> struct GemmTile {
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  static constexpr int THREADS = (BM / TM) * (BN / TN);   // 256
};

template <typename T>
__device__ __forceinline__ void gemm_tile(long long M, long long N, long long K,
                                          const T* __restrict__ A, long long a_rs, long long a_cs,
                                          const T* __restrict__ B, long long b_rs, long long b_cs,
                                          T* __restrict__ C, T alpha, T beta, const T* __restrict__ bias,
                                          long long bias_rs, long long bias_cs) {
  constexpr int BM = GemmTile<T>::BM, BN = GemmTile<T>::BN, BK = GemmTile<T>::BK;
  constexpr int TM = GemmTile<T>::TM, TN = GemmTile<T>::TN, THREADS = GemmTile<T>::THREADS;
  __shared__ T As[BK][BM];
  __shared__ T Bs[BK][BN];
  const int tid = threadIdx.x;
  const int ty = tid / (BN / TN), tx = tid % (BN / TN);
  const long long col0 = (long long)blockIdx.x * BN;
  // row tiles beyond the grid's 65535 limit are taken in turn (uniformly across the block, so the
  // barriers inside stay collective)
  for (long long row0 = (long long)blockIdx.y * BM; row0 < M; row0 += (long long)gridDim.y * BM) {
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = T(0);

    for (long long k0 = 0; k0 < K; k0 += BK) {
      // A's tile: BM rows x BK columns; consecutive threads take consecutive k (row-major A reads
      // consecutive addresses)
      for (int i = tid; i < BM * BK; i += THREADS) {
        const int r = i / BK, c = i % BK;
        const long long gr = row0 + r, gc = k0 + c;
        As[c][r] = (gr < M && gc < K) ? A[gr * a_rs + gc * a_cs] : T(0);
      }
      // B's tile: BK rows x BN columns; consecutive threads take consecutive columns
      for (int i = tid; i < BK * BN; i += THREADS) {
        const int r = i / BN, c = i % BN;
        const long long gr = k0 + r, gc = col0 + c;
        Bs[r][c] = (gr < K && gc < N) ? B[gr * b_rs + gc * b_cs] : T(0);
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        T a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < TM; ++i) a[i] = As[kk][ty * TM + i];
#pragma unroll
        for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx * TN + j];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
      }
      __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
      const long long r = row0 + ty * TM + i;
      if (r >= M) break;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const long long c = col0 + tx * TN + j;
        if (c < N)
          C[r * N + c] = beta == T(0) ? alpha * acc[i][j]
                                      : alpha * acc[i][j] + beta * bias[r * bias_rs + c * bias_cs];
      }
    }
  }
}

// grid: (ceil(N / 128), min(ceil(M / 128), 65535), min(batch, 65535)); block: 256 threads
#define EMBER_GEMM(T)                                                                              \
  extern "C" __global__ void __launch_bounds__(256) gemm_##T(                                      \
      long long batch, long long M, long long N, long long K, const T* A, long long a_bs,         \
      long long a_rs, long long a_cs, const T* B, long long b_bs, long long b_rs, long long b_cs,  \
      T* C, T alpha,                                                                               \
      T beta, const T* bias, long long bias_rs, long long bias_cs) {                               \
    for (long long b = blockIdx.z; b < batch; b += gridDim.z)                                       \
      gemm_tile<T>(M, N, K, A + b * a_bs, a_rs, a_cs, B + b * b_bs, b_rs, b_cs, C + b * M * N, alpha, \
                   beta, bias, bias_rs, bias_cs);                                                  \
  }

EMBER_GEMM(float)
EMBER_GEMM(double)
