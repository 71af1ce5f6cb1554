// C[b] = alpha * A[b] @ B[b] + beta * bias for float and double (complex: A[b] @ B[b]): a tiled shared-memory GEMM
// (handwritten; launched by aten/native/cuda/linalg.py; bias, read through its own strides so that
// it broadcasts, only when beta != 0, so NaN in an ignored bias stays out as PyTorch's). Each block
// computes a BM x BN tile of C, stepping through K in slices of BK held in shared memory; each of
// its 256 threads accumulates TM x TN results in registers. A and B are read through element
// strides (row, column, batch), so transposed and sliced operands need no copy; C is contiguous
// (batch, M, N). Out-of-range loads read 0 and out-of-range stores are skipped, so any M, N, K works.
//
// Its layout, and float32 TFLOP/s at 4096^3 on an H100 for each step (fp64 in brackets; cuBLAS
// without TF32 gave 52.1 in the same run):
// - a thread's 8 x 8 results are four 4 x 4 blocks 64 rows and 64 columns apart, so the 16 threads
//   along a row read 16 consecutive 4-element groups of the B slice (128-bit shared loads, no bank
//   conflicts), and A's slice is stored transposed with 4 elements of padding per row, so the
//   loaders' writes fall in different banks;
// - the next slice is loaded from global memory into registers while this one is multiplied;
// - each load keeps its own pointer, stepped by one slice, with its row's (column's) range check
//   made once: the 64-bit index arithmetic per element was what held the loop back.
// The plain 8 x 8 tile gave 24.2 (8.7); the first step alone 9.9 (7.2); with the second 29.4
// (16.8); with the third 38.3 (14.6).

template <typename T> struct GemmTile {
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  static constexpr int THREADS = (BM / TM) * (BN / TN);   // 256
  static constexpr int PAD = 4;
};

template <typename T>
__device__ __forceinline__ void gemm_tile(long long M, long long N, long long K,
                                          const T* __restrict__ A, long long a_rs, long long a_cs,
                                          const T* __restrict__ B, long long b_rs, long long b_cs,
                                          T* __restrict__ C, T alpha, T beta, const T* __restrict__ bias,
                                          long long bias_rs, long long bias_cs) {
  constexpr int BM = GemmTile<T>::BM, BN = GemmTile<T>::BN, BK = GemmTile<T>::BK, PAD = GemmTile<T>::PAD;
  constexpr int TM = GemmTile<T>::TM, TN = GemmTile<T>::TN, THREADS = GemmTile<T>::THREADS;
  constexpr int A_LOADS = BM * BK / THREADS, B_LOADS = BK * BN / THREADS;
  constexpr int HALF_M = BM / 2, HALF_N = BN / 2, QM = TM / 2, QN = TN / 2;
  alignas(16) __shared__ T As[BK][BM + PAD];
  alignas(16) __shared__ T Bs[BK][BN];
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

    // A's slice: BM rows x BK columns, consecutive threads on consecutive k (row-major A reads
    // consecutive addresses); B's: BK rows x BN columns, consecutive threads on consecutive columns.
    // A thread's k (in A) and column (in B) is the same for each of its loads, so each load keeps a
    // pointer that steps by one slice, and its row's (column's) range check is made once.
    static_assert(THREADS % BK == 0 && THREADS % BN == 0, "a thread's k and column are fixed");
    const int a_k = tid % BK, b_row = tid / BN;
    const long long b_col = col0 + tid % BN;
    const T* a_at[A_LOADS];
    const T* b_at[B_LOADS];
    bool a_in[A_LOADS];
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
      const long long r = row0 + (tid + l * THREADS) / BK;
      a_in[l] = r < M;
      a_at[l] = A + (a_in[l] ? r : 0) * a_rs + a_k * a_cs;
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) b_at[l] = B + (long long)(b_row + l * (THREADS / BN)) * b_rs + b_col * b_cs;
    const bool b_in = b_col < N;
    T a_next[A_LOADS], b_next[B_LOADS];
    auto load = [&](long long k0) {
      const bool a_k_in = k0 + a_k < K;
#pragma unroll
      for (int l = 0; l < A_LOADS; ++l) a_next[l] = (a_in[l] && a_k_in) ? a_at[l][k0 * a_cs] : T(0);
#pragma unroll
      for (int l = 0; l < B_LOADS; ++l)
        b_next[l] = (b_in && k0 + b_row + l * (THREADS / BN) < K) ? b_at[l][k0 * b_rs] : T(0);
    };
    load(0);
    for (long long k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
      for (int l = 0; l < A_LOADS; ++l) {
        const int i = tid + l * THREADS;
        As[i % BK][i / BK] = a_next[l];
      }
#pragma unroll
      for (int l = 0; l < B_LOADS; ++l) {
        const int i = tid + l * THREADS;
        Bs[i / BN][i % BN] = b_next[l];
      }
      __syncthreads();
      if (k0 + BK < K) load(k0 + BK);
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        T a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < QM; ++i) {
          a[i] = As[kk][ty * QM + i];
          a[QM + i] = As[kk][HALF_M + ty * QM + i];
        }
#pragma unroll
        for (int j = 0; j < QN; ++j) {
          b[j] = Bs[kk][tx * QN + j];
          b[QN + j] = Bs[kk][HALF_N + tx * QN + j];
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const long long r = row0 + (i / QM) * HALF_M + ty * QM + i % QM;
      if (r >= M) continue;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const long long c = col0 + (j / QN) * HALF_N + tx * QN + j % QN;
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

// complex products (mm, bmm): alpha 1, no bias (PyCUDA packs no complex scalars; addmm takes no complex)
#include "complex.cuh"
#define EMBER_GEMM_COMPLEX(T, NAME)                                                                \
  extern "C" __global__ void __launch_bounds__(256) gemm_##NAME(                                   \
      long long batch, long long M, long long N, long long K, const T* A, long long a_bs,         \
      long long a_rs, long long a_cs, const T* B, long long b_bs, long long b_rs, long long b_cs,  \
      T* C) {                                                                                      \
    for (long long b = blockIdx.z; b < batch; b += gridDim.z)                                       \
      gemm_tile<T>(M, N, K, A + b * a_bs, a_rs, a_cs, B + b * b_bs, b_rs, b_cs, C + b * M * N, T(1), \
                   T(0), nullptr, 0, 0);                                                           \
  }

EMBER_GEMM_COMPLEX(ember_complex<float>, complex64)
EMBER_GEMM_COMPLEX(ember_complex<double>, complex128)
