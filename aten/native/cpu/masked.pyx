"""Masks and flat indices on CPU: nonzero, masked_fill(_), masked_select, masked_scatter(_),
take, put(_).

Masks broadcast (to self for the in-place forms, together with self for the out-of-place ones)
through stride-0 dimensions; elements are visited in row-major order, which is the order
masked_select returns them and masked_scatter consumes its source. Flat indices (take, put_)
address self's elements in row-major order whatever its strides.
"""
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t
from c10.scalar_type cimport ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.loops cimport copy_into
from aten.native.meta.pointwise cimport broadcast_shape
from aten.native.cpu.index_support cimport (check_kernel_dtype, check_cpu, clone_contiguous, contiguous_of,
                                             int64_contiguous, scalar_tensor_of, bump_version, fresh, width_of,
                                             next_pos2, first_out_of_range)
from aten.native.cpu.element_types cimport word_t, num_t
from aten.native.meta.messages cimport cpp_type, type_name, sizes_str
from aten.native.meta.errors import output_shape_error
from aten.native.meta import context as _context



# ---------------------------------------------------------------------------------------------
# nonzero

cdef Py_ssize_t _nonzero_pass(num_t* p, int nd, const Py_ssize_t* sizes, const Py_ssize_t* strides, Py_ssize_t n,
                              int64_t* out) noexcept nogil:
    """Count the nonzero elements (out NULL), or write their coordinates row by row into out."""
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t zero[MAX_DIMS]
    cdef Py_ssize_t off = 0, dummy = 0, r, j, c = 0, rows, inner, st
    cdef int d, no = nd - 1 if nd > 0 else 0
    inner = sizes[nd - 1] if nd > 0 else 1
    st = strides[nd - 1] if nd > 0 else 0
    if inner == 0:
        return 0
    rows = n // inner
    for d in range(nd):
        cnt[d] = 0
        zero[d] = 0
    for r in range(rows):
        if out == NULL:
            for j in range(inner):
                c += p[off + j * st] != 0
        else:
            for j in range(inner):
                if p[off + j * st] != 0:
                    for d in range(no):
                        out[c * nd + d] = cnt[d]
                    out[c * nd + no] = j
                    c += 1
        next_pos2(no, sizes, cnt, strides, zero, &off, &dummy)
    return c


cdef Py_ssize_t _nonzero_dispatch(TensorImpl t, int64_t* out) noexcept nogil:
    cdef int st = t.scalar_type
    cdef char* p = t.data()
    if st == ST_BOOL or st == ST_UINT8:
        return _nonzero_pass(<uint8_t*>p, t.nd, t.sizes, t.strides, t.n_elem, out)
    if st == ST_INT8:
        return _nonzero_pass(<int8_t*>p, t.nd, t.sizes, t.strides, t.n_elem, out)
    if st == ST_INT16:
        return _nonzero_pass(<int16_t*>p, t.nd, t.sizes, t.strides, t.n_elem, out)
    if st == ST_INT32:
        return _nonzero_pass(<int32_t*>p, t.nd, t.sizes, t.strides, t.n_elem, out)
    if st == ST_INT64:
        return _nonzero_pass(<int64_t*>p, t.nd, t.sizes, t.strides, t.n_elem, out)
    if st == ST_FLOAT32:
        return _nonzero_pass(<float*>p, t.nd, t.sizes, t.strides, t.n_elem, out)
    return _nonzero_pass(<double*>p, t.nd, t.sizes, t.strides, t.n_elem, out)


cdef TensorImpl nonzero_of(TensorImpl t):
    """(n, t.dim()) int64 coordinates of t's nonzero elements, in row-major order."""
    cdef Py_ssize_t n
    cdef Py_ssize_t sizes[2]
    cdef TensorImpl out
    check_kernel_dtype(t, "nonzero_cpu")
    with nogil:
        n = _nonzero_dispatch(t, NULL)
    sizes[0] = n
    sizes[1] = t.nd
    out = empty_contiguous(2, sizes, ST_INT64, None)
    if n and t.nd:
        with nogil:
            _nonzero_dispatch(t, <int64_t*>out.data())
    return out


def nonzero_cpu(TensorImpl self not None):
    check_cpu(self)
    if self.nd > MAX_DIMS:
        raise RuntimeError(f"nonzero is not supported for tensors with more than {MAX_DIMS} dimensions")
    return nonzero_of(self)


# ---------------------------------------------------------------------------------------------
# masks

cdef void _bcast_strides(TensorImpl t, int nd, const Py_ssize_t* sizes, Py_ssize_t* out) noexcept:
    """t's strides for a view broadcast to sizes (0 on new and size-1 dims); shapes already checked."""
    cdef int d, td
    for d in range(nd):
        td = d - (nd - t.nd)
        if td < 0 or t.sizes[td] != sizes[d]:
            out[d] = 0
        else:
            out[d] = t.strides[td]


cdef int _check_mask_to_self(TensorImpl self, TensorImpl mask) except -1:
    """mask must broadcast to self's shape (PyTorch's in-place rule)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int nd = broadcast_shape((self, mask), sizes), d
    if nd != self.nd or any([sizes[d] != self.sizes[d] for d in range(nd)]):
        raise output_shape_error(self._sizes(), [sizes[d] for d in range(nd)])
    return 0


cdef void _fill_where(word_t* s, const uint8_t* m, int nd, const Py_ssize_t* sizes, const Py_ssize_t* ss,
                      const Py_ssize_t* ms, Py_ssize_t n, const word_t* value) noexcept nogil:
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t so = 0, mo = 0, r, j, rows, inner, sj, mj
    cdef word_t v = value[0]
    cdef int d, no = nd - 1 if nd > 0 else 0
    inner = sizes[nd - 1] if nd > 0 else 1
    sj = ss[nd - 1] if nd > 0 else 0
    mj = ms[nd - 1] if nd > 0 else 0
    if inner == 0:
        return
    rows = n // inner
    for d in range(nd):
        cnt[d] = 0
    for r in range(rows):
        if sj == 1 and mj == 1:
            for j in range(inner):
                if m[mo + j]:
                    s[so + j] = v
        else:
            for j in range(inner):
                if m[mo + j * mj]:
                    s[so + j * sj] = v
        next_pos2(no, sizes, cnt, ss, ms, &so, &mo)


cdef int _masked_fill_into(TensorImpl self, TensorImpl mask, TensorImpl value) except -1:
    cdef Py_ssize_t ms[MAX_DIMS]
    cdef int w = width_of(self.scalar_type)
    cdef char* s = self.data()
    cdef char* v = value.data()
    cdef const uint8_t* m = <const uint8_t*>mask.data()
    _bcast_strides(mask, self.nd, self.sizes, ms)
    with nogil:
        if w == 1:
            _fill_where(<uint8_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint8_t*>v)
        elif w == 2:
            _fill_where(<uint16_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint16_t*>v)
        elif w == 4:
            _fill_where(<uint32_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint32_t*>v)
        else:
            _fill_where(<uint64_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint64_t*>v)
    return 0


def masked_fill__Scalar_cpu(TensorImpl self not None, TensorImpl mask not None, value):
    cdef TensorImpl v
    check_cpu(self)
    check_cpu(mask)
    if mask.scalar_type != ST_BOOL:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_type(mask.scalar_type)}")
    check_kernel_dtype(self, "masked_fill")
    _check_mask_to_self(self, mask)
    v = scalar_tensor_of(value, self.scalar_type)
    _masked_fill_into(self, mask, v)
    bump_version(self)
    return self


def masked_fill__Tensor_cpu(TensorImpl self not None, TensorImpl mask not None, TensorImpl value not None):
    if value.nd != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.nd} dimension(s).")
    check_cpu(value)
    return masked_fill__Scalar_cpu(self, mask, value._numpy_view().item())


cdef TensorImpl _expanded_copy(TensorImpl self, TensorImpl mask):
    """A new contiguous tensor: self broadcast with mask (PyTorch's expand_outplace + clone)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int nd = broadcast_shape((mask, self), sizes)
    cdef TensorImpl out = empty_contiguous(nd, sizes, self.scalar_type, None)
    copy_into(out, self)
    return out


def masked_fill_Scalar_cpu(TensorImpl self not None, TensorImpl mask not None, value):
    check_kernel_dtype(self, "masked_fill")
    return fresh(masked_fill__Scalar_cpu(_expanded_copy(self, mask), mask, value))


def masked_fill_Tensor_cpu(TensorImpl self not None, TensorImpl mask not None, TensorImpl value not None):
    if value.nd != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.nd} dimension(s).")
    check_kernel_dtype(self, "masked_fill")
    return fresh(masked_fill__Tensor_cpu(_expanded_copy(self, mask), mask, value))


cdef Py_ssize_t _select_pass(word_t* s, const uint8_t* m, int nd, const Py_ssize_t* sizes, const Py_ssize_t* ss,
                             const Py_ssize_t* ms, Py_ssize_t n, word_t* out) noexcept nogil:
    """Count the selected elements (out NULL) or copy them into out in row-major order."""
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t so = 0, mo = 0, r, j, c = 0, rows, inner, sj, mj
    cdef int d, no = nd - 1 if nd > 0 else 0
    inner = sizes[nd - 1] if nd > 0 else 1
    sj = ss[nd - 1] if nd > 0 else 0
    mj = ms[nd - 1] if nd > 0 else 0
    if inner == 0:
        return 0
    rows = n // inner
    for d in range(nd):
        cnt[d] = 0
    for r in range(rows):
        if out == NULL:
            for j in range(inner):
                c += m[mo + j * mj] != 0
        else:
            for j in range(inner):
                if m[mo + j * mj]:
                    out[c] = s[so + j * sj]
                    c += 1
        next_pos2(no, sizes, cnt, ss, ms, &so, &mo)
    return c


def masked_select_cpu(TensorImpl self not None, TensorImpl mask not None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t ss[MAX_DIMS]
    cdef Py_ssize_t ms[MAX_DIMS]
    cdef Py_ssize_t n, total = 1
    cdef int nd, d, w
    cdef TensorImpl out
    cdef char* s
    cdef char* o
    cdef const uint8_t* m
    check_cpu(self)
    check_cpu(mask)
    if mask.scalar_type != ST_BOOL:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    check_kernel_dtype(self, "masked_select")
    nd = broadcast_shape((self, mask), sizes)
    for d in range(nd):
        total *= sizes[d]
    _bcast_strides(self, nd, sizes, ss)
    _bcast_strides(mask, nd, sizes, ms)
    m = <const uint8_t*>mask.data()
    with nogil:
        n = _select_pass(<uint8_t*>NULL, m, nd, sizes, ss, ms, total, <uint8_t*>NULL)
    out = empty_contiguous(1, &n, self.scalar_type, None)
    s = self.data()
    o = out.data()
    w = width_of(self.scalar_type)
    with nogil:
        if w == 1:
            _select_pass(<uint8_t*>s, m, nd, sizes, ss, ms, total, <uint8_t*>o)
        elif w == 2:
            _select_pass(<uint16_t*>s, m, nd, sizes, ss, ms, total, <uint16_t*>o)
        elif w == 4:
            _select_pass(<uint32_t*>s, m, nd, sizes, ss, ms, total, <uint32_t*>o)
        else:
            _select_pass(<uint64_t*>s, m, nd, sizes, ss, ms, total, <uint64_t*>o)
    return out


cdef void _scatter_where(word_t* s, const uint8_t* m, int nd, const Py_ssize_t* sizes, const Py_ssize_t* ss,
                         const Py_ssize_t* ms, Py_ssize_t n, const word_t* src) noexcept nogil:
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t so = 0, mo = 0, r, j, c = 0, rows, inner, sj, mj
    cdef int d, no = nd - 1 if nd > 0 else 0
    inner = sizes[nd - 1] if nd > 0 else 1
    sj = ss[nd - 1] if nd > 0 else 0
    mj = ms[nd - 1] if nd > 0 else 0
    if inner == 0:
        return
    rows = n // inner
    for d in range(nd):
        cnt[d] = 0
    for r in range(rows):
        for j in range(inner):
            if m[mo + j * mj]:
                s[so + j * sj] = src[c]
                c += 1
        next_pos2(no, sizes, cnt, ss, ms, &so, &mo)


def masked_scatter__cpu(TensorImpl self not None, TensorImpl mask not None, TensorImpl source not None):
    cdef Py_ssize_t ms[MAX_DIMS]
    cdef Py_ssize_t count
    cdef Py_ssize_t zero[MAX_DIMS]
    cdef TensorImpl src
    cdef const uint8_t* m
    cdef char* s
    cdef char* sp
    cdef int w, d
    check_cpu(self)
    check_cpu(mask)
    check_cpu(source)
    if self.scalar_type != source.scalar_type:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{type_name(self.scalar_type)} and {type_name(source.scalar_type)}")
    if mask.scalar_type != ST_BOOL:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{type_name(mask.scalar_type)}")
    check_kernel_dtype(self, "masked_scatter__cpu")
    if mask.nd > self.nd:
        raise RuntimeError(f"expand(CPUBoolType{{{sizes_str(mask)}}}, size={sizes_str(self)}): the number of sizes "
                           f"provided ({self.nd}) must be greater or equal to the number of dimensions in the tensor "
                           f"({mask.nd})")
    for d in range(mask.nd):
        if mask.sizes[d] != 1 and mask.sizes[d] != self.sizes[self.nd - mask.nd + d]:
            raise RuntimeError(f"The expanded size of the tensor ({self.sizes[self.nd - mask.nd + d]}) must match the "
                               f"existing size ({mask.sizes[d]}) at non-singleton dimension {self.nd - mask.nd + d}.  "
                               f"Target sizes: {sizes_str(self)}.  Tensor sizes: {sizes_str(mask)}")
    if self.n_elem == 0:
        return self
    _bcast_strides(mask, self.nd, self.sizes, ms)
    for d in range(self.nd):
        zero[d] = 0
    m = <const uint8_t*>mask.data()
    with nogil:
        count = _select_pass(<uint8_t*>NULL, m, self.nd, self.sizes, zero, ms, self.n_elem, <uint8_t*>NULL)
    if count > source.n_elem:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    src = contiguous_of(source)
    s = self.data()
    sp = src.data()
    w = width_of(self.scalar_type)
    with nogil:
        if w == 1:
            _scatter_where(<uint8_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint8_t*>sp)
        elif w == 2:
            _scatter_where(<uint16_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint16_t*>sp)
        elif w == 4:
            _scatter_where(<uint32_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint32_t*>sp)
        else:
            _scatter_where(<uint64_t*>s, m, self.nd, self.sizes, self.strides, ms, self.n_elem, <uint64_t*>sp)
    bump_version(self)
    return self


def masked_scatter_cpu(TensorImpl self not None, TensorImpl mask not None, TensorImpl source not None):
    check_cpu(self)
    check_cpu(mask)
    check_kernel_dtype(self, "masked_scatter__cpu")
    return fresh(masked_scatter__cpu(_expanded_copy(self, mask), mask, source))


# ---------------------------------------------------------------------------------------------
# take, put_

cdef void _flat_offsets(TensorImpl t, const int64_t* idx, Py_ssize_t n, int64_t* out) noexcept nogil:
    """Storage offsets (elements) of t's elements at row-major flat positions idx (wrapped)."""
    cdef Py_ssize_t i, lin, off
    cdef int d
    for i in range(n):
        lin = idx[i]
        if lin < 0:
            lin += t.n_elem
        if t.contiguous:
            out[i] = lin
            continue
        off = 0
        for d in range(t.nd - 1, -1, -1):
            off += (lin % t.sizes[d]) * t.strides[d]
            lin = lin // t.sizes[d]
        out[i] = off


cdef void _take_copy(word_t* s, const int64_t* offs, Py_ssize_t n, word_t* out) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = s[offs[i]]


cdef void _take_contiguous(word_t* s, const int64_t* idx, Py_ssize_t n, Py_ssize_t numel, word_t* out) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t v
    for i in range(n):
        v = idx[i]
        out[i] = s[v + numel if v < 0 else v]


cdef void _put_copy(word_t* s, const int64_t* offs, Py_ssize_t n, const word_t* src) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        s[offs[i]] = src[i]


cdef void _put_add(num_t* s, const int64_t* offs, Py_ssize_t n, const num_t* src, bint is_bool) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        s[offs[i]] = <num_t>(s[offs[i]] + src[i])
        if is_bool:
            s[offs[i]] = 1 if s[offs[i]] != 0 else 0


cdef int _check_take_index(TensorImpl self, TensorImpl idx) except -1:
    """take's range check of a contiguous int64 index: every value in [-numel, numel)."""
    cdef Py_ssize_t bad
    with nogil:
        bad = first_out_of_range(<int64_t*>idx.data(), idx.n_elem, self.n_elem, True)
    if bad >= 0:
        raise IndexError(f"out of range: tried to access index {(<int64_t*>idx.data())[bad]} on a tensor of "
                         f"{self.n_elem} elements.")
    return 0


cdef TensorImpl _checked_offsets(TensorImpl self, TensorImpl idx):
    """Storage offsets for a contiguous int64 index tensor, after PyTorch's range check."""
    cdef Py_ssize_t n = idx.n_elem
    cdef TensorImpl offs = empty_contiguous(1, &n, ST_INT64, None)
    _check_take_index(self, idx)
    with nogil:
        _flat_offsets(self, <int64_t*>idx.data(), n, <int64_t*>offs.data())
    return offs


def take_cpu(TensorImpl self not None, TensorImpl index not None):
    cdef TensorImpl idx, offs, out
    cdef Py_ssize_t n = index.n_elem
    cdef int w
    cdef char* s
    cdef char* o
    cdef int64_t* op
    check_cpu(self)
    check_cpu(index)
    if index.scalar_type != ST_INT64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {type_name(index.scalar_type)}")
    check_kernel_dtype(self, "take_cpu")
    if self.n_elem == 0 and n != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    idx = int64_contiguous(index)
    out = empty_contiguous(index.nd, index.sizes, self.scalar_type, None)
    s = self.data()
    o = out.data()
    w = width_of(self.scalar_type)
    if self.contiguous:
        # no offsets buffer: the flat position is the storage offset
        _check_take_index(self, idx)
        op = <int64_t*>idx.data()
        with nogil:
            if w == 1:
                _take_contiguous(<uint8_t*>s, op, n, self.n_elem, <uint8_t*>o)
            elif w == 2:
                _take_contiguous(<uint16_t*>s, op, n, self.n_elem, <uint16_t*>o)
            elif w == 4:
                _take_contiguous(<uint32_t*>s, op, n, self.n_elem, <uint32_t*>o)
            else:
                _take_contiguous(<uint64_t*>s, op, n, self.n_elem, <uint64_t*>o)
        return out
    offs = _checked_offsets(self, idx)
    op = <int64_t*>offs.data()
    with nogil:
        if w == 1:
            _take_copy(<uint8_t*>s, op, n, <uint8_t*>o)
        elif w == 2:
            _take_copy(<uint16_t*>s, op, n, <uint16_t*>o)
        elif w == 4:
            _take_copy(<uint32_t*>s, op, n, <uint32_t*>o)
        else:
            _take_copy(<uint64_t*>s, op, n, <uint64_t*>o)
    return out


def put__cpu(TensorImpl self not None, TensorImpl index not None, TensorImpl source not None, accumulate=False):
    cdef TensorImpl idx, offs, src
    cdef Py_ssize_t n = index.n_elem
    cdef int w, st = self.scalar_type
    cdef char* s
    cdef char* sp
    cdef int64_t* op
    cdef bint acc = accumulate
    check_cpu(self)
    check_cpu(index)
    check_cpu(source)
    if index.scalar_type != ST_INT64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {type_name(index.scalar_type)}")
    if self.scalar_type != source.scalar_type:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{type_name(self.scalar_type)} and source.dtype = {type_name(source.scalar_type)}")
    if source.n_elem != n:
        raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.n_elem}, index.numel() = {n}")
    if self.n_elem == 0 and n != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    check_kernel_dtype(self, "put_cpu")
    if not acc:
        _context.alert_not_deterministic("put_")
    idx = int64_contiguous(index)
    offs = _checked_offsets(self, idx)
    src = contiguous_of(source)
    s = self.data()
    sp = src.data()
    op = <int64_t*>offs.data()
    w = width_of(st)
    with nogil:
        if not acc:
            if w == 1:
                _put_copy(<uint8_t*>s, op, n, <uint8_t*>sp)
            elif w == 2:
                _put_copy(<uint16_t*>s, op, n, <uint16_t*>sp)
            elif w == 4:
                _put_copy(<uint32_t*>s, op, n, <uint32_t*>sp)
            else:
                _put_copy(<uint64_t*>s, op, n, <uint64_t*>sp)
        elif st == ST_BOOL or st == ST_UINT8:
            _put_add(<uint8_t*>s, op, n, <uint8_t*>sp, st == ST_BOOL)
        elif st == ST_INT8:
            _put_add(<int8_t*>s, op, n, <int8_t*>sp, False)
        elif st == ST_INT16:
            _put_add(<int16_t*>s, op, n, <int16_t*>sp, False)
        elif st == ST_INT32:
            _put_add(<int32_t*>s, op, n, <int32_t*>sp, False)
        elif st == ST_INT64:
            _put_add(<int64_t*>s, op, n, <int64_t*>sp, False)
        elif st == ST_FLOAT32:
            _put_add(<float*>s, op, n, <float*>sp, False)
        else:
            _put_add(<double*>s, op, n, <double*>sp, False)
    bump_version(self)
    return self


def put_cpu(TensorImpl self not None, TensorImpl index not None, TensorImpl source not None, accumulate=False):
    check_kernel_dtype(self, "put_cpu")
    return fresh(put__cpu(clone_contiguous(self), index, source, accumulate))
