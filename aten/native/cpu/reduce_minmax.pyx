"""max, min, amax, amin, argmax, argmin and max.dim/min.dim on CPU (over the engine in reduce.pyx).

NaN propagates as in PyTorch: `v > m or v != v` makes a NaN sticky (every comparison with NaN is
false), so the maximum of a row with a NaN is NaN and argmax/max.dim return the first NaN's
index. Ties keep the first index: rows are scanned in order and, when the engine combines two
partial results, the earlier one wins unless the later one is strictly better.
"""
from libc.math cimport fabs, INFINITY
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, INT8_MIN, INT8_MAX, INT16_MIN, INT16_MAX, \
    INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX

from c10.scalar_type cimport dtype_of, ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.cpu.reduce cimport (ReduceCtx, ReduceOps, DimSet, parse_dims, all_dims, reduce, reduce_into,
                                     result_shape, check_nonempty, check_dtype_kernel, dims_given)
from aten.native.cpu.element_types cimport num_t

cdef enum:
    ROW_MIN = 32           # a reduced row at least this long (and inner to the columns) is scanned row-wise
    LANES = 64             # independent accumulators of a row scan

# ---------------------------------------------------------------------------------------------
# Values: max, min (and of |x|)

cdef inline bint _better(num_t v, num_t m, int mode) noexcept nogil:
    """v replaces m: v is larger (smaller for min), or v is a NaN (then m stays NaN forever)."""
    if num_t is float or num_t is double:
        if mode == V_MAX or mode == V_ABSMAX:
            return v > m or v != v
        return v < m or v != v
    else:
        if mode == V_MAX:
            return v > m
        return v < m


cdef inline num_t _val(num_t v, int mode) noexcept nogil:
    if num_t is float or num_t is double:
        if mode >= V_ABSMAX:
            return fabs(v)
    return v


cdef inline num_t _step(num_t m, num_t v, int mode) noexcept nogil:
    """m after seeing v, written as two selects so that gcc vectorises the loops (maxps + a blend)."""
    if mode == V_MAX or mode == V_ABSMAX:
        m = v if v > m else m
    else:
        m = v if v < m else m
    if num_t is float or num_t is double:
        m = v if v != v else m
    return m


cdef inline void _vloop(num_t* a, const num_t* x, Py_ssize_t m, Py_ssize_t s, int mode) noexcept nogil:
    """a[k] <- a[k] combined with x[(i + k) * s] for i < m in steps of LANES: an elementwise loop
    over the lanes (gcc vectorises it; a reduction loop over max would stay scalar)."""
    cdef Py_ssize_t i, k
    for i in range(0, m, 64):       # LANES (Cython needs a literal step)
        for k in range(LANES):
            a[k] = _step(a[k], _val(x[(i + k) * s], mode), mode)


cdef void _vleaf(num_t* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows, Py_ssize_t rs,
                 int mode) noexcept nogil:
    cdef Py_ssize_t r, c, i, k, m, ce = cs // <Py_ssize_t>sizeof(num_t), s = rs // <Py_ssize_t>sizeof(num_t)
    cdef const num_t* x
    cdef num_t a[LANES]
    if ncols == 1 or (rs < cs and nrows >= ROW_MIN):
        m = nrows - nrows % LANES
        for c in range(ncols):
            x = <const num_t*>(src + c * cs)
            for k in range(LANES):
                a[k] = acc[c]
            if s == 1:
                if mode == V_MAX:
                    _vloop(a, x, m, 1, V_MAX)
                elif mode == V_MIN:
                    _vloop(a, x, m, 1, V_MIN)
                elif mode == V_ABSMAX:
                    _vloop(a, x, m, 1, V_ABSMAX)
                else:
                    _vloop(a, x, m, 1, V_ABSMIN)
            else:
                _vloop(a, x, m, s, mode)
            for i in range(m, nrows):
                a[0] = _step(a[0], _val(x[i * s], mode), mode)
            for k in range(1, LANES):
                a[0] = _step(a[0], a[k], mode)
            acc[c] = a[0]
        return
    for r in range(nrows):
        x = <const num_t*>(src + r * rs)
        if ce == 1:
            if mode == V_MAX:
                for c in range(ncols):
                    acc[c] = _step(acc[c], x[c], V_MAX)
            elif mode == V_MIN:
                for c in range(ncols):
                    acc[c] = _step(acc[c], x[c], V_MIN)
            else:
                for c in range(ncols):
                    acc[c] = _step(acc[c], _val(x[c], mode), mode)
        else:
            for c in range(ncols):
                acc[c] = _step(acc[c], _val(x[c * ce], mode), mode)


cdef void _value_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                      Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type, mode = ctx.mode
    if st == ST_UINT8 or st == ST_BOOL:
        _vleaf(<uint8_t*>acc, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT8:
        _vleaf(<int8_t*>acc, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT16:
        _vleaf(<int16_t*>acc, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT32:
        _vleaf(<int32_t*>acc, src, ncols, cs, nrows, rs, mode)
    elif st == ST_INT64:
        _vleaf(<int64_t*>acc, src, ncols, cs, nrows, rs, mode)
    elif st == ST_FLOAT32:
        _vleaf(<float*>acc, src, ncols, cs, nrows, rs, mode)
    else:
        _vleaf(<double*>acc, src, ncols, cs, nrows, rs, mode)


cdef void _vinit(num_t* acc, Py_ssize_t n, int mode) noexcept nogil:
    """The identity: the lowest value for max (highest for min)."""
    cdef Py_ssize_t i
    cdef num_t v
    cdef bint high = mode == V_MIN or mode == V_ABSMIN
    if num_t is float or num_t is double:
        v = INFINITY if high else -INFINITY
    elif num_t is uint8_t:
        v = 255 if high else 0
    elif num_t is int8_t:
        v = INT8_MAX if high else INT8_MIN
    elif num_t is int16_t:
        v = INT16_MAX if high else INT16_MIN
    elif num_t is int32_t:
        v = INT32_MAX if high else INT32_MIN
    else:
        v = INT64_MAX if high else INT64_MIN
    for i in range(n):
        acc[i] = v


cdef void _vcombine(num_t* acc, const num_t* other, Py_ssize_t n, int mode) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        acc[i] = _step(acc[i], other[i], mode)


cdef void _vproject(const num_t* acc, Py_ssize_t n, num_t* out, Py_ssize_t out_step) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i * out_step] = acc[i]


cdef void _value_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                      const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type
    if st == ST_UINT8 or st == ST_BOOL:
        _vinit(<uint8_t*>acc, n, ctx.mode)
    elif st == ST_INT8:
        _vinit(<int8_t*>acc, n, ctx.mode)
    elif st == ST_INT16:
        _vinit(<int16_t*>acc, n, ctx.mode)
    elif st == ST_INT32:
        _vinit(<int32_t*>acc, n, ctx.mode)
    elif st == ST_INT64:
        _vinit(<int64_t*>acc, n, ctx.mode)
    elif st == ST_FLOAT32:
        _vinit(<float*>acc, n, ctx.mode)
    else:
        _vinit(<double*>acc, n, ctx.mode)


cdef void _value_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type
    if st == ST_UINT8 or st == ST_BOOL:
        _vcombine(<uint8_t*>acc, <const uint8_t*>other, n, ctx.mode)
    elif st == ST_INT8:
        _vcombine(<int8_t*>acc, <const int8_t*>other, n, ctx.mode)
    elif st == ST_INT16:
        _vcombine(<int16_t*>acc, <const int16_t*>other, n, ctx.mode)
    elif st == ST_INT32:
        _vcombine(<int32_t*>acc, <const int32_t*>other, n, ctx.mode)
    elif st == ST_INT64:
        _vcombine(<int64_t*>acc, <const int64_t*>other, n, ctx.mode)
    elif st == ST_FLOAT32:
        _vcombine(<float*>acc, <const float*>other, n, ctx.mode)
    else:
        _vcombine(<double*>acc, <const double*>other, n, ctx.mode)


cdef void _value_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                         const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type
    if st == ST_UINT8 or st == ST_BOOL:
        _vproject(<const uint8_t*>acc, n, <uint8_t*>ctx.out + out_index, out_step)
    elif st == ST_INT8:
        _vproject(<const int8_t*>acc, n, <int8_t*>ctx.out + out_index, out_step)
    elif st == ST_INT16:
        _vproject(<const int16_t*>acc, n, <int16_t*>ctx.out + out_index, out_step)
    elif st == ST_INT32:
        _vproject(<const int32_t*>acc, n, <int32_t*>ctx.out + out_index, out_step)
    elif st == ST_INT64:
        _vproject(<const int64_t*>acc, n, <int64_t*>ctx.out + out_index, out_step)
    elif st == ST_FLOAT32:
        _vproject(<const float*>acc, n, <float*>ctx.out + out_index, out_step)
    else:
        _vproject(<const double*>acc, n, <double*>ctx.out + out_index, out_step)


cdef ReduceOps value_ops(const ReduceCtx* ctx) noexcept:
    cdef ReduceOps ops
    ops.acc_size = dtype_of(ctx.in_type).itemsize
    ops.init = _value_init
    ops.leaf = _value_leaf
    ops.combine = _value_combine
    ops.project = _value_project
    return ops


# ---------------------------------------------------------------------------------------------
# Indices: argmax, argmin, max.dim, min.dim. An accumulator is 16 bytes: the value (in the
# input's type) in the first 8, the int64 index in the last 8 (-1: no element yet).

cdef struct IdxAcc:
    double slot            # raw storage for the value; read and written through a num_t pointer
    int64_t index


cdef void _ileaf(IdxAcc* acc, const num_t* tag, const char* src, Py_ssize_t ncols, Py_ssize_t cs,
                 Py_ssize_t nrows, Py_ssize_t rs, Py_ssize_t row0, int mode) noexcept nogil:
    cdef Py_ssize_t r, c, start, ce = cs // <Py_ssize_t>sizeof(num_t), s = rs // <Py_ssize_t>sizeof(num_t)
    cdef const num_t* x
    cdef num_t v, best
    cdef int64_t bi
    if ncols == 1 or (rs < cs and nrows >= ROW_MIN):
        for c in range(ncols):
            x = <const num_t*>(src + c * cs)
            bi = acc[c].index
            start = 0
            if bi < 0:
                best = x[0]
                bi = row0
                start = 1
            else:
                best = (<num_t*>&acc[c].slot)[0]
            if num_t is float or num_t is double:
                if best != best:              # a NaN so far (maybe x[0]): it stays
                    (<num_t*>&acc[c].slot)[0] = best
                    acc[c].index = bi
                    continue
                for r in range(start, nrows):
                    v = x[r * s]
                    if v != v:
                        best = v
                        bi = row0 + r
                        break
                    if (v > best) if mode == V_MAX else (v < best):
                        best = v
                        bi = row0 + r
            else:
                if mode == V_MAX:
                    for r in range(start, nrows):
                        v = x[r * s]
                        if v > best:
                            best = v
                            bi = row0 + r
                else:
                    for r in range(start, nrows):
                        v = x[r * s]
                        if v < best:
                            best = v
                            bi = row0 + r
            (<num_t*>&acc[c].slot)[0] = best
            acc[c].index = bi
        return
    for r in range(nrows):
        x = <const num_t*>(src + r * rs)
        for c in range(ncols):
            v = x[c * ce]
            if acc[c].index < 0 or _better(v, (<num_t*>&acc[c].slot)[0], mode):
                if num_t is float or num_t is double:
                    if acc[c].index >= 0 and (<num_t*>&acc[c].slot)[0] != (<num_t*>&acc[c].slot)[0]:
                        continue      # the first NaN stays
                (<num_t*>&acc[c].slot)[0] = v
                acc[c].index = row0 + r


cdef void _index_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                      Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type, mode = ctx.mode
    cdef IdxAcc* a = <IdxAcc*>acc
    if st == ST_UINT8 or st == ST_BOOL:
        _ileaf(a, <const uint8_t*>NULL, src, ncols, cs, nrows, rs, row0, mode)
    elif st == ST_INT8:
        _ileaf(a, <const int8_t*>NULL, src, ncols, cs, nrows, rs, row0, mode)
    elif st == ST_INT16:
        _ileaf(a, <const int16_t*>NULL, src, ncols, cs, nrows, rs, row0, mode)
    elif st == ST_INT32:
        _ileaf(a, <const int32_t*>NULL, src, ncols, cs, nrows, rs, row0, mode)
    elif st == ST_INT64:
        _ileaf(a, <const int64_t*>NULL, src, ncols, cs, nrows, rs, row0, mode)
    elif st == ST_FLOAT32:
        _ileaf(a, <const float*>NULL, src, ncols, cs, nrows, rs, row0, mode)
    else:
        _ileaf(a, <const double*>NULL, src, ncols, cs, nrows, rs, row0, mode)


cdef void _index_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                      const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    cdef IdxAcc* a = <IdxAcc*>acc
    for i in range(n):
        a[i].slot = 0
        a[i].index = -1


cdef void _icombine(IdxAcc* acc, const IdxAcc* other, Py_ssize_t n, const num_t* tag, int mode) noexcept nogil:
    """acc covers earlier indices than other: other wins only when strictly better."""
    cdef Py_ssize_t i
    cdef num_t a, b
    for i in range(n):
        if other[i].index < 0:
            continue
        if acc[i].index < 0:
            acc[i] = other[i]
            continue
        a = (<const num_t*>&acc[i].slot)[0]
        b = (<const num_t*>&other[i].slot)[0]
        if num_t is float or num_t is double:
            if a != a:
                continue
        if _better(b, a, mode):
            acc[i] = other[i]


cdef void _index_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef int st = ctx.in_type, mode = ctx.mode
    cdef IdxAcc* a = <IdxAcc*>acc
    cdef const IdxAcc* b = <const IdxAcc*>other
    if st == ST_UINT8 or st == ST_BOOL:
        _icombine(a, b, n, <const uint8_t*>NULL, mode)
    elif st == ST_INT8:
        _icombine(a, b, n, <const int8_t*>NULL, mode)
    elif st == ST_INT16:
        _icombine(a, b, n, <const int16_t*>NULL, mode)
    elif st == ST_INT32:
        _icombine(a, b, n, <const int32_t*>NULL, mode)
    elif st == ST_INT64:
        _icombine(a, b, n, <const int64_t*>NULL, mode)
    elif st == ST_FLOAT32:
        _icombine(a, b, n, <const float*>NULL, mode)
    else:
        _icombine(a, b, n, <const double*>NULL, mode)


cdef void _index_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                         const ReduceCtx* ctx) noexcept nogil:
    """Indices to ctx.out (int64); values to ctx.out2 (the input's type) when there is one."""
    cdef Py_ssize_t i, o
    cdef const IdxAcc* a = <const IdxAcc*>acc
    cdef int st = ctx.in_type
    for i in range(n):
        o = out_index + i * out_step
        (<int64_t*>ctx.out)[o] = a[i].index
        if ctx.out2 != NULL:
            if st == ST_UINT8 or st == ST_BOOL or st == ST_INT8:
                (<uint8_t*>ctx.out2)[o] = (<const uint8_t*>&a[i].slot)[0]
            elif st == ST_INT16:
                (<int16_t*>ctx.out2)[o] = (<const int16_t*>&a[i].slot)[0]
            elif st == ST_INT32 or st == ST_FLOAT32:
                (<int32_t*>ctx.out2)[o] = (<const int32_t*>&a[i].slot)[0]
            else:
                (<int64_t*>ctx.out2)[o] = (<const int64_t*>&a[i].slot)[0]


cdef ReduceOps _index_ops() noexcept:
    cdef ReduceOps ops
    ops.acc_size = sizeof(IdxAcc)
    ops.init = _index_init
    ops.leaf = _index_leaf
    ops.combine = _index_combine
    ops.project = _index_project
    return ops


# ---------------------------------------------------------------------------------------------
# Operators

cdef TensorImpl _values(TensorImpl self, DimSet* dims, bint keepdim, int mode):
    cdef ReduceCtx ctx
    cdef ReduceOps ops
    ctx.in_type = self.scalar_type
    ctx.acc_type = self.scalar_type
    ctx.mode = mode
    ctx.centers = NULL
    ctx.out2 = NULL
    ops = value_ops(&ctx)
    return reduce(self, dims, keepdim, self.scalar_type, &ops, &ctx)


def max_cpu(TensorImpl self not None):
    cdef DimSet dims
    all_dims(self, &dims)
    check_nonempty(self, &dims, "max", False)
    check_dtype_kernel(self.scalar_type, "max_all")
    return _values(self, &dims, False, V_MAX)


def min_cpu(TensorImpl self not None):
    cdef DimSet dims
    all_dims(self, &dims)
    check_nonempty(self, &dims, "min", False)
    check_dtype_kernel(self.scalar_type, "min_all")
    return _values(self, &dims, False, V_MIN)


cdef TensorImpl _amax(TensorImpl self, object dim, bint keepdim, int mode, str name):
    cdef DimSet dims
    if dim is None:
        dim = ()
    parse_dims(self, dim, True, &dims)
    check_nonempty(self, &dims, name, dims_given(dim))
    check_dtype_kernel(self.scalar_type, name + "_cpu")
    return _values(self, &dims, keepdim, mode)


def amax_cpu(TensorImpl self not None, dim=(), bint keepdim=False):
    return _amax(self, dim, keepdim, V_MAX, "amax")


def amin_cpu(TensorImpl self not None, dim=(), bint keepdim=False):
    return _amax(self, dim, keepdim, V_MIN, "amin")


cdef tuple _indices(TensorImpl self, DimSet* dims, bint keepdim, int mode, bint values):
    """(values or None, indices) of the single reduced dim in dims (or of every element, when self
    is contiguous: then all dims merge into one and the index is the flat index)."""
    cdef ReduceCtx ctx
    cdef ReduceOps ops = _index_ops()
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int nd = result_shape(self, dims, keepdim, sizes)
    cdef TensorImpl idx = empty_contiguous(nd, sizes, ST_INT64, None)
    cdef TensorImpl val = empty_contiguous(nd, sizes, self.scalar_type, None) if values else None
    ctx.in_type = self.scalar_type
    ctx.acc_type = self.scalar_type
    ctx.mode = mode
    ctx.centers = NULL
    ctx.out2 = val.data() if values else NULL
    reduce_into(idx, self, dims, &ops, &ctx)
    return (val, idx)


cdef TensorImpl _argmax(TensorImpl self, object dim, bint keepdim, int mode, str name):
    cdef DimSet dims
    cdef TensorImpl src = self
    if self.scalar_type == ST_BOOL:
        raise RuntimeError(f"{name}(): does not support bool input")
    check_dtype_kernel(self.scalar_type, name + "_cpu")
    if dim is None:
        if self.n_elem == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        if not self.contiguous:
            src = cast_contiguous(self, self.scalar_type)      # the flat index is in logical order
        all_dims(src, &dims)
    else:
        parse_dims(self, dim, True, &dims)
        check_nonempty(self, &dims, name, True)
    return _indices(src, &dims, keepdim, mode, False)[1]


def argmax_cpu(TensorImpl self not None, dim=None, bint keepdim=False):
    return _argmax(self, dim, keepdim, V_MAX, "argmax")


def argmin_cpu(TensorImpl self not None, dim=None, bint keepdim=False):
    return _argmax(self, dim, keepdim, V_MIN, "argmin")


cdef tuple _max_dim(TensorImpl self, int dim, bint keepdim, int mode, str name):
    cdef DimSet dims
    parse_dims(self, dim, True, &dims)
    check_nonempty(self, &dims, name, True)
    check_dtype_kernel(self.scalar_type, name + "_cpu")
    return _indices(self, &dims, keepdim, mode, True)


def max_dim_cpu(TensorImpl self not None, int dim, bint keepdim=False):
    return _max_dim(self, dim, keepdim, V_MAX, "max")


def min_dim_cpu(TensorImpl self not None, int dim, bint keepdim=False):
    return _max_dim(self, dim, keepdim, V_MIN, "min")
