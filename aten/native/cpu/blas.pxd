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

cdef sgemm_t blas_sgemm() noexcept
cdef dgemm_t blas_dgemm() noexcept
cdef void blas_single_threaded(bint enter) noexcept
cdef bint small_gemm(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) noexcept
