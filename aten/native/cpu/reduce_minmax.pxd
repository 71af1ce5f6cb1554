# Value reductions (max, min, and of |x| for norms) for the reduction engine, shared with reduce_stats.
from aten.native.cpu.reduce cimport ReduceCtx, ReduceOps

cdef enum:
    V_MAX = 0
    V_MIN = 1
    V_ABSMAX = 2       # floats only
    V_ABSMIN = 3

# ctx.in_type: the input (and result) dtype; ctx.mode: V_*. NaN propagates.
cdef ReduceOps value_ops(const ReduceCtx* ctx) noexcept
