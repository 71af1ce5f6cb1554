"""all, any and count_nonzero on CPU (over the engine in reduce.pyx): all and any accumulate one byte
(0 or 1) per output; count_nonzero counts in int64 (the accumulators of reduce_sum.pyx's integer sums).
"""
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t

from c10.scalar_type cimport ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.reduce cimport ReduceCtx, ReduceOps, DimSet, parse_dims, all_dims, reduce, check_dtype_kernel
from aten.native.cpu.reduce_sum cimport i64_init, i64_combine, sum_project
from aten.native.cpu.element_types cimport num_t

cdef enum:
    ROW_MIN = 32           # a reduced row at least this long (and inner to the columns) is walked row-wise


# ---------------------------------------------------------------------------------------------
# count_nonzero (int64), all and any (one byte: 0 or 1)

cdef enum:
    B_ALL = 0
    B_ANY = 1
    B_COUNT = 2


cdef inline void _brow(char* acc, const num_t* x, Py_ssize_t n, Py_ssize_t s, int mode) noexcept nogil:
    """One row (inlined with a constant stride 1, so the reduction loops vectorise)."""
    cdef Py_ssize_t i
    cdef int64_t count = 0
    cdef uint8_t b
    if mode == B_COUNT:
        for i in range(n):
            count += x[i * s] != 0
        (<int64_t*>acc)[0] += count
    elif mode == B_ANY:
        b = 0
        for i in range(n):
            b |= x[i * s] != 0
        acc[0] |= b
    else:
        b = 1
        for i in range(n):
            b &= x[i * s] != 0
        acc[0] &= b


cdef void _bleaf(char* acc, const num_t* tag, const char* src, Py_ssize_t ncols, Py_ssize_t cs,
                 Py_ssize_t nrows, Py_ssize_t rs, int mode) noexcept nogil:
    cdef Py_ssize_t r, c, ce = cs // <Py_ssize_t>sizeof(num_t), s = rs // <Py_ssize_t>sizeof(num_t)
    cdef Py_ssize_t asize = 8 if mode == B_COUNT else 1
    cdef const num_t* x
    if ncols == 1 or (rs < cs and nrows >= ROW_MIN):
        for c in range(ncols):
            x = <const num_t*>(src + c * cs)
            if s == 1:
                _brow(acc + c * asize, x, nrows, 1, mode)
            else:
                _brow(acc + c * asize, x, nrows, s, mode)
        return
    for r in range(nrows):
        x = <const num_t*>(src + r * rs)
        if mode == B_COUNT:
            for c in range(ncols):
                (<int64_t*>acc)[c] += x[c * ce] != 0
        elif mode == B_ANY:
            for c in range(ncols):
                acc[c] |= x[c * ce] != 0
        else:
            for c in range(ncols):
                acc[c] &= x[c * ce] != 0


cdef void _bool_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                     Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type, mode = ctx.mode
    if st == ST_UINT8 or st == ST_BOOL:
        _bleaf(acc, <const uint8_t*>NULL, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT8:
        _bleaf(acc, <const int8_t*>NULL, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT16:
        _bleaf(acc, <const int16_t*>NULL, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT32:
        _bleaf(acc, <const int32_t*>NULL, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT64:
        _bleaf(acc, <const int64_t*>NULL, src, ncols, cs, nrows, rs, mode)
    elif st == ST_FLOAT32:
        _bleaf(acc, <const float*>NULL, src, ncols, cs, nrows, rs, mode)
    else:
        _bleaf(acc, <const double*>NULL, src, ncols, cs, nrows, rs, mode)


cdef void _u8_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                   const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint8_t v = 1 if ctx.mode == B_ALL else 0
    for i in range(n):
        (<uint8_t*>acc)[i] = v


cdef void _u8_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    if ctx.mode == B_ALL:
        for i in range(n):
            (<uint8_t*>acc)[i] &= (<const uint8_t*>other)[i]
    else:
        for i in range(n):
            (<uint8_t*>acc)[i] |= (<const uint8_t*>other)[i]


cdef void _u8_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                      const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        (<uint8_t*>ctx.out)[out_index + i * out_step] = (<const uint8_t*>acc)[i]


cdef TensorImpl _bool_reduce(TensorImpl self, DimSet* dims, bint keepdim, int mode, str name):
    cdef ReduceCtx ctx
    cdef ReduceOps ops
    cdef int out_type
    check_dtype_kernel(self.scalar_type, name)
    ctx.in_type = self.scalar_type
    ctx.mode = mode
    ctx.centers = NULL
    ctx.out2 = NULL
    if mode == B_COUNT:
        ctx.acc_type = ST_INT64
        ops.acc_size = 8
        ops.init = i64_init
        ops.combine = i64_combine
        ops.project = sum_project
        out_type = ST_INT64
    else:
        ctx.acc_type = ST_UINT8
        ops.acc_size = 1
        ops.init = _u8_init
        ops.combine = _u8_combine
        ops.project = _u8_project
        out_type = ST_UINT8 if self.scalar_type == ST_UINT8 else ST_BOOL   # as PyTorch
    ops.leaf = _bool_leaf
    return reduce(self, dims, keepdim, out_type, &ops, &ctx)


def all_cpu(TensorImpl self not None):
    cdef DimSet dims
    all_dims(self, &dims)
    return _bool_reduce(self, &dims, False, B_ALL, "all_cpu")


def all_dims_cpu(TensorImpl self not None, dim=None, bint keepdim=False):
    cdef DimSet dims
    parse_dims(self, dim, False, &dims)
    return _bool_reduce(self, &dims, keepdim, B_ALL, "all_cpu")


def all_dim_cpu(TensorImpl self not None, int dim, bint keepdim=False):
    return all_dims_cpu(self, (dim,), keepdim)


def any_cpu(TensorImpl self not None):
    cdef DimSet dims
    all_dims(self, &dims)
    return _bool_reduce(self, &dims, False, B_ANY, "any_cpu")


def any_dims_cpu(TensorImpl self not None, dim=None, bint keepdim=False):
    cdef DimSet dims
    parse_dims(self, dim, False, &dims)
    return _bool_reduce(self, &dims, keepdim, B_ANY, "any_cpu")


def any_dim_cpu(TensorImpl self not None, int dim, bint keepdim=False):
    return any_dims_cpu(self, (dim,), keepdim)


def count_nonzero_cpu(TensorImpl self not None, dim):
    cdef DimSet dims
    parse_dims(self, dim, True, &dims)
    return _bool_reduce(self, &dims, False, B_COUNT, "count_nonzero_cpu")
