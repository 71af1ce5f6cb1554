"""Sum-like reductions on CPU: sum, mean, prod, over the engine in reduce.pyx (all, any and count_nonzero are in
reduce_logical.pyx).

Float sums are pairwise: a row is cut in halves down to blocks of BLOCK elements, each summed
with independent accumulators (a contiguous float32 run: 64 lanes in C, blk_sum.h; otherwise 16,
a loop gcc vectorises) and folded as a tree; columns summed across rows are halved the same way.
float32 accumulates in float, float64 in double (as PyTorch's cascade sum), so the error grows like
log(n), not n; float16 and bfloat16 in float, their leaf blocks widened as they are read. Integers
and bools accumulate in int64 (PyTorch's result dtype), which wraps on overflow like PyTorch.
"""
from libc.math cimport fabs, fabsf, pow, powf, exp, expf, INFINITY
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t

from c10.scalar_type cimport (is_floating, is_complex, is_integral, opmath_type, dtype as DType, dtype_of, ST_BOOL,
                              ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64,
                              ST_BFLOAT16)
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.meta import views as _views
from aten.native.cpu.reduce cimport (COL_WORDS, ReduceCtx, ReduceOps, DimSet, parse_dims, all_dims, reduce,
                                     check_dtype_kernel)
from aten.native.cpu.element_types cimport int_t, num_t
from aten.native.cpu.reduce_complex cimport complex_prod_ops

cdef enum:
    BLOCK = 1024            # a row block summed by 16 accumulators
    COLS_LEAF = 16         # rows added directly to column accumulators before halving
    ROW_MIN = 32           # a reduced row at least this long (and inner to the columns) is summed row-wise
    LANES = 64             # independent accumulators of a product

ctypedef fused in_t:
    float
    double

ctypedef fused acc_t:
    float
    double

# ---------------------------------------------------------------------------------------------
# Float sums of f(x)

cdef inline acc_t _tf(in_t v, int mode, double p, acc_t c) noexcept nogil:
    """f(v) in the accumulator's type; float inputs use float math (powf, expf) as PyTorch does."""
    cdef acc_t d
    if mode == F_SUM:
        return v
    if mode == F_ABS:
        if in_t is float:
            return fabsf(v)
        return fabs(v)
    if mode == F_SQ:
        return <acc_t>v * <acc_t>v
    if mode == F_POW:
        if in_t is float:
            return powf(fabsf(v), <float>p)
        return pow(fabs(v), p)
    if mode == F_NZ:
        return 1 if v != 0 else 0
    if mode == F_SQDEV:
        d = <acc_t>v - c
        return d * d
    if in_t is float:
        return expf(v - <float>c)
    return exp(v - c)


cdef inline void _blk_loop(acc_t* a, const in_t* x, Py_ssize_t m, Py_ssize_t s, int mode, double p,
                           acc_t c) noexcept nogil:
    """a[k] += f(x[(i + k) * s]) for i < m in steps of 16 (inlined with constant mode and s)."""
    cdef Py_ssize_t i, k
    for i in range(0, m, 16):
        for k in range(16):
            a[k] += _tf(x[(i + k) * s], mode, p, c)


cdef extern from "aten/native/cpu/blk_sum.h" nogil:
    float ember_blk_pairwise(const char* x, Py_ssize_t n, int kind)


cdef acc_t _blk(const in_t* x, Py_ssize_t n, Py_ssize_t s, int mode, double p, acc_t c) noexcept nogil:
    """The sum of f over n <= BLOCK elements at stride s: 16 accumulators, then a tree."""
    cdef acc_t a[16]
    cdef Py_ssize_t m = n - n % 16, i, k
    for k in range(16):
        a[k] = 0
    if s == 1:
        if mode == F_SUM:
            _blk_loop(a, x, m, 1, F_SUM, p, c)
        elif mode == F_ABS:
            _blk_loop(a, x, m, 1, F_ABS, p, c)
        elif mode == F_SQ:
            _blk_loop(a, x, m, 1, F_SQ, p, c)
        elif mode == F_NZ:
            _blk_loop(a, x, m, 1, F_NZ, p, c)
        elif mode == F_SQDEV:
            _blk_loop(a, x, m, 1, F_SQDEV, p, c)
        elif mode == F_EXPDEV:
            _blk_loop(a, x, m, 1, F_EXPDEV, p, c)
        else:
            _blk_loop(a, x, m, 1, F_POW, p, c)
    else:
        if mode == F_SUM:
            _blk_loop(a, x, m, s, F_SUM, p, c)
        else:
            _blk_loop(a, x, m, s, mode, p, c)
    for i in range(m, n):
        a[i - m] += _tf(x[i * s], mode, p, c)
    for k in range(8):
        a[k] += a[k + 8]
    for k in range(4):
        a[k] += a[k + 4]
    return (a[0] + a[2]) + (a[1] + a[3])


cdef acc_t _row(const in_t* x, Py_ssize_t n, Py_ssize_t s, int mode, double p, acc_t c) noexcept nogil:
    """Pairwise sum of f over n elements at stride s (a contiguous float32 sum: in C, blk_sum.h)."""
    cdef Py_ssize_t h
    if in_t is float and acc_t is float:
        if mode == F_SUM and s == 1:
            return ember_blk_pairwise(<const char*>x, n, 0)
    if n <= BLOCK:
        return _blk(x, n, s, mode, p, c)
    h = (n // 2) & ~(<Py_ssize_t>15)
    return _row(x, h, s, mode, p, c) + _row(x + h * s, n - h, s, mode, p, c)


cdef void _lanes(acc_t* lanes, const in_t* x, Py_ssize_t n, Py_ssize_t period, int mode, double p) noexcept nogil:
    """lanes[k] += sum of f(x[i]) over i < n with i % period == k, halving n (pairwise) in whole periods."""
    cdef acc_t tmp[64]
    cdef Py_ssize_t i, k, m, h
    if n > 16 * period:
        h = (n // 2) // period * period
        _lanes(lanes, x, h, period, mode, p)
        for k in range(period):
            tmp[k] = 0
        _lanes(tmp, x + h, n - h, period, mode, p)
        for k in range(period):
            lanes[k] += tmp[k]
        return
    m = n - n % period
    i = 0
    if mode == F_SUM:
        while i < m:
            for k in range(period):
                lanes[k] += x[i + k]
            i += period
    else:
        while i < m:
            for k in range(period):
                lanes[k] += _tf(x[i + k], mode, p, <acc_t>0)
            i += period
    for k in range(n - m):
        lanes[k] += _tf(x[m + k], mode, p, <acc_t>0)


cdef extern from "aten/native/cpu/vec_reduced.h" nogil:
    void ember_widen(const char* src, Py_ssize_t step, float* dst, Py_ssize_t m, int half)
cdef extern from "aten/native/cpu/col_sum.h" nogil:
    void ember_col_sum_f32(float* acc, const float* x, Py_ssize_t ncols, Py_ssize_t col_step, Py_ssize_t nrows,
                           Py_ssize_t row_step)
    void ember_col_sum_f64(double* acc, const double* x, Py_ssize_t ncols, Py_ssize_t col_step, Py_ssize_t nrows,
                           Py_ssize_t row_step)


cdef void _narrow_cols(acc_t* acc, const in_t* x, Py_ssize_t ncols, Py_ssize_t nrows, int mode,
                       double p) noexcept nogil:
    """Few columns of a contiguous (nrows, ncols) block: one pass over the flat run, lane k of
    period = ncols * (64 // ncols) lanes collecting column k % ncols (a loop gcc vectorises)."""
    cdef acc_t lanes[64]
    cdef Py_ssize_t k, period = ncols * (64 // ncols)
    for k in range(period):
        lanes[k] = 0
    _lanes(lanes, x, nrows * ncols, period, mode, p)
    for k in range(period):
        acc[k % ncols] += lanes[k]


cdef void _cols(acc_t* acc, int astride, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                Py_ssize_t rs, int mode, double p, const in_t* tag) noexcept nogil:
    """acc[c*astride + astride-1] += sum over rows of f(x[r, c]), halving the rows (pairwise);
    with astride 2, acc[2c] is column c's center."""
    cdef double buf[COL_WORDS]
    cdef acc_t* tmp = <acc_t*>buf
    cdef Py_ssize_t r, c, h, ce = cs // <Py_ssize_t>sizeof(in_t)
    cdef const in_t* row
    if astride == 1 and ce == 1 and ncols <= 32 and rs == ncols * <Py_ssize_t>sizeof(in_t) and nrows > COLS_LEAF:
        _narrow_cols(acc, <const in_t*>src, ncols, nrows, mode, p)
        return
    if nrows > COLS_LEAF:
        h = nrows // 2
        _cols(acc, astride, src, ncols, cs, h, rs, mode, p, tag)
        if astride == 1:
            for c in range(ncols):
                tmp[c] = 0
        else:
            for c in range(ncols):
                tmp[2 * c] = acc[2 * c]
                tmp[2 * c + 1] = 0
        _cols(tmp, astride, src + h * rs, ncols, cs, nrows - h, rs, mode, p, tag)
        if astride == 1:
            for c in range(ncols):
                acc[c] += tmp[c]
        else:
            for c in range(ncols):
                acc[2 * c + 1] += tmp[2 * c + 1]
        return
    if astride == 1 and mode == F_SUM and ce <= 1 and rs % sizeof(in_t) == 0:
        if in_t is float and acc_t is float:
            ember_col_sum_f32(acc, <const float*>src, ncols, ce, nrows, rs // sizeof(in_t))
            return
        elif in_t is double and acc_t is double:
            ember_col_sum_f64(acc, <const double*>src, ncols, ce, nrows, rs // sizeof(in_t))
            return
    for r in range(nrows):
        row = <const in_t*>(src + r * rs)
        if astride == 2:
            for c in range(ncols):
                acc[2 * c + 1] += _tf(row[c * ce], mode, p, acc[2 * c])
        elif ce == 1:
            if mode == F_ABS:
                for c in range(ncols):
                    acc[c] += _tf(row[c], F_ABS, p, <acc_t>0)
            elif mode == F_SQ:
                for c in range(ncols):
                    acc[c] += _tf(row[c], F_SQ, p, <acc_t>0)
            else:
                for c in range(ncols):
                    acc[c] += _tf(row[c], mode, p, <acc_t>0)
        else:
            for c in range(ncols):
                acc[c] += _tf(row[c * ce], mode, p, <acc_t>0)


cdef void _fleaf(acc_t* acc, const in_t* tag, const char* src, Py_ssize_t ncols, Py_ssize_t cs,
                 Py_ssize_t nrows, Py_ssize_t rs, const ReduceCtx* ctx) noexcept nogil:
    cdef int mode = ctx.mode
    cdef Py_ssize_t c, s = rs // <Py_ssize_t>sizeof(in_t)
    if ncols == 1 or (rs < cs and nrows >= ROW_MIN):
        if mode >= F_SQDEV:
            for c in range(ncols):
                acc[2 * c + 1] += _row(<const in_t*>(src + c * cs), nrows, s, mode, ctx.p, acc[2 * c])
        else:
            for c in range(ncols):
                acc[c] += _row(<const in_t*>(src + c * cs), nrows, s, mode, ctx.p, <acc_t>0)
    else:
        _cols(acc, 2 if mode >= F_SQDEV else 1, src, ncols, cs, nrows, rs, mode, ctx.p, tag)


cdef float _row_reduced(const char* x, Py_ssize_t n, Py_ssize_t step, bint half) noexcept nogil:
    """_row over float16/bfloat16 elements (step bytes apart), each leaf block widened to float32 as it is
    read (or first, strided): the float32 sum of the widened values, bit for bit, without a widened copy."""
    cdef float buf[BLOCK]
    cdef Py_ssize_t h
    if step == 2:
        return ember_blk_pairwise(x, n, 2 if half else 1)
    if n <= BLOCK:
        ember_widen(x, step, buf, n, half)
        return ember_blk_pairwise(<const char*>buf, n, 0)
    h = (n // 2) & ~(<Py_ssize_t>15)
    return _row_reduced(x, h, step, half) + _row_reduced(x + h * step, n - h, step, half)


cdef void _fsum_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                     Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t c
    if ctx.in_type == ST_FLOAT16 or ctx.in_type == ST_BFLOAT16:        # sums only (_sum picks it)
        for c in range(ncols):
            (<float*>acc)[c] += _row_reduced(src + c * cs, nrows, rs, ctx.in_type == ST_FLOAT16)
        return
    if ctx.in_type == ST_FLOAT32:
        if ctx.acc_type == ST_FLOAT32:
            _fleaf(<float*>acc, <const float*>NULL, src, ncols, cs, nrows, rs, ctx)
        else:
            _fleaf(<double*>acc, <const float*>NULL, src, ncols, cs, nrows, rs, ctx)
    else:
        _fleaf(<double*>acc, <const double*>NULL, src, ncols, cs, nrows, rs, ctx)


cdef double center_at(const ReduceCtx* ctx, Py_ssize_t index) noexcept nogil:
    cdef double c
    if ctx.centers == NULL:
        return 0
    if ctx.centers_itemsize == 4:
        c = (<const float*>ctx.centers)[index]
    else:
        c = (<const double*>ctx.centers)[index]
    if ctx.mode == F_EXPDEV and (c == INFINITY or c == -INFINITY):
        return 0                      # logsumexp: exp(x - inf) would be nan for x == inf
    return c


cdef void _fsum_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                     const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    if ctx.mode >= F_SQDEV:
        for i in range(n):
            (<double*>acc)[2 * i] = center_at(ctx, out_index + i * out_step)
            (<double*>acc)[2 * i + 1] = 0
    elif ctx.acc_type == ST_FLOAT32:
        for i in range(n):
            (<float*>acc)[i] = 0
    else:
        for i in range(n):
            (<double*>acc)[i] = 0


cdef void _fsum_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    if ctx.mode >= F_SQDEV:
        for i in range(n):
            (<double*>acc)[2 * i + 1] += (<const double*>other)[2 * i + 1]
    elif ctx.acc_type == ST_FLOAT32:
        for i in range(n):
            (<float*>acc)[i] += (<const float*>other)[i]
    else:
        for i in range(n):
            (<double*>acc)[i] += (<const double*>other)[i]


cdef ReduceOps fsum_ops(const ReduceCtx* ctx) noexcept:
    cdef ReduceOps ops
    if ctx.mode >= F_SQDEV:
        ops.acc_size = 16
    else:
        ops.acc_size = 4 if ctx.acc_type == ST_FLOAT32 else 8
    ops.init = _fsum_init
    ops.leaf = _fsum_leaf
    ops.combine = _fsum_combine
    ops.project = NULL
    return ops


cdef void sum_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                       const ReduceCtx* ctx) noexcept nogil:
    """The accumulators as they are (float, double or int64)."""
    cdef Py_ssize_t i
    if ctx.acc_type == ST_FLOAT32:
        for i in range(n):
            (<float*>ctx.out)[out_index + i * out_step] = (<const float*>acc)[i]
    elif ctx.acc_type == ST_FLOAT64:
        for i in range(n):
            (<double*>ctx.out)[out_index + i * out_step] = (<const double*>acc)[i]
    else:
        for i in range(n):
            (<int64_t*>ctx.out)[out_index + i * out_step] = (<const int64_t*>acc)[i]


cdef void _mean_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                        const ReduceCtx* ctx) noexcept nogil:
    """The float sums divided by the count (in the accumulator's type, as PyTorch's sum().div_())."""
    cdef Py_ssize_t i
    if ctx.acc_type == ST_FLOAT32:
        for i in range(n):
            (<float*>ctx.out)[out_index + i * out_step] = (<const float*>acc)[i] / <float>ctx.count
    else:
        for i in range(n):
            (<double*>ctx.out)[out_index + i * out_step] = (<const double*>acc)[i] / <double>ctx.count


# ---------------------------------------------------------------------------------------------
# Integer sums (int64 accumulators; exact modulo 2**64, so the order does not matter)

cdef int64_t _isum_row(const int_t* x, Py_ssize_t n, Py_ssize_t s) noexcept nogil:
    cdef int64_t a[8]
    cdef Py_ssize_t m = n - n % 8, i, k
    for k in range(8):
        a[k] = 0
    if s == 1:
        for i in range(0, m, 8):
            for k in range(8):
                a[k] += x[i + k]
    else:
        for i in range(0, m, 8):
            for k in range(8):
                a[k] += x[(i + k) * s]
    for i in range(m, n):
        a[0] += x[i * s]
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))


cdef void _ileaf(int64_t* acc, const int_t* tag, const char* src, Py_ssize_t ncols, Py_ssize_t cs,
                 Py_ssize_t nrows, Py_ssize_t rs) noexcept nogil:
    cdef Py_ssize_t r, c, ce = cs // <Py_ssize_t>sizeof(int_t)
    cdef const int_t* row
    if ncols == 1 or (rs < cs and nrows >= ROW_MIN):
        for c in range(ncols):
            acc[c] += _isum_row(<const int_t*>(src + c * cs), nrows, rs // <Py_ssize_t>sizeof(int_t))
        return
    for r in range(nrows):
        row = <const int_t*>(src + r * rs)
        if ce == 1:
            for c in range(ncols):
                acc[c] += row[c]
        else:
            for c in range(ncols):
                acc[c] += row[c * ce]


cdef void _isum_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                     Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type
    if st == ST_UINT8 or st == ST_BOOL:
        _ileaf(<int64_t*>acc, <const uint8_t*>NULL, src, ncols, cs, nrows, rs)
    elif st == ST_INT8:
        _ileaf(<int64_t*>acc, <const int8_t*>NULL, src, ncols, cs, nrows, rs)
    elif st == ST_INT16:
        _ileaf(<int64_t*>acc, <const int16_t*>NULL, src, ncols, cs, nrows, rs)
    elif st == ST_INT32:
        _ileaf(<int64_t*>acc, <const int32_t*>NULL, src, ncols, cs, nrows, rs)
    else:
        _ileaf(<int64_t*>acc, <const int64_t*>NULL, src, ncols, cs, nrows, rs)


cdef void i64_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                    const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        (<int64_t*>acc)[i] = 0


cdef void i64_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        (<int64_t*>acc)[i] += (<const int64_t*>other)[i]


cdef ReduceOps _isum_ops() noexcept:
    cdef ReduceOps ops
    ops.acc_size = 8
    ops.init = i64_init
    ops.leaf = _isum_leaf
    ops.combine = i64_combine
    ops.project = sum_project
    return ops


# ---------------------------------------------------------------------------------------------
# prod (accumulates in the result dtype: int64, float or double)

cdef inline void _ploop(num_t* a, const num_t* x, Py_ssize_t m, Py_ssize_t s) noexcept nogil:
    """a[k] *= x[(i + k) * s] for i < m in steps of LANES (an elementwise loop: gcc vectorises it)."""
    cdef Py_ssize_t i, k
    for i in range(0, m, 64):       # LANES (Cython needs a literal step)
        for k in range(LANES):
            a[k] *= x[(i + k) * s]


cdef void _pleaf(num_t* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                 Py_ssize_t rs) noexcept nogil:
    cdef Py_ssize_t r, c, i, k, m, ce = cs // <Py_ssize_t>sizeof(num_t), s = rs // <Py_ssize_t>sizeof(num_t)
    cdef const num_t* x
    cdef num_t a[LANES]
    if ncols == 1 or (rs < cs and nrows >= ROW_MIN):
        m = nrows - nrows % LANES
        for c in range(ncols):
            x = <const num_t*>(src + c * cs)
            for k in range(LANES):
                a[k] = 1
            if s == 1:
                _ploop(a, x, m, 1)
            else:
                _ploop(a, x, m, s)
            for i in range(m, nrows):
                a[0] *= x[i * s]
            for k in range(1, LANES):
                a[0] *= a[k]
            acc[c] *= a[0]
        return
    for r in range(nrows):
        x = <const num_t*>(src + r * rs)
        if ce == 1:
            for c in range(ncols):
                acc[c] *= x[c]
        else:
            for c in range(ncols):
                acc[c] *= x[c * ce]


cdef void _prod_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                     Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    if ctx.acc_type == ST_FLOAT32:
        _pleaf(<float*>acc, src, ncols, cs, nrows, rs)
    elif ctx.acc_type == ST_FLOAT64:
        _pleaf(<double*>acc, src, ncols, cs, nrows, rs)
    else:
        _pleaf(<int64_t*>acc, src, ncols, cs, nrows, rs)


cdef void _prod_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                     const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_FLOAT32:
            (<float*>acc)[i] = 1
        elif ctx.acc_type == ST_FLOAT64:
            (<double*>acc)[i] = 1
        else:
            (<int64_t*>acc)[i] = 1


cdef void _prod_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_FLOAT32:
            (<float*>acc)[i] *= (<const float*>other)[i]
        elif ctx.acc_type == ST_FLOAT64:
            (<double*>acc)[i] *= (<const double*>other)[i]
        else:
            (<int64_t*>acc)[i] *= (<const int64_t*>other)[i]


# ---------------------------------------------------------------------------------------------
# Operators

cdef TensorImpl _as_type(TensorImpl t, int st):
    return t if t.scalar_type == st else cast_contiguous(t, st)


cdef TensorImpl _finish(TensorImpl result, int out_type):
    return result if result.scalar_type == out_type else cast_contiguous(result, out_type)


cdef TensorImpl _sum(TensorImpl self, object dim, bint keepdim, object dtype, str name, bint mean):
    """sum and mean: the input converted to dtype (when given) first, as PyTorch does. float16 and
    bfloat16 accumulate in float32 and round once; a contiguous one reduced over its innermost dims is
    read as it is (leaf blocks widened as they are summed), any other widened first."""
    cdef DimSet dims
    cdef ReduceCtx ctx
    cdef ReduceOps ops
    cdef int out_type, st
    cdef bint reduced
    cdef TensorImpl src, result
    if dtype is not None:
        out_type = (<DType?>dtype).scalar_type
    elif is_integral(self.scalar_type, True):
        out_type = ST_INT64
    else:
        out_type = self.scalar_type
    if is_complex(self.scalar_type) or is_complex(out_type):
        return _complex_sum(self, dim, keepdim, out_type, name, mean)
    if mean and not is_floating(out_type):
        if dtype is None:
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point "
                               f"or complex dtype. Got: {dtype_of(self.scalar_type).type_name}")
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either a floating point "
                           f"or complex dtype. Got: {dtype_of(out_type).type_name}")
    parse_dims(self, dim, True, &dims)
    reduced = is_floating(out_type) and opmath_type(out_type) != out_type
    if not reduced:
        if not (is_floating(self.scalar_type) and dtype is not None):      # a float input converts to dtype
            check_dtype_kernel(self.scalar_type, name)
        check_dtype_kernel(out_type, name)
    src = _as_type(self, out_type) if dtype is not None or reduced else self
    if reduced and not _innermost(src, &dims):
        src = cast_contiguous(src, ST_FLOAT32)
    st = src.scalar_type
    ctx.in_type = st
    ctx.mode = F_SUM
    ctx.centers = NULL
    ctx.out2 = NULL
    if is_floating(st):
        ctx.acc_type = ST_FLOAT32 if reduced else st
        ops = fsum_ops(&ctx)
    else:
        ctx.acc_type = ST_INT64
        ops = _isum_ops()
    ops.project = _mean_project if mean else sum_project
    result = reduce(src, &dims, keepdim, ctx.acc_type, &ops, &ctx)
    return _finish(result, out_type)


cdef bint _innermost(TensorImpl src, const DimSet* dims) noexcept:
    """Whether src is contiguous and reduced over its innermost dims only (the row-wise leaf's layout)."""
    cdef int d
    for d in range(1, src.nd):
        if dims.reduce[d - 1] and not dims.reduce[d]:
            return False
    return src.contiguous


cdef list _reduced_dims(TensorImpl src, object dim, bint empty_means_all):
    cdef DimSet dims
    parse_dims(src, dim, empty_means_all, &dims)
    return [d for d in range(src.nd) if dims.reduce[d]]


cdef TensorImpl _complex_source(TensorImpl self, int out_type, str name):
    if not is_complex(out_type):
        raise RuntimeError(f"{name}: a complex input reduces to a complex dtype, not {dtype_of(out_type).type_name}")
    return _as_type(self, out_type)


cdef TensorImpl _complex_sum(TensorImpl self, object dim, bint keepdim, int out_type, str name, bint mean):
    """Complex sums and means: the real and imaginary parts reduced apart (a complex accumulator's
    two parts are exactly such sums), by the float kernel over the (..., 2) real view."""
    cdef TensorImpl src = _complex_source(self, out_type, name)
    cdef list reduced = _reduced_dims(src, dim, True)
    if not reduced:           # a 0-d tensor: its own sum
        return cast_contiguous(src, out_type)
    parts = _sum(_views.view_as_real(src), reduced, keepdim, None, name, mean)
    return _views.view_as_complex(parts)


def sum_dim_cpu(TensorImpl self not None, dim=None, bint keepdim=False, dtype=None):
    return _sum(self, dim, keepdim, dtype, "sum_cpu", False)


def mean_dim_cpu(TensorImpl self not None, dim=None, bint keepdim=False, dtype=None):
    return _sum(self, dim, keepdim, dtype, "mean_cpu", True)


cdef TensorImpl _prod(TensorImpl self, object dim, bint keepdim, object dtype):
    cdef DimSet dims
    cdef ReduceCtx ctx
    cdef ReduceOps ops
    cdef int out_type, acc_type
    cdef TensorImpl src
    if dim is None:
        all_dims(self, &dims)
    else:
        parse_dims(self, dim, True, &dims)
    if dtype is not None:
        out_type = (<DType?>dtype).scalar_type
    elif is_integral(self.scalar_type, True):
        out_type = ST_INT64
    else:
        out_type = self.scalar_type
    if is_complex(self.scalar_type) or is_complex(out_type):
        src = _complex_source(self, out_type, "prod_cpu")
        acc_type = out_type
        complex_prod_ops(&ops, acc_type)
    else:
        check_dtype_kernel(self.scalar_type, "prod_cpu")
        check_dtype_kernel(out_type, "prod_cpu")
        src = _as_type(self, out_type) if dtype is not None else self
        acc_type = src.scalar_type if is_floating(src.scalar_type) else ST_INT64
        src = _as_type(src, acc_type)
        ops.acc_size = 4 if acc_type == ST_FLOAT32 else 8
        ops.init, ops.leaf, ops.combine, ops.project = _prod_init, _prod_leaf, _prod_combine, sum_project
    ctx.in_type = acc_type
    ctx.acc_type = acc_type
    ctx.mode = 0
    ctx.centers = NULL
    ctx.out2 = NULL
    return _finish(reduce(src, &dims, keepdim, acc_type, &ops, &ctx), out_type)


def prod_cpu(TensorImpl self not None, dtype=None):
    return _prod(self, None, False, dtype)


def prod_dim_cpu(TensorImpl self not None, int dim, bint keepdim=False, dtype=None):
    return _prod(self, dim, keepdim, dtype)
