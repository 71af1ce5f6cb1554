"""Indexing along one dimension and advanced indexing on CPU: index_select, index_copy(_),
index_add(_), index_fill(_), index.Tensor (tensor[indices]) and index_put(_).

All of them are one loop nest over three blocks of dimensions of `self`: the dims before the
indexed ones (pre), the indexed block flattened to one position b with a precomputed offset
into self per b (PyTorch's index tensors, already bounds-checked and wrapped), and the dims
after (post). The other operand (the result, the source or the values) has its own strides for
pre and post and its own offset per b. Every index is validated, with PyTorch's message,
before the loop runs without the GIL.
"""
import warnings

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from c10.scalar_type cimport (ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT16,
                              ST_FLOAT32, ST_FLOAT64)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.index_support cimport (move_t, num_t, check_kernel_dtype, check_cpu, clone_contiguous,
                                             int64_contiguous, scalar_tensor_of, bump_version, fresh,
                                             first_out_of_range, next_pos2)
from aten.native.meta.index_checks cimport check_index_copy
from aten.native.meta.messages cimport type_name, sizes_str, shape_str
from aten.native.cpu.masked cimport nonzero_of
from aten.native.cpu.array_bridge cimport num_threads
from cython.parallel cimport prange
from aten.native.cpu.half import float16_via_float32

cdef enum:
    M_GATHER = 0     # other[pre, b, post] = self[pre, soff(b), post]
    M_COPY = 1       # self[pre, soff(b), post] = other[pre, b, post]
    M_ADD = 2        # self[pre, soff(b), post] += alpha * other[pre, b, post]


cdef enum:
    # Elements a gather moves before it is split across threads (the loop engine's grain).
    _PARALLEL_GATHER = 32768


cdef struct Plan3:
    int npre
    int npost
    Py_ssize_t pre_sizes[MAX_DIMS]
    Py_ssize_t post_sizes[MAX_DIMS]
    Py_ssize_t s_pre[MAX_DIMS]       # self strides (elements)
    Py_ssize_t s_post[MAX_DIMS]
    Py_ssize_t o_pre[MAX_DIMS]       # other strides
    Py_ssize_t o_post[MAX_DIMS]
    Py_ssize_t nb
    # self's offset of position b: slin[b], or (without slin) sidx[b] (wrapped by swrap when
    # negative) times sstride, so that one index tensor needs no offsets buffer
    const int64_t* slin
    const int64_t* sidx
    Py_ssize_t sstride
    Py_ssize_t swrap
    # the other operand's offset of position b: olin[b], or b * ostride
    const int64_t* olin
    Py_ssize_t ostride
    # threads for gathers (each position writes its own rows; copies and adds may collide)
    int nthreads


cdef inline Py_ssize_t _soff(const Plan3* p, Py_ssize_t b) noexcept nogil:
    cdef int64_t v
    if p.slin != NULL:
        return p.slin[b]
    v = p.sidx[b]
    if v < 0:
        v += p.swrap
    return v * p.sstride


cdef inline Py_ssize_t _ooff(const Plan3* p, Py_ssize_t b) noexcept nogil:
    if p.olin != NULL:
        return p.olin[b]
    return b * p.ostride


cdef int _coalesce(int n, Py_ssize_t* sizes, Py_ssize_t* a, Py_ssize_t* b) noexcept:
    """Drop size-1 dims and merge neighbours that both operands step through evenly."""
    cdef int d, j = 0
    for d in range(n):
        if sizes[d] == 1:
            continue
        if j > 0 and a[j - 1] == a[d] * sizes[d] and b[j - 1] == b[d] * sizes[d]:
            sizes[j - 1] *= sizes[d]
            a[j - 1] = a[d]
            b[j - 1] = b[d]
            continue
        sizes[j] = sizes[d]
        a[j] = a[d]
        b[j] = b[d]
        j += 1
    return j


cdef inline num_t _norm(num_t v, bint is_bool) noexcept nogil:
    if is_bool:
        return 1 if v != 0 else 0
    return v


cdef inline void _row_move(move_t* dst, Py_ssize_t ds, const move_t* src, Py_ssize_t ss,
                           Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t j
    cdef move_t v
    if ds == 1 and ss == 1:
        memcpy(dst, src, n * sizeof(move_t))
    elif ss == 0:
        v = src[0]
        for j in range(n):
            dst[j * ds] = v
    else:
        for j in range(n):
            dst[j * ds] = src[j * ss]


cdef inline void _row_add(num_t* dst, Py_ssize_t ds, const num_t* src, Py_ssize_t ss, Py_ssize_t n, num_t alpha,
                          bint is_bool) noexcept nogil:
    cdef Py_ssize_t j
    if is_bool:
        for j in range(n):
            dst[j * ds] = _norm(<num_t>(dst[j * ds] + alpha * src[j * ss]), True)
    elif alpha == 1 and ds == 1 and ss == 1:
        for j in range(n):
            dst[j] = <num_t>(dst[j] + src[j])
    elif alpha == 1:
        for j in range(n):
            dst[j * ds] = <num_t>(dst[j * ds] + src[j * ss])
    else:
        for j in range(n):
            dst[j * ds] = <num_t>(dst[j * ds] + alpha * src[j * ss])


cdef void _run3(move_t* s, move_t* o, num_t* sn, num_t* on, const Plan3* p, int mode, num_t alpha,
                bint is_bool) noexcept nogil:
    """The loop nest. Moves go through s/o (element width only); M_ADD through sn/on."""
    cdef Py_ssize_t pre_cnt[MAX_DIMS]
    cdef Py_ssize_t post_cnt[MAX_DIMS]
    cdef Py_ssize_t npre_total = 1, inner = 1, outer_rows = 1, pre_i, b, r
    cdef Py_ssize_t sp = 0, op = 0, so, oo, sin_ = 0, oin = 0
    cdef int d, nouter = 0
    for d in range(p.npre):
        npre_total *= p.pre_sizes[d]
        pre_cnt[d] = 0
    if p.npost > 0:
        nouter = p.npost - 1
        inner = p.post_sizes[nouter]
        sin_ = p.s_post[nouter]
        oin = p.o_post[nouter]
    for d in range(nouter):
        outer_rows *= p.post_sizes[d]
    if npre_total == 0 or outer_rows == 0 or inner == 0 or p.nb == 0:
        return
    for pre_i in range(npre_total):
        if p.npost == 0:
            # one element per position b: no row loop
            if mode == M_GATHER and p.slin == NULL and p.olin == NULL and p.swrap == 0:
                # index_select's inner loop: a plain gather through one index tensor
                for b in range(p.nb):
                    o[op + b * p.ostride] = s[sp + p.sidx[b] * p.sstride]
            elif mode == M_GATHER:
                for b in range(p.nb):
                    o[op + _ooff(p, b)] = s[sp + _soff(p, b)]
            elif mode == M_COPY:
                for b in range(p.nb):
                    s[sp + _soff(p, b)] = o[op + _ooff(p, b)]
            else:
                for b in range(p.nb):
                    so = sp + _soff(p, b)
                    sn[so] = _norm(<num_t>(sn[so] + alpha * on[op + _ooff(p, b)]), is_bool)
        elif mode == M_GATHER and nouter == 0 and p.nthreads > 1 and p.nb * inner >= _PARALLEL_GATHER:
            # index_select of rows: one contiguous-or-strided row per position, split across threads
            for b in prange(p.nb, schedule="static", num_threads=p.nthreads):
                _row_move(o + op + _ooff(p, b), oin, s + sp + _soff(p, b), sin_, inner)
        else:
            for b in range(p.nb):
                so = sp + _soff(p, b)
                oo = op + _ooff(p, b)
                for d in range(nouter):
                    post_cnt[d] = 0
                for r in range(outer_rows):
                    if mode == M_GATHER:
                        _row_move(o + oo, oin, s + so, sin_, inner)
                    elif mode == M_COPY:
                        _row_move(s + so, sin_, o + oo, oin, inner)
                    else:
                        _row_add(sn + so, sin_, on + oo, oin, inner, alpha, is_bool)
                    next_pos2(nouter, p.post_sizes, post_cnt, p.s_post, p.o_post, &so, &oo)
        next_pos2(p.npre, p.pre_sizes, pre_cnt, p.s_pre, p.o_pre, &sp, &op)


cdef int run3(int st, int mode, char* s, char* o, Plan3* p, TensorImpl alpha) except -1:
    """Run the plan on self data s and other data o of dtype st (alpha: one element, M_ADD only)."""
    cdef bint is_bool = st == ST_BOOL
    cdef Py_ssize_t itemsize
    p.nthreads = num_threads() if mode == M_GATHER else 1
    p.npre = _coalesce(p.npre, p.pre_sizes, p.s_pre, p.o_pre)
    p.npost = _coalesce(p.npost, p.post_sizes, p.s_post, p.o_post)
    if mode != M_ADD:
        itemsize = 1 if st in (ST_BOOL, ST_UINT8, ST_INT8) else (2 if st in (ST_INT16, ST_FLOAT16) else
                                                                 (4 if st in (ST_INT32, ST_FLOAT32) else 8))
        with nogil:
            if itemsize == 1:
                _run3(<uint8_t*>s, <uint8_t*>o, <uint8_t*>NULL, <uint8_t*>NULL, p, mode, 0, False)
            elif itemsize == 2:
                _run3(<uint16_t*>s, <uint16_t*>o, <uint8_t*>NULL, <uint8_t*>NULL, p, mode, 0, False)
            elif itemsize == 4:
                _run3(<uint32_t*>s, <uint32_t*>o, <uint8_t*>NULL, <uint8_t*>NULL, p, mode, 0, False)
            else:
                _run3(<uint64_t*>s, <uint64_t*>o, <uint8_t*>NULL, <uint8_t*>NULL, p, mode, 0, False)
        return 0
    cdef char* a = alpha.data()
    with nogil:
        if st == ST_BOOL or st == ST_UINT8:
            _run3(<uint8_t*>NULL, <uint8_t*>NULL, <uint8_t*>s, <uint8_t*>o, p, mode, (<uint8_t*>a)[0], is_bool)
        elif st == ST_INT8:
            _run3(<uint8_t*>NULL, <uint8_t*>NULL, <int8_t*>s, <int8_t*>o, p, mode, (<int8_t*>a)[0], False)
        elif st == ST_INT16:
            _run3(<uint8_t*>NULL, <uint8_t*>NULL, <int16_t*>s, <int16_t*>o, p, mode, (<int16_t*>a)[0], False)
        elif st == ST_INT32:
            _run3(<uint8_t*>NULL, <uint8_t*>NULL, <int32_t*>s, <int32_t*>o, p, mode, (<int32_t*>a)[0], False)
        elif st == ST_INT64:
            _run3(<uint8_t*>NULL, <uint8_t*>NULL, <int64_t*>s, <int64_t*>o, p, mode, (<int64_t*>a)[0], False)
        elif st == ST_FLOAT32:
            _run3(<uint8_t*>NULL, <uint8_t*>NULL, <float*>s, <float*>o, p, mode, (<float*>a)[0], False)
        else:
            _run3(<uint8_t*>NULL, <uint8_t*>NULL, <double*>s, <double*>o, p, mode, (<double*>a)[0], False)
    return 0


# ---------------------------------------------------------------------------------------------
# One indexed dimension: index_select, index_copy, index_add, index_fill

cdef class _Offsets:
    """An owned int64 buffer (offsets per position b)."""
    cdef int64_t* data
    cdef Py_ssize_t n

    def __dealloc__(self):
        free(self.data)


cdef _Offsets new_offsets(Py_ssize_t n):
    cdef _Offsets o = _Offsets.__new__(_Offsets)
    o.data = <int64_t*>malloc((n if n > 0 else 1) * sizeof(int64_t))
    if o.data == NULL:
        raise MemoryError()
    o.n = n
    return o


cdef void _dim_plan(Plan3* p, TensorImpl self, int dim, TensorImpl other, int odim) noexcept:
    """pre = dims before dim, post = dims after, for self and for other (odim -1: other is 0-dim
    or one element broadcast, all strides 0)."""
    cdef int d
    p.npre = dim if self.nd > 0 else 0
    p.npost = self.nd - dim - 1 if self.nd > 0 else 0
    for d in range(p.npre):
        p.pre_sizes[d] = self.sizes[d]
        p.s_pre[d] = self.strides[d]
        p.o_pre[d] = other.strides[d] if odim >= 0 else 0
    for d in range(p.npost):
        p.post_sizes[d] = self.sizes[dim + 1 + d]
        p.s_post[d] = self.strides[dim + 1 + d]
        p.o_post[d] = other.strides[odim + 1 + d] if odim >= 0 else 0


cdef void _index_by(Plan3* p, TensorImpl idx, Py_ssize_t sstride, Py_ssize_t swrap, Py_ssize_t ostride) noexcept:
    """Positions b are the elements of a contiguous int64 index tensor: self at idx[b] * sstride
    (negative indices wrapped by swrap), the other operand at b * ostride."""
    p.nb = idx.n_elem
    p.slin = NULL
    p.sidx = <int64_t*>idx.data()
    p.sstride = sstride
    p.swrap = swrap
    p.olin = NULL
    p.ostride = ostride


cdef inline Py_ssize_t _size0(TensorImpl t, int dim):
    """t.size(dim), with a 0-dim tensor seen as one element (PyTorch's ensure_nonempty_size)."""
    return t.sizes[dim] if t.nd > 0 else 1


cdef inline Py_ssize_t _stride0(TensorImpl t, int dim):
    return t.strides[dim] if t.nd > 0 else 0


cdef int _check_in_bounds(TensorImpl idx, Py_ssize_t n, Py_ssize_t size, bint allow_negative, int d, type error,
                          str prefix="") except -1:
    """PyTorch's error (of type error, its message after prefix) for the first of the n values of
    the contiguous int64 idx outside [0, size) (or [-size, size) when allow_negative)."""
    cdef Py_ssize_t bad
    with nogil:
        bad = first_out_of_range(<int64_t*>idx.data(), n, size, allow_negative)
    if bad >= 0:
        raise error(f"{prefix}index {(<int64_t*>idx.data())[bad]} is out of bounds for dimension {d} with size {size}")
    return 0


@float16_via_float32
def index_select_cpu(TensorImpl self not None, dim, TensorImpl index not None):
    cdef int d = self._wrap_dim(dim)
    cdef Py_ssize_t n = index.n_elem, size, bad
    cdef Py_ssize_t out_sizes[MAX_DIMS]
    cdef TensorImpl idx, out
    cdef Plan3 p
    check_cpu(self)
    check_cpu(index)
    if index.nd > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self.nd == 0 and n != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
    if index.scalar_type != ST_INT64 and index.scalar_type != ST_INT32:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    check_kernel_dtype(self, "index_select_out_cpu_")
    size = _size0(self, d)
    idx = int64_contiguous(index)
    if size == 0 and n > 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    with nogil:
        bad = first_out_of_range(<int64_t*>idx.data(), n, size, False)
    if bad >= 0:
        if d == 1 and self.nd > 1:
            # PyTorch's dedicated dim-1 kernel (index_select_out_cpu_dim1_) words it differently.
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={(<int64_t*>idx.data())[bad]} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    for i in range(self.nd):
        out_sizes[i] = self.sizes[i]
    if self.nd > 0:
        out_sizes[d] = n
    out = empty_contiguous(self.nd, out_sizes, self.scalar_type, None)
    _dim_plan(&p, self, d, out, d)
    _index_by(&p, idx, _stride0(self, d), 0, _stride0(out, d))
    run3(self.scalar_type, M_GATHER, self.data(), out.data(), &p, None)
    return out


cdef _index_write(TensorImpl self, int d, TensorImpl idx, TensorImpl source, int mode, TensorImpl alpha):
    """self[pre, idx[b], post] = (or +=) source[pre, b, post]; idx already checked."""
    cdef Plan3 p
    cdef Py_ssize_t n = idx.n_elem
    _dim_plan(&p, self, d, source, d if source.nd > 0 else -1)
    _index_by(&p, idx, _stride0(self, d), 0, _stride0(source, d))
    run3(self.scalar_type, mode, self.data(), source.data(), &p, alpha)


@float16_via_float32
def index_copy__cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None):
    cdef int d = self._wrap_dim(dim)
    cdef Py_ssize_t size
    cdef TensorImpl idx
    check_cpu(self)
    check_cpu(index)
    check_cpu(source)
    check_index_copy(self, d, index, source)
    check_kernel_dtype(self, "index_copy_")
    size = _size0(self, d)
    idx = int64_contiguous(index)
    _check_in_bounds(idx, idx.n_elem, size, False, d, IndexError, "index_copy_(): ")
    _index_write(self, d, idx, source, M_COPY, None)
    bump_version(self)
    return self


@float16_via_float32
def index_copy_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_copy")
    return fresh(index_copy__cpu(clone_contiguous(self), dim, index, source))


@float16_via_float32
def index_add__cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None, alpha=1):
    cdef int d = self._wrap_dim(dim)
    cdef Py_ssize_t n = index.n_elem, size
    cdef list self_sizes, source_sizes
    cdef TensorImpl idx, a
    check_cpu(self)
    check_cpu(index)
    check_cpu(source)
    if index.nd > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.nd} with type: "
                         f"{type_name(index.scalar_type)} and size: {sizes_str(index)}")
    if index.scalar_type != ST_INT64 and index.scalar_type != ST_INT32:
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{type_name(index.scalar_type)}")
    if self.scalar_type != source.scalar_type:
        raise RuntimeError(f"index_add_(): self ({type_name(self.scalar_type)}) and source "
                           f"({type_name(source.scalar_type)}) must have the same scalar type")
    if not (d == 0 or d < source.nd):
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {source.nd}")
    if n != _size0(source, d):
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({_size0(source, d)}), for dim: {d}")
    self_sizes = list(self._sizes())
    source_sizes = list(source._sizes())
    if source.nd != 0 and self.nd != 0:
        del self_sizes[d]
        del source_sizes[d]
    if self_sizes != source_sizes:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {sizes_str(self)} source.shape = {sizes_str(source)}")
    check_kernel_dtype(self, "index_add_cpu_")
    size = _size0(self, d)
    idx = int64_contiguous(index)
    _check_in_bounds(idx, n, size, False, d, RuntimeError)
    a = scalar_tensor_of(alpha, self.scalar_type)
    _index_write(self, d, idx, source, M_ADD, a)
    bump_version(self)
    return self


@float16_via_float32
def index_add_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None, alpha=1):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_add_cpu_")
    return fresh(index_add__cpu(clone_contiguous(self), dim, index, source, alpha))


@float16_via_float32
def index_fill__int_Scalar_cpu(TensorImpl self not None, dim, TensorImpl index not None, value):
    cdef int d
    cdef Py_ssize_t size, n = index.n_elem
    cdef TensorImpl idx, v
    cdef Plan3 p
    check_cpu(self)
    check_cpu(index)
    if index.scalar_type != ST_INT64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = self._wrap_dim(dim)
    if index.nd > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    check_kernel_dtype(self, "index_fill_cpu")
    v = scalar_tensor_of(value, self.scalar_type)
    size = _size0(self, d)
    idx = int64_contiguous(index)
    _check_in_bounds(idx, n, size, True, d, IndexError)
    _dim_plan(&p, self, d, v, -1)
    _index_by(&p, idx, _stride0(self, d), size, 0)
    run3(self.scalar_type, M_COPY, self.data(), v.data(), &p, None)
    bump_version(self)
    return self


@float16_via_float32
def index_fill__int_Tensor_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl value not None):
    if value.nd != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.nd} "
                           "dimension(s).")
    return index_fill__int_Scalar_cpu(self, dim, index, value._numpy_view().item())


@float16_via_float32
def index_fill_int_Scalar_cpu(TensorImpl self not None, dim, TensorImpl index not None, value):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_fill_cpu")
    return fresh(index_fill__int_Scalar_cpu(clone_contiguous(self), dim, index, value))


@float16_via_float32
def index_fill_int_Tensor_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl value not None):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_fill_cpu")
    return fresh(index_fill__int_Tensor_cpu(clone_contiguous(self), dim, index, value))


# ---------------------------------------------------------------------------------------------
# Advanced indexing: index.Tensor and index_put_

cdef class _Indexing:
    """The result of PyTorch's index preprocessing (expandTensors, broadcasting, make_info)."""
    cdef int nd_b                          # dims of the broadcast index shape
    cdef Py_ssize_t b_sizes[MAX_DIMS]
    cdef Py_ssize_t nb
    cdef list dims                         # per index tensor: the dim of self it indexes (-1: none)
    cdef list tensors                      # contiguous int64 index tensors
    cdef int npre
    cdef int npost
    cdef Py_ssize_t pre_sizes[MAX_DIMS]
    cdef Py_ssize_t post_sizes[MAX_DIMS]
    cdef Py_ssize_t s_pre[MAX_DIMS]
    cdef Py_ssize_t s_post[MAX_DIMS]
    cdef _Offsets slin                     # self offset per block position, or None:
    cdef TensorImpl sidx                   # the one index tensor, with
    cdef Py_ssize_t sstride                # self's stride and
    cdef Py_ssize_t swrap                  # size along the dim it indexes

    cdef void set_self_offsets(self, Plan3* p) noexcept:
        p.nb = self.nb
        if self.slin is not None:
            p.slin = self.slin.data
            p.sidx = NULL
        else:
            p.slin = NULL
            p.sidx = <int64_t*>self.sidx.data()
            p.sstride = self.sstride
            p.swrap = self.swrap

    cdef tuple result_shape(self):
        cdef list shape = [self.pre_sizes[d] for d in range(self.npre)]
        shape += [self.b_sizes[d] for d in range(self.nd_b)]
        shape += [self.post_sizes[d] for d in range(self.npost)]
        return tuple(shape)


cdef _Indexing _prepare(TensorImpl self, tuple indices):
    """Masks become long indices (nonzero), index tensors broadcast together, every index is
    bounds-checked, and the indexed block is placed as NumPy and PyTorch do: where the indexed
    dims are when they are adjacent, else first."""
    cdef list dims = [], tensors = [], positions = []
    cdef int src = 0, j, k, d, nd = 0, first
    cdef TensorImpl t, nz
    cdef Py_ssize_t bshape[MAX_DIMS]
    cdef Py_ssize_t s, size, n
    cdef bint adjacent = True
    cdef _Indexing info = _Indexing.__new__(_Indexing)
    if len(indices) > self.nd:
        raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {len(indices)})")
    for obj in indices:
        if obj is not None:
            t = <TensorImpl?>obj
            check_cpu(t)
            if t.scalar_type not in (ST_INT64, ST_INT32, ST_UINT8, ST_BOOL):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    for obj in indices:
        if obj is None:
            src += 1
            continue
        t = <TensorImpl>obj
        if t.scalar_type == ST_UINT8 or t.scalar_type == ST_BOOL:
            if t.scalar_type == ST_UINT8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                              "instead.", UserWarning, stacklevel=3)
            if src + t.nd > self.nd:
                raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {src + t.nd})")
            for j in range(t.nd):
                if t.sizes[j] != self.sizes[src + j]:
                    raise IndexError(f"The shape of the mask {sizes_str(t)} at index {j} does not match the shape "
                                     f"of the indexed tensor {sizes_str(self)} at index {src + j}")
            nz = nonzero_of(t)         # (n, t.nd) int64
            if t.nd == 0:
                # A 0-dim mask indexes no dim: it adds one of size 1 (True) or 0 (False), as NumPy.
                n = nz.sizes[0]
                nz = empty_contiguous(1, &n, ST_INT64, None)
                if n:
                    (<int64_t*>nz.data())[0] = 0
                dims.append(-1)
                tensors.append(nz)
                positions.append(src)
            for j in range(t.nd):
                dims.append(src + j)
                tensors.append(_column(nz, j))
                positions.append(src + j)
            src += t.nd
        else:
            dims.append(src)
            tensors.append(int64_contiguous(t))
            positions.append(src)
            src += 1
    # Broadcast the index tensors together.
    for obj in tensors:
        nd = max(nd, (<TensorImpl>obj).nd)
    for k in range(nd):
        bshape[k] = 1
    for obj in tensors:
        t = <TensorImpl>obj
        for k in range(t.nd):
            d = nd - t.nd + k
            s = t.sizes[k]
            if bshape[d] == s or s == 1:
                continue
            if bshape[d] == 1:
                bshape[d] = s
                continue
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " +
                             ", ".join([sizes_str(<TensorImpl>o) for o in tensors]))
    info.dims = dims
    info.tensors = tensors
    info.nd_b = nd
    info.nb = 1
    for k in range(nd):
        info.b_sizes[k] = bshape[k]
        info.nb *= bshape[k]
    # Bounds, with PyTorch's messages, before any loop runs. PyTorch's kernel names the position
    # of the index tensor among the indexing tensors as the "dimension".
    j = 0
    for k in range(len(dims)):
        d = dims[k]
        if d < 0:
            continue
        t = <TensorImpl>tensors[k]
        size = self.sizes[d]
        if size == 0 and t.n_elem > 0:
            raise IndexError("index is out of bounds for dimension with size 0")
        _check_in_bounds(t, t.n_elem, size, True, j, IndexError)
        j += 1
    # Where the indexed block goes.
    real = [d for d in dims if d >= 0]
    for k in range(1, len(real)):
        if real[k] != real[k - 1] + 1:
            adjacent = False
    first = (real[0] if real else positions[0]) if adjacent else 0
    info.npre = 0
    info.npost = 0
    for d in range(self.nd):
        if d in real:
            continue
        if adjacent and d < first:
            info.pre_sizes[info.npre] = self.sizes[d]
            info.s_pre[info.npre] = self.strides[d]
            info.npre += 1
        else:
            info.post_sizes[info.npost] = self.sizes[d]
            info.s_post[info.npost] = self.strides[d]
            info.npost += 1
    if len(tensors) == 1 and dims[0] >= 0:
        # one index tensor (contiguous int64, its shape is the block's): no offsets buffer
        info.slin = None
        info.sidx = <TensorImpl>tensors[0]
        info.sstride = self.strides[<int>dims[0]]
        info.swrap = self.sizes[<int>dims[0]]
    else:
        info.slin = _block_offsets(self, info)
    return info


cdef TensorImpl _column(TensorImpl nz, int j):
    """Column j of an (n, m) int64 tensor, as a contiguous 1-d tensor."""
    cdef Py_ssize_t n = nz.sizes[0], m = nz.sizes[1], i
    cdef TensorImpl col = empty_contiguous(1, &n, ST_INT64, None)
    cdef int64_t* src = <int64_t*>nz.data()
    cdef int64_t* dst = <int64_t*>col.data()
    with nogil:
        for i in range(n):
            dst[i] = src[i * m + j]
    return col


cdef _Offsets _block_offsets(TensorImpl self, _Indexing info):
    """Offset into self of each position b of the broadcast index block (negative indices wrapped)."""
    cdef int nidx = len(info.tensors), k, d, nd = info.nd_b
    cdef _Offsets out = new_offsets(info.nb)
    cdef int64_t* ptrs[MAX_DIMS]
    cdef Py_ssize_t istr[MAX_DIMS][MAX_DIMS]    # per index tensor, stride per broadcast dim
    cdef Py_ssize_t sstride[MAX_DIMS]
    cdef Py_ssize_t ssize[MAX_DIMS]
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t ioff[MAX_DIMS]
    cdef Py_ssize_t b
    cdef int64_t v, acc
    cdef TensorImpl t
    for k in range(nidx):
        t = <TensorImpl>info.tensors[k]
        ptrs[k] = <int64_t*>t.data()
        d = info.dims[k]
        sstride[k] = self.strides[d] if d >= 0 else 0
        ssize[k] = self.sizes[d] if d >= 0 else 0
        ioff[k] = 0
        for d in range(nd):
            if d < nd - t.nd or t.sizes[d - (nd - t.nd)] == 1:
                istr[k][d] = 0
            else:
                istr[k][d] = t.strides[d - (nd - t.nd)]
    for d in range(nd):
        cnt[d] = 0
    with nogil:
        for b in range(info.nb):
            acc = 0
            for k in range(nidx):
                v = ptrs[k][ioff[k]]
                if v < 0:
                    v += ssize[k]
                acc += v * sstride[k]
            out.data[b] = acc
            # step the broadcast multi-index
            d = nd - 1
            while d >= 0:
                cnt[d] += 1
                for k in range(nidx):
                    ioff[k] += istr[k][d]
                if cnt[d] < info.b_sizes[d]:
                    break
                for k in range(nidx):
                    ioff[k] -= istr[k][d] * info.b_sizes[d]
                cnt[d] = 0
                d -= 1
    return out


@float16_via_float32
def index_cpu(TensorImpl self not None, indices):
    cdef _Indexing info
    cdef TensorImpl out
    cdef Plan3 p
    cdef Py_ssize_t out_sizes[MAX_DIMS]
    cdef Py_ssize_t cstride[MAX_DIMS]
    cdef Py_ssize_t postn = 1, acc
    cdef int d, nd
    check_cpu(self)
    indices = tuple(indices)
    if len(indices) > self.nd:
        raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {len(indices)})")
    if all(i is None for i in indices):
        # PyTorch's kernel fails an internal assert here; Ember returns a copy (as tensor[...]).
        if not indices:
            raise IndexError("at least one index must be provided")
        check_kernel_dtype(self, "index_cpu")
        return clone_contiguous(self)
    check_kernel_dtype(self, "index_cpu")
    info = _prepare(self, indices)
    shape = info.result_shape()
    nd = len(shape)
    for d in range(nd):
        out_sizes[d] = shape[d]
    out = empty_contiguous(nd, out_sizes, self.scalar_type, None)
    # out is contiguous over (pre, block, post)
    acc = 1
    for d in range(nd - 1, -1, -1):
        cstride[d] = acc
        acc *= out_sizes[d]
    for d in range(info.npost):
        postn *= info.post_sizes[d]
    p.npre = info.npre
    p.npost = info.npost
    for d in range(info.npre):
        p.pre_sizes[d] = info.pre_sizes[d]
        p.s_pre[d] = info.s_pre[d]
        p.o_pre[d] = cstride[d]
    for d in range(info.npost):
        p.post_sizes[d] = info.post_sizes[d]
        p.s_post[d] = info.s_post[d]
        p.o_post[d] = cstride[nd - info.npost + d]
    info.set_self_offsets(&p)
    p.olin = NULL
    p.ostride = postn
    run3(self.scalar_type, M_GATHER, self.data(), out.data(), &p, None)
    return out


@float16_via_float32
def index_put__cpu(TensorImpl self not None, indices, TensorImpl values not None, accumulate=False):
    cdef _Indexing info
    cdef Plan3 p
    cdef Py_ssize_t vstr[MAX_DIMS]
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t rsizes[MAX_DIMS]
    cdef int d, nd, vd, k
    cdef Py_ssize_t b, off, run
    cdef bint flat
    cdef _Offsets olin
    cdef TensorImpl one
    check_cpu(self)
    check_cpu(values)
    indices = tuple(indices)
    check_kernel_dtype(self, "index_put_" if not accumulate else "index_put_with_sort_")
    if len(indices) > self.nd:
        raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {len(indices)})")
    if not indices or all(i is None for i in indices):
        # PyTorch's kernel fails on an undefined tensor here; Ember writes values into all of self.
        if not indices:
            raise IndexError("at least one index must be provided")
        info = None
    else:
        info = _prepare(self, indices)
    if info is None:
        shape = self._sizes()
    else:
        shape = info.result_shape()
    nd = len(shape)
    # values must broadcast to the indexing result's shape
    for d in range(nd):
        rsizes[d] = shape[d]
    if values.nd > nd:
        raise RuntimeError(f"shape mismatch: value tensor of shape {sizes_str(values)} cannot be broadcast to "
                           f"indexing result of shape {shape_str(rsizes, nd)}")
    for d in range(nd):
        vd = d - (nd - values.nd)
        if vd < 0:
            vstr[d] = 0
        elif values.sizes[vd] == rsizes[d]:
            vstr[d] = values.strides[vd]
        elif values.sizes[vd] == 1:
            vstr[d] = 0
        else:
            raise RuntimeError(f"shape mismatch: value tensor of shape {sizes_str(values)} cannot be broadcast to "
                               f"indexing result of shape {shape_str(rsizes, nd)}")
    # After the shape check, as make_index_put_iterator
    if self.scalar_type != values.scalar_type:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{type_name(self.scalar_type)} for the destination and {type_name(values.scalar_type)} "
                           "for the source.")
    if info is None:
        p.npre = 0
        p.npost = nd
        for d in range(nd):
            p.post_sizes[d] = self.sizes[d]
            p.s_post[d] = self.strides[d]
            p.o_post[d] = vstr[d]
        p.nb = 1
        olin = new_offsets(1)
        olin.data[0] = 0
        p.slin = olin.data
        p.sidx = NULL
        p.olin = olin.data
    else:
        p.npre = info.npre
        p.npost = info.npost
        for d in range(info.npre):
            p.pre_sizes[d] = info.pre_sizes[d]
            p.s_pre[d] = info.s_pre[d]
            p.o_pre[d] = vstr[d]
        for d in range(info.npost):
            p.post_sizes[d] = info.post_sizes[d]
            p.s_post[d] = info.s_post[d]
            p.o_post[d] = vstr[nd - info.npost + d]
        info.set_self_offsets(&p)
        # values' offset of each block position b: b * one stride when the values step evenly
        # through the block (or not at all), else a buffer of offsets
        flat = True
        run = -1
        p.ostride = 0
        for d in range(info.nd_b - 1, -1, -1):
            if info.b_sizes[d] == 1:
                continue
            if run < 0:
                p.ostride = vstr[info.npre + d]
                run = p.ostride * info.b_sizes[d]
            elif vstr[info.npre + d] == run:
                run *= info.b_sizes[d]
            else:
                flat = False
                break
        if flat:
            p.olin = NULL
        else:
            olin = new_offsets(info.nb)
            for d in range(info.nd_b):
                cnt[d] = 0
            off = 0
            for b in range(info.nb):
                olin.data[b] = off
                d = info.nd_b - 1
                while d >= 0:
                    cnt[d] += 1
                    off += vstr[info.npre + d]
                    if cnt[d] < info.b_sizes[d]:
                        break
                    off -= vstr[info.npre + d] * info.b_sizes[d]
                    cnt[d] = 0
                    d -= 1
            p.olin = olin.data
    if accumulate:
        one = scalar_tensor_of(1, self.scalar_type)
        run3(self.scalar_type, M_ADD, self.data(), values.data(), &p, one)
    else:
        run3(self.scalar_type, M_COPY, self.data(), values.data(), &p, None)
    bump_version(self)
    return self


@float16_via_float32
def index_put_cpu(TensorImpl self not None, indices, TensorImpl values not None, accumulate=False):
    check_kernel_dtype(self, "index_put_")
    return fresh(index_put__cpu(clone_contiguous(self), indices, values, accumulate))
