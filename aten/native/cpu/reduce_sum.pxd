# Sum-like accumulators for the reduction engine (reduce.pxd), shared with reduce_stats.
from aten.native.cpu.reduce cimport ReduceCtx, ReduceOps

# ReduceCtx.mode of the float sums: the sum of f(x) for
cdef enum:
    F_SUM = 0          # x
    F_ABS = 1          # |x|
    F_SQ = 2           # x * x
    F_POW = 3          # |x| ** p
    F_NZ = 4           # x != 0
    F_SQDEV = 5        # (x - center) ** 2     accumulators are (center, sum) double pairs
    F_EXPDEV = 6       # exp(x - center)       (center: ctx.centers; an infinite center counts as 0)

# Float sums: ctx.in_type float32/float64, ctx.acc_type float32/float64 (float64 for F_SQDEV/F_EXPDEV).
cdef ReduceOps fsum_ops(const ReduceCtx* ctx) noexcept
cdef double center_at(const ReduceCtx* ctx, Py_ssize_t index) noexcept nogil

# The int64 accumulators of the integer sums, and the projection of every sum's accumulators to the
# output (float, double or int64 as they are): shared with reduce_logical's count_nonzero.
cdef void i64_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                   const ReduceCtx* ctx) noexcept nogil
cdef void i64_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil
cdef void sum_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                      const ReduceCtx* ctx) noexcept nogil
