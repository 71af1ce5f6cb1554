# Vectorised math kernels in C (nn_vec.h): exp rows for softmax and the losses. Each function
# is compiled twice (baseline SSE2 and AVX2+FMA) and picked at import, as PyTorch's CPU
# capability dispatch does.
cdef extern from "vec_math.h":   # included by nn_vec.h; named here so a change to it rebuilds the users
    pass

cdef extern from "nn_vec.h" nogil:
    ctypedef struct ember_vec_table:
        void (*softmax_row_f)(const float* x, float* y, Py_ssize_t n) noexcept nogil
        void (*softmax_row_d)(const double* x, double* y, Py_ssize_t n) noexcept nogil
        void (*log_softmax_row_f)(const float* x, float* y, Py_ssize_t n) noexcept nogil
        void (*log_softmax_row_d)(const double* x, double* y, Py_ssize_t n) noexcept nogil
        void (*softmax_cols_f)(const float* x, float* y, Py_ssize_t n, Py_ssize_t stride, Py_ssize_t w, bint log_) noexcept nogil
        void (*softmax_cols_d)(const double* x, double* y, Py_ssize_t n, Py_ssize_t stride, Py_ssize_t w, bint log_) noexcept nogil
        void (*exp_f)(const float* x, float* y, Py_ssize_t n) noexcept nogil
        void (*exp_d)(const double* x, double* y, Py_ssize_t n) noexcept nogil
        void (*softmax_grad_f)(const float* g, const float* y, float* dx, Py_ssize_t n, Py_ssize_t stride,
                               Py_ssize_t w, bint log_) noexcept nogil
        void (*softmax_grad_d)(const double* g, const double* y, double* dx, Py_ssize_t n, Py_ssize_t stride,
                               Py_ssize_t w, bint log_) noexcept nogil
    const ember_vec_table* ember_vec() noexcept
    const char* ember_vec_level() noexcept
