"""Complex reductions' accumulator ops for the reduction engine (aten/native/cpu/reduce.pyx):
products, one accumulator of the input's complex dtype per output, multiplied in row order (C99
complex multiplication), as PyTorch's CPU prod keeps complex64 in complex64."""
from c10.scalar_type cimport ST_COMPLEX64
from c10.complex cimport complex64_t, complex128_t, complex_t
from aten.native.cpu.reduce cimport ReduceCtx, ReduceOps

cdef void _cprod_rows(complex_t* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                      Py_ssize_t rs) noexcept nogil:
    cdef Py_ssize_t r, c
    for r in range(nrows):
        for c in range(ncols):
            acc[c] *= (<const complex_t*>(src + r * rs + c * cs))[0]


cdef void _cprod_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                      Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    if ctx.acc_type == ST_COMPLEX64:
        _cprod_rows(<complex64_t*>acc, src, ncols, cs, nrows, rs)
    else:
        _cprod_rows(<complex128_t*>acc, src, ncols, cs, nrows, rs)


cdef void _cprod_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                      const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_COMPLEX64:
            (<complex64_t*>acc)[i] = 1
        else:
            (<complex128_t*>acc)[i] = 1


cdef void _cprod_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_COMPLEX64:
            (<complex64_t*>acc)[i] *= (<const complex64_t*>other)[i]
        else:
            (<complex128_t*>acc)[i] *= (<const complex128_t*>other)[i]


cdef void _cprod_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                         const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_COMPLEX64:
            (<complex64_t*>ctx.out)[out_index + i * out_step] = (<const complex64_t*>acc)[i]
        else:
            (<complex128_t*>ctx.out)[out_index + i * out_step] = (<const complex128_t*>acc)[i]


cdef void complex_prod_ops(ReduceOps* ops, int acc_type) noexcept:
    ops.acc_size = 8 if acc_type == ST_COMPLEX64 else 16
    ops.init = _cprod_init
    ops.leaf = _cprod_leaf
    ops.combine = _cprod_combine
    ops.project = _cprod_project
