"""gather, scatter (src, value, reduce), scatter_add and scatter_reduce on CPU.

One loop over every position p of `index`: the element of self it addresses is p with its
coordinate along `dim` replaced by index[p] (PyTorch's cpu_scatter_gather_base_kernel). The
loop is serial in row-major order of index, so duplicate indices resolve as on PyTorch's CPU
backend (the last write wins; reductions accumulate in that order). Shapes, dtypes and every
index are checked, with PyTorch's messages, before the loop runs without the GIL.
"""
import warnings

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t
from libc.float cimport FLT_MAX, DBL_MAX
from libc.math cimport INFINITY
from c10.scalar_type cimport (ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64,
                              is_floating)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, make_tensor
from aten.native.cpu.index_support cimport (check_kernel_dtype, check_cpu, clone_contiguous, int64_contiguous,
                                             scalar_tensor_of, bump_version, fresh, width_of, next_pos3, next_pos2,
                                             isnan_t, flattened)
from aten.native.cpu.element_types cimport word_t, num_t
from aten.native.meta.messages cimport type_name, sizes_str
from aten.native.meta.scatter_checks cimport (R_NONE, R_ADD, R_MUL, R_MAX, R_MIN, ndim1, size1, scatter_reduce_op,
                                             scatter_identity)
from aten.native.meta.scatter_checks import check_gather, check_scatter

cdef struct SGPlan:
    int nd
    Py_ssize_t sizes[MAX_DIMS]     # index's shape (at least one dim)
    Py_ssize_t ist[MAX_DIMS]       # index strides
    Py_ssize_t sst[MAX_DIMS]       # self strides, 0 along dim
    Py_ssize_t ost[MAX_DIMS]       # other (result, src or a one-element value) strides
    Py_ssize_t sdim                # self's stride along dim
    Py_ssize_t n


cdef void _sg_move(word_t* s, word_t* o, const int64_t* idx, const SGPlan* p, bint gather) noexcept nogil:
    """Rows along index's last dim; the outer dims step with next_pos3."""
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t io = 0, so = 0, oo = 0, r, j, rows
    cdef int d, no = p.nd - 1
    cdef Py_ssize_t inner = p.sizes[no], isj = p.ist[no], ssj = p.sst[no], osj = p.ost[no], sdim = p.sdim
    if inner == 0:
        return
    rows = p.n // inner
    for d in range(no):
        cnt[d] = 0
    cdef bint unit = isj == 1 and osj == 1          # index and result/src rows contiguous
    for r in range(rows):
        if gather:
            if unit and ssj == 0 and sdim == 1:         # along self's contiguous last dim
                for j in range(inner):
                    o[oo + j] = s[so + idx[io + j]]
            elif unit:
                for j in range(inner):
                    o[oo + j] = s[so + j * ssj + idx[io + j] * sdim]
            else:
                for j in range(inner):
                    o[oo + j * osj] = s[so + j * ssj + idx[io + j * isj] * sdim]
        else:
            if unit:
                for j in range(inner):
                    s[so + j * ssj + idx[io + j] * sdim] = o[oo + j]
            else:
                for j in range(inner):
                    s[so + j * ssj + idx[io + j * isj] * sdim] = o[oo + j * osj]
        next_pos3(no, p.sizes, cnt, p.ist, p.sst, p.ost, &io, &so, &oo)


cdef int _gather_checked(word_t* s, word_t* o, const int64_t* idx, const SGPlan* p, Py_ssize_t size,
                         int64_t* bad) noexcept nogil:
    """gather in one pass that also checks every index (writes only the new result tensor, so
    stopping half way leaves nothing observable); 1 and the bad value when one is out of range."""
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t io = 0, so = 0, oo = 0, r, j, rows
    cdef int d, no = p.nd - 1
    cdef Py_ssize_t inner = p.sizes[no], isj = p.ist[no], ssj = p.sst[no], osj = p.ost[no], sdim = p.sdim
    cdef int64_t v
    if inner == 0:
        return 0
    rows = p.n // inner
    for d in range(no):
        cnt[d] = 0
    for r in range(rows):
        if isj == 1 and osj == 1:
            for j in range(inner):
                v = idx[io + j]
                if v < 0 or v >= size:
                    bad[0] = v
                    return 1
                o[oo + j] = s[so + j * ssj + v * sdim]
        else:
            for j in range(inner):
                v = idx[io + j * isj]
                if v < 0 or v >= size:
                    bad[0] = v
                    return 1
                o[oo + j * osj] = s[so + j * ssj + v * sdim]
        next_pos3(no, p.sizes, cnt, p.ist, p.sst, p.ost, &io, &so, &oo)
    return 0


cdef inline num_t _combine(num_t a, num_t b, int op, bint is_bool) noexcept nogil:
    """PyTorch's scatter reductions; max/min propagate a NaN from src (and keep one in self)."""
    cdef num_t r
    if op == R_ADD:
        r = <num_t>(a + b)
    elif op == R_MUL:
        r = <num_t>(a * b)
    elif op == R_MAX:
        return b if (isnan_t(b) or a < b) else a
    else:
        return b if (isnan_t(b) or b < a) else a
    if is_bool:
        return 1 if r != 0 else 0
    return r


cdef inline void _sg_reduce_op(num_t* s, const num_t* o, const int64_t* idx, const SGPlan* p, int op,
                        bint is_bool) noexcept nogil:
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t io = 0, so = 0, oo = 0, r, j, rows, at
    cdef int d, no = p.nd - 1
    cdef Py_ssize_t inner = p.sizes[no], isj = p.ist[no], ssj = p.sst[no], osj = p.ost[no], sdim = p.sdim
    if inner == 0:
        return
    rows = p.n // inner
    for d in range(no):
        cnt[d] = 0
    cdef bint unit = isj == 1 and osj == 1
    for r in range(rows):
        if unit:
            for j in range(inner):
                at = so + j * ssj + idx[io + j] * sdim
                s[at] = _combine(s[at], o[oo + j], op, is_bool)
        else:
            for j in range(inner):
                at = so + j * ssj + idx[io + j * isj] * sdim
                s[at] = _combine(s[at], o[oo + j * osj], op, is_bool)
        next_pos3(no, p.sizes, cnt, p.ist, p.sst, p.ost, &io, &so, &oo)


cdef void _sg_reduce(num_t* s, const num_t* o, const int64_t* idx, const SGPlan* p, int op,
                     bint is_bool) noexcept nogil:
    # One specialisation per reduction: the op is a compile-time constant in each inner loop.
    if is_bool:
        _sg_reduce_op(s, o, idx, p, op, True)
    elif op == R_ADD:
        _sg_reduce_op(s, o, idx, p, R_ADD, False)
    elif op == R_MUL:
        _sg_reduce_op(s, o, idx, p, R_MUL, False)
    elif op == R_MAX:
        _sg_reduce_op(s, o, idx, p, R_MAX, False)
    else:
        _sg_reduce_op(s, o, idx, p, R_MIN, False)


cdef int _run(int st, char* s, char* o, const int64_t* idx, const SGPlan* p, int op, bint gather) except -1:
    cdef int w = width_of(st)
    cdef bint is_bool = st == ST_BOOL
    if p.n == 0:
        return 0
    with nogil:
        if op == R_NONE:
            if w == 1:
                _sg_move(<uint8_t*>s, <uint8_t*>o, idx, p, gather)
            elif w == 2:
                _sg_move(<uint16_t*>s, <uint16_t*>o, idx, p, gather)
            elif w == 4:
                _sg_move(<uint32_t*>s, <uint32_t*>o, idx, p, gather)
            else:
                _sg_move(<uint64_t*>s, <uint64_t*>o, idx, p, gather)
        elif st == ST_BOOL or st == ST_UINT8:
            _sg_reduce(<uint8_t*>s, <uint8_t*>o, idx, p, op, is_bool)
        elif st == ST_INT8:
            _sg_reduce(<int8_t*>s, <int8_t*>o, idx, p, op, False)
        elif st == ST_INT16:
            _sg_reduce(<int16_t*>s, <int16_t*>o, idx, p, op, False)
        elif st == ST_INT32:
            _sg_reduce(<int32_t*>s, <int32_t*>o, idx, p, op, False)
        elif st == ST_INT64:
            _sg_reduce(<int64_t*>s, <int64_t*>o, idx, p, op, False)
        elif st == ST_FLOAT32:
            _sg_reduce(<float*>s, <float*>o, idx, p, op, False)
        else:
            _sg_reduce(<double*>s, <double*>o, idx, p, op, False)
    return 0


cdef Py_ssize_t _first_bad(const int64_t* p, int nd, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                           Py_ssize_t n, Py_ssize_t size, int64_t* bad) noexcept nogil:
    """Scan a strided int64 tensor for a value outside [0, size); 1 (and the value) if found."""
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t zero[MAX_DIMS]
    cdef Py_ssize_t off = 0, dummy = 0, r, j, rows, inner, st
    cdef int d, no = nd - 1 if nd > 0 else 0
    cdef int64_t v
    inner = sizes[nd - 1] if nd > 0 else 1
    st = strides[nd - 1] if nd > 0 else 0
    if inner == 0:
        return 0
    rows = n // inner
    for d in range(nd):
        cnt[d] = 0
        zero[d] = 0
    for r in range(rows):
        for j in range(inner):
            v = p[off + j * st]
            if v < 0 or v >= size:
                bad[0] = v
                return 1
        next_pos2(no, sizes, cnt, strides, zero, &off, &dummy)
    return 0


cdef TensorImpl _checked_index(TensorImpl self, int dim, TensorImpl index):
    """index as int64 (int32 converted), every value checked against self.size(dim)."""
    cdef TensorImpl idx = index if index.scalar_type == ST_INT64 else int64_contiguous(index)
    cdef Py_ssize_t size = size1(self, dim), found
    cdef int64_t v = 0
    with nogil:
        found = _first_bad(<int64_t*>idx.data(), idx.nd, idx.sizes, idx.strides, idx.n_elem, size, &v)
    if found:
        raise RuntimeError(f"index {v} is out of bounds for dimension {dim} with size {size}")
    return idx


cdef void _plan(SGPlan* p, TensorImpl self, int dim, TensorImpl idx, TensorImpl other) noexcept:
    """Iterate over idx's shape; other None: a one-element value (stride 0)."""
    cdef int d
    p.nd = ndim1(idx)
    p.n = idx.n_elem
    for d in range(p.nd):
        p.sizes[d] = size1(idx, d)
        p.ist[d] = idx.strides[d] if idx.nd > 0 else 0
        p.sst[d] = 0 if (d == dim or self.nd == 0) else self.strides[d]
        p.ost[d] = 0 if (other is None or other.nd == 0) else other.strides[d]
    p.sdim = self.strides[dim] if self.nd > 0 else 0


def gather_cpu(TensorImpl self not None, dim, TensorImpl index not None, sparse_grad=False):
    cdef int d = self._wrap_dim(dim), i, w, found = 0
    cdef TensorImpl out, idx
    cdef SGPlan p
    cdef Py_ssize_t size
    cdef int64_t v = 0
    cdef char* sp
    cdef char* op
    cdef int64_t* ip
    check_cpu(self)
    check_cpu(index)
    check_gather(self, d, index)
    check_kernel_dtype(self, "gather_out_cpu")
    out = empty_contiguous(index.nd, index.sizes, self.scalar_type, None)
    if index.n_elem == 0:
        return out
    idx = index if index.scalar_type == ST_INT64 else int64_contiguous(index)
    _plan(&p, self, d, idx, out)
    size = size1(self, d)
    w = width_of(self.scalar_type)
    sp = self.data()
    op = out.data()
    ip = <int64_t*>idx.data()
    with nogil:
        if w == 1:
            found = _gather_checked(<uint8_t*>sp, <uint8_t*>op, ip, &p, size, &v)
        elif w == 2:
            found = _gather_checked(<uint16_t*>sp, <uint16_t*>op, ip, &p, size, &v)
        elif w == 4:
            found = _gather_checked(<uint32_t*>sp, <uint32_t*>op, ip, &p, size, &v)
        else:
            found = _gather_checked(<uint64_t*>sp, <uint64_t*>op, ip, &p, size, &v)
    if found:
        raise RuntimeError(f"index {v} is out of bounds for dimension {d} with size {size}")
    return out


cdef int _check_scatter(TensorImpl self, int d, TensorImpl index, TensorImpl src) except -1:
    check_cpu(self)
    check_cpu(index)
    if src is not None:
        check_cpu(src)
    check_scatter(self, d, index, src)
    return 0


cdef _scatter_into(TensorImpl self, int d, TensorImpl index, TensorImpl src, int op):
    """The kernel after the checks: self[...] (op)= src[p] (src one element: a value)."""
    cdef TensorImpl idx
    cdef SGPlan p
    if index.n_elem == 0:
        return
    idx = _checked_index(self, d, index)
    _plan(&p, self, d, idx, src)
    _run(self.scalar_type, self.data(), src.data(), <int64_t*>idx.data(), &p, op, False)


def scatter__src_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None):
    cdef int d = self._wrap_dim(dim)
    _check_scatter(self, d, index, src)
    check_kernel_dtype(self, "scatter_cpu_")
    _scatter_into(self, d, index, src, R_NONE)
    bump_version(self)
    return self


def scatter__value_cpu(TensorImpl self not None, dim, TensorImpl index not None, value):
    cdef int d = self._wrap_dim(dim)
    _check_scatter(self, d, index, None)
    check_kernel_dtype(self, "scatter_fill_cpu_")
    _scatter_into(self, d, index, scalar_tensor_of(value, self.scalar_type), R_NONE)
    bump_version(self)
    return self


def scatter__reduce_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None, reduce):
    cdef int d = self._wrap_dim(dim), op
    _check_scatter(self, d, index, src)
    op = scatter_reduce_op(reduce, False)
    warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                  "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                  UserWarning, stacklevel=3)
    check_kernel_dtype(self, "scatter_cpu_")
    _scatter_into(self, d, index, src, op)
    bump_version(self)
    return self


def scatter__value_reduce_cpu(TensorImpl self not None, dim, TensorImpl index not None, value, reduce):
    cdef int d = self._wrap_dim(dim), op
    _check_scatter(self, d, index, None)
    op = scatter_reduce_op(reduce, False)
    check_kernel_dtype(self, "scatter_fill_cpu_")
    _scatter_into(self, d, index, scalar_tensor_of(value, self.scalar_type), op)
    bump_version(self)
    return self


def scatter_add__cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None):
    cdef int d = self._wrap_dim(dim)
    _check_scatter(self, d, index, src)
    check_kernel_dtype(self, "scatter_add_")
    _scatter_into(self, d, index, src, R_ADD)
    bump_version(self)
    return self


def scatter_src_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None):
    self._wrap_dim(dim)
    _check_scatter(self, self._wrap_dim(dim), index, src)
    return fresh(scatter__src_cpu(clone_contiguous(self), dim, index, src))


def scatter_value_cpu(TensorImpl self not None, dim, TensorImpl index not None, value):
    _check_scatter(self, self._wrap_dim(dim), index, None)
    return fresh(scatter__value_cpu(clone_contiguous(self), dim, index, value))


def scatter_reduce_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None, reduce):
    _check_scatter(self, self._wrap_dim(dim), index, src)
    return fresh(scatter__reduce_cpu(clone_contiguous(self), dim, index, src, reduce))


def scatter_value_reduce_cpu(TensorImpl self not None, dim, TensorImpl index not None, value, reduce):
    _check_scatter(self, self._wrap_dim(dim), index, None)
    return fresh(scatter__value_reduce_cpu(clone_contiguous(self), dim, index, value, reduce))


def scatter_add_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None):
    _check_scatter(self, self._wrap_dim(dim), index, src)
    return fresh(scatter_add__cpu(clone_contiguous(self), dim, index, src))


# ---------------------------------------------------------------------------------------------
# scatter_reduce.two

cdef void _count(int64_t* cnt, const int64_t* idx, const SGPlan* p) noexcept nogil:
    """cnt (contiguous, self's shape; p.sst are its strides) += 1 at every scattered position."""
    cdef Py_ssize_t c[MAX_DIMS]
    cdef Py_ssize_t io = 0, so = 0, oo = 0, i
    cdef int d
    for d in range(p.nd):
        c[d] = 0
    for i in range(p.n):
        cnt[so + idx[io] * p.sdim] += 1
        next_pos3(p.nd, p.sizes, c, p.ist, p.sst, p.ost, &io, &so, &oo)


cdef void _divide(num_t* s, const int64_t* cnt, int nd, const Py_ssize_t* sizes, const Py_ssize_t* sst,
                  const Py_ssize_t* cst, Py_ssize_t n, bint floor) noexcept nogil:
    """s /= max(cnt, 1): true division for floating types, floor division for integers (`floor` is
    implied by the type; kept for the call sites' clarity)."""
    cdef Py_ssize_t c[MAX_DIMS]
    cdef Py_ssize_t so = 0, co = 0, i
    cdef num_t a, q, b
    cdef int d
    for d in range(nd):
        c[d] = 0
    for i in range(n):
        b = <num_t>(cnt[co] if cnt[co] > 0 else 1)
        a = s[so]
        if num_t is float or num_t is double:
            s[so] = a / b
        else:
            q = <num_t>(a / b)
            if (a % b != 0) and a < 0:
                q = <num_t>(q - 1)
            s[so] = q
        next_pos2(nd, sizes, c, sst, cst, &so, &co)


def scatter_reduce__two_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None,
                            reduce, include_self=True):
    cdef int d = self._wrap_dim(dim), op
    cdef TensorImpl idx, counts = None
    cdef SGPlan p
    cdef int st = self.scalar_type
    cdef char* s
    cdef int64_t init
    cdef Py_ssize_t k
    _check_scatter(self, d, index, src)
    op = scatter_reduce_op(reduce, True)
    if reduce == "mean" and st == ST_BOOL:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    check_kernel_dtype(self, "scatter_reduce_two_cpu")
    if index.n_elem == 0:
        bump_version(self)
        return self
    idx = _checked_index(self, d, index)
    if not include_self:
        _scatter_into(self, d, idx, scalar_tensor_of(scatter_identity(reduce, st), st), R_NONE)
    if reduce == "mean":
        counts = empty_contiguous(self.nd, self.sizes, ST_INT64, None)
        init = 1 if include_self else 0
        with nogil:
            for k in range(counts.n_elem):
                (<int64_t*>counts.data())[k] = init
        _plan(&p, counts, d, idx, src)
        with nogil:
            _count(<int64_t*>counts.data(), <int64_t*>idx.data(), &p)
    _plan(&p, self, d, idx, src)
    _run(st, self.data(), src.data(), <int64_t*>idx.data(), &p, op, False)
    if counts is not None:
        s = self.data()
        with nogil:
            if st == ST_UINT8:
                _divide(<uint8_t*>s, <int64_t*>counts.data(), self.nd, self.sizes, self.strides, counts.strides,
                        self.n_elem, True)
            elif st == ST_INT8:
                _divide(<int8_t*>s, <int64_t*>counts.data(), self.nd, self.sizes, self.strides, counts.strides,
                        self.n_elem, True)
            elif st == ST_INT16:
                _divide(<int16_t*>s, <int64_t*>counts.data(), self.nd, self.sizes, self.strides, counts.strides,
                        self.n_elem, True)
            elif st == ST_INT32:
                _divide(<int32_t*>s, <int64_t*>counts.data(), self.nd, self.sizes, self.strides, counts.strides,
                        self.n_elem, True)
            elif st == ST_INT64:
                _divide(<int64_t*>s, <int64_t*>counts.data(), self.nd, self.sizes, self.strides, counts.strides,
                        self.n_elem, True)
            elif st == ST_FLOAT32:
                _divide(<float*>s, <int64_t*>counts.data(), self.nd, self.sizes, self.strides, counts.strides,
                        self.n_elem, False)
            else:
                _divide(<double*>s, <int64_t*>counts.data(), self.nd, self.sizes, self.strides, counts.strides,
                        self.n_elem, False)
    bump_version(self)
    return self


def scatter_reduce_two_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl src not None,
                           reduce, include_self=True):
    _check_scatter(self, self._wrap_dim(dim), index, src)
    scatter_reduce_op(reduce, True)
    return fresh(scatter_reduce__two_cpu(clone_contiguous(self), dim, index, src, reduce, include_self))


# ---------------------------------------------------------------------------------------------
# take_along_dim: gather after broadcasting self and indices against each other (but along dim)

cdef TensorImpl _expanded(TensorImpl t, int nd, const Py_ssize_t* sizes):
    """A view of t broadcast to sizes (stride 0 on broadcast dims); shapes already checked."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int d
    for d in range(nd):
        strides[d] = t.strides[d] if t.sizes[d] == sizes[d] else 0
    return make_tensor(t.storage, t.offset, nd, sizes, strides, t.scalar_type, t.version_counter)


cdef int _infer_size(int nd, const Py_ssize_t* a, const Py_ssize_t* b, Py_ssize_t* out) except -1:
    cdef int d
    for d in range(nd - 1, -1, -1):
        if a[d] == b[d] or b[d] == 1:
            out[d] = a[d]
        elif a[d] == 1:
            out[d] = b[d]
        else:
            raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size of tensor b ({b[d]}) at "
                               f"non-singleton dimension {d}")
    return 0


def take_along_dim_cpu(TensorImpl self not None, TensorImpl indices not None, dim=None):
    cdef Py_ssize_t a[MAX_DIMS]
    cdef Py_ssize_t bshape[MAX_DIMS]
    cdef int d, i, nd = self.nd
    cdef TensorImpl idx_b, self_b
    check_cpu(self)
    check_cpu(indices)
    if dim is None:
        # PyTorch flattens with view(-1), which fails for non-contiguous input; Ember copies.
        return gather_cpu(flattened(self), 0, flattened(indices))
    if self.nd != indices.nd:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {self.nd} dimensions for input, and {indices.nd} dimensions for indices")
    if indices.scalar_type != ST_INT64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{type_name(indices.scalar_type)}")
    if self.nd == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = self._wrap_dim(dim)
    for i in range(nd):
        a[i] = indices.sizes[i] if i == d else self.sizes[i]
    _infer_size(nd, a, indices.sizes, bshape)
    idx_b = _expanded(indices, nd, bshape)
    for i in range(nd):
        a[i] = self.sizes[i] if i == d else indices.sizes[i]
    _infer_size(nd, a, self.sizes, bshape)
    self_b = _expanded(self, nd, bshape)
    return gather_cpu(self_b, d, idx_b)
