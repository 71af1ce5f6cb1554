# NumPy's OpenBLAS, called directly (the GEMMs of conv.pyx) and told how many threads to use.
from libc.stdint cimport int64_t

ctypedef void (*sgemm_t)(int order, int transa, int transb, int64_t m, int64_t n, int64_t k, float alpha,
                         const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                         int64_t ldc) noexcept nogil
ctypedef void (*dgemm_t)(int order, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                         const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                         int64_t ldc) noexcept nogil

cdef enum:
    CBLAS_ROW_MAJOR = 101
    CBLAS_NO_TRANS = 111
    CBLAS_TRANS = 112

# A compiled graph's epilogue kernel (torch._inductor.epilogues): run on rows r0..r1, columns c0..c1 of the product
# (a stack's rows one after another) by the thread that has just computed them. args: the kernel's buffers.
ctypedef void (*epilogue_t)(void* const* args, Py_ssize_t r0, Py_ssize_t r1, Py_ssize_t c0,
                            Py_ssize_t c1) noexcept nogil

ctypedef struct GemmPlan:
    Py_ssize_t batch, m, n, k
    int ta, tb                      # CBLAS_NO_TRANS or CBLAS_TRANS
    Py_ssize_t lda, ldb
    Py_ssize_t a_batch, b_batch     # element strides between the batch's matrices
    Py_ssize_t a_rs, b_cs           # A's row stride, B's column stride (for bands)
    double alpha, beta              # C = alpha * A @ B + beta * C (gemm_plan sets 1 and 0)
    const char* row                 # NULL, or n values each piece first writes into each of its rows of C
    epilogue_t epilogue             # NULL, or a kernel each piece then runs on its part of C
    void* const* epilogue_args

cdef sgemm_t blas_sgemm() noexcept
cdef dgemm_t blas_dgemm() noexcept
cdef void blas_single_threaded(bint enter) noexcept
cdef bint small_gemm(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) noexcept
cdef bint gemm_plan(GemmPlan* p, Py_ssize_t batch, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                    const Py_ssize_t* a_strides, const Py_ssize_t* b_strides) noexcept nogil
cdef void run_gemm(const GemmPlan* p, bint dbl, const char* a, const char* b, char* c,
                   int nthreads) noexcept nogil
