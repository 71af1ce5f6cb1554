"""_unique2, unique_consecutive and unique_dim on CPU.

PyTorch's CPU unique always returns sorted values (sorted=False is a hint it ignores there),
every NaN its own value, sorted last, in the order its sort leaves them. unique_dim orders
slices along `dim` lexicographically with `<` / `>` per element and groups equal slices
(at::equal: a slice holding NaN equals no other); the dim forms return the inverse and counts
whatever their flags say.
"""
from libc.stdint cimport int64_t, uint8_t, int8_t, int16_t, int32_t
from libc.string cimport memcpy
from c10.scalar_type cimport ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, make_tensor
from aten.native.cpu.loops cimport cast_contiguous, copy_into
from aten.native.cpu.index_support cimport check_kernel_dtype, check_cpu, flattened
from aten.native.cpu.element_types cimport num_t
from aten.native.cpu.sort_algorithms cimport C_ASC, RADIX_MIN, ScratchBuffers, scratch_buffers, std_sort, radix_sort



# whatever their flags say.

cdef Py_ssize_t _unique_run(num_t* kb, int64_t* vb, Py_ssize_t n, bint do_sort, num_t* vals, int64_t* inv,
                            int64_t* cnt) noexcept nogil:
    """Group equal values (after sorting as torch.sort does, or as they come): values, inverse,
    counts. PyTorch's unique sorts with its (unstable) sort, which decides the order of NaNs."""
    cdef Py_ssize_t j, g = -1
    if do_sort:
        if (num_t is not float and num_t is not double) and n >= RADIX_MIN:
            radix_sort(kb, vb, vals, inv, n, False)     # equal integers are interchangeable
        else:
            std_sort(kb, vb, 0, n, C_ASC)
    for j in range(n):
        if j == 0 or kb[j] != kb[j - 1]:
            g += 1
            vals[g] = kb[j]
            cnt[g] = 0
        cnt[g] += 1
        inv[vb[j]] = g
    return g + 1


cdef inline bint _row_lt(const num_t* rows, Py_ssize_t m, int64_t a, int64_t b) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(m):
        if rows[a * m + c] < rows[b * m + c]:
            return True
        if rows[a * m + c] > rows[b * m + c]:
            return False
    return False


cdef inline bint _row_ne(const num_t* rows, Py_ssize_t m, int64_t a, int64_t b) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(m):
        if not (rows[a * m + c] == rows[b * m + c]):
            return True
    return False


cdef void _sort_rows(const num_t* rows, Py_ssize_t m, int64_t* order, int64_t* tmp, Py_ssize_t n) noexcept nogil:
    """Stable bottom-up merge sort of row numbers by the rows' lexicographic order."""
    cdef Py_ssize_t width = 1, lo, mid, hi, i, j, k
    cdef int64_t* src = order
    cdef int64_t* dst = tmp
    cdef int64_t* swap
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if _row_lt(rows, m, src[j], src[i]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
            lo += 2 * width
        swap = src
        src = dst
        dst = swap
        width *= 2
    if src != order:
        for i in range(n):
            order[i] = src[i]


cdef Py_ssize_t _unique_rows(const num_t* rows, Py_ssize_t n, Py_ssize_t m, bint consecutive, int64_t* order,
                             int64_t* tmp, int64_t* first, int64_t* inv, int64_t* cnt) noexcept nogil:
    """Group the n rows (of m elements): first row of each group, inverse, counts."""
    cdef Py_ssize_t j, g = -1
    for j in range(n):
        order[j] = j
    if not consecutive:
        _sort_rows(rows, m, order, tmp, n)
    for j in range(n):
        if j == 0 or _row_ne(rows, m, order[j], order[j - 1]):
            g += 1
            first[g] = order[j]
            cnt[g] = 0
        cnt[g] += 1
        inv[order[j]] = g
    return g + 1


cdef TensorImpl _long_tensor(int nd, const Py_ssize_t* sizes, const int64_t* src, Py_ssize_t n):
    cdef TensorImpl t = empty_contiguous(nd, sizes, ST_INT64, None)
    cdef Py_ssize_t i
    cdef int64_t* dst = <int64_t*>t.data()
    with nogil:
        for i in range(n):
            dst[i] = src[i]
    return t


cdef TensorImpl _empty_long():
    cdef Py_ssize_t zero = 0
    return empty_contiguous(1, &zero, ST_INT64, None)


cdef tuple _unique_flat(TensorImpl self, bint do_sort, bint return_inverse, bint return_counts):
    cdef TensorImpl flat = flattened(self), values, inverse, counts
    cdef Py_ssize_t n = flat.n_elem, nu = 0, i
    cdef int st = self.scalar_type
    cdef int w = self.itemsize
    cdef ScratchBuffers b = scratch_buffers(n, 5)
    cdef char* kb = <char*>b.p[0]
    cdef int64_t* vb = <int64_t*>b.p[1]
    cdef char* vals = <char*>b.p[2]
    cdef int64_t* inv = <int64_t*>b.p[3]
    cdef int64_t* cnt = <int64_t*>b.p[4]
    cdef char* src = flat.data()
    with nogil:
        for i in range(n * w):
            kb[i] = src[i]
        for i in range(n):
            vb[i] = i
        if n > 0:
            if st == ST_BOOL or st == ST_UINT8:
                nu = _unique_run(<uint8_t*>kb, vb, n, do_sort, <uint8_t*>vals, inv, cnt)
            elif st == ST_INT8:
                nu = _unique_run(<int8_t*>kb, vb, n, do_sort, <int8_t*>vals, inv, cnt)
            elif st == ST_INT16:
                nu = _unique_run(<int16_t*>kb, vb, n, do_sort, <int16_t*>vals, inv, cnt)
            elif st == ST_INT32:
                nu = _unique_run(<int32_t*>kb, vb, n, do_sort, <int32_t*>vals, inv, cnt)
            elif st == ST_INT64:
                nu = _unique_run(<int64_t*>kb, vb, n, do_sort, <int64_t*>vals, inv, cnt)
            elif st == ST_FLOAT32:
                nu = _unique_run(<float*>kb, vb, n, do_sort, <float*>vals, inv, cnt)
            else:
                nu = _unique_run(<double*>kb, vb, n, do_sort, <double*>vals, inv, cnt)
    values = empty_contiguous(1, &nu, st, None)
    src = values.data()
    with nogil:
        memcpy(src, vals, nu * w)
    inverse = _long_tensor(self.nd, self.sizes, inv, n) if return_inverse else _empty_long()
    counts = _long_tensor(1, &nu, cnt, nu) if return_counts else _empty_long()
    return values, inverse, counts


def _unique2_cpu(TensorImpl self not None, sorted=True, return_inverse=False, return_counts=False):
    check_cpu(self)
    check_kernel_dtype(self, "unique")
    return _unique_flat(self, True, return_inverse, return_counts)


def unique_consecutive_cpu(TensorImpl self not None, return_inverse=False, return_counts=False, dim=None):
    check_cpu(self)
    check_kernel_dtype(self, "unique_consecutive")
    if dim is not None:
        return _unique_dim(self, dim, True)
    return _unique_flat(self, False, return_inverse, return_counts)


def unique_dim_cpu(TensorImpl self not None, dim, sorted=True, return_inverse=False, return_counts=False):
    check_cpu(self)
    check_kernel_dtype(self, "unique_dim")
    return _unique_dim(self, dim, False)


cdef TensorImpl _dim_first(TensorImpl t, int d):
    """A view of t with dimension d moved to the front (t.movedim(d, 0))."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i, j = 1
    sizes[0] = t.sizes[d]
    strides[0] = t.strides[d]
    for i in range(t.nd):
        if i != d:
            sizes[j] = t.sizes[i]
            strides[j] = t.strides[i]
            j += 1
    return make_tensor(t.storage, t.offset, t.nd, sizes, strides, t.scalar_type, t.version_counter)


cdef tuple _unique_dim(TensorImpl self, object dim, bint consecutive):
    cdef int d, st = self.scalar_type, i, zero_dims = 0
    cdef Py_ssize_t n, m = 1, nu = 0, j
    cdef Py_ssize_t out_sizes[MAX_DIMS]
    cdef TensorImpl rows, out, moved_out, picked
    cdef ScratchBuffers b
    cdef int64_t* order
    cdef int64_t* tmp
    cdef int64_t* first
    cdef int64_t* inv
    cdef int64_t* cnt
    cdef char* rp
    cdef char* pp
    if self.nd == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = self._wrap_dim(dim)
    for i in range(self.nd):
        if self.sizes[i] == 0:
            zero_dims += 1
    if self.sizes[d] == 0:
        if zero_dims != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
        return empty_contiguous(self.nd, self.sizes, st, None), _empty_long(), _empty_long()
    if zero_dims:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    n = self.sizes[d]
    m = self.n_elem // n
    rows = cast_contiguous(_dim_first(self, d), st)          # (n, rest...) row-major: row i = slice i
    b = scratch_buffers(n, 5)
    order = <int64_t*>b.p[0]
    tmp = <int64_t*>b.p[1]
    first = <int64_t*>b.p[2]
    inv = <int64_t*>b.p[3]
    cnt = <int64_t*>b.p[4]
    rp = rows.data()
    with nogil:
        if st == ST_BOOL or st == ST_UINT8:
            nu = _unique_rows(<uint8_t*>rp, n, m, consecutive, order, tmp, first, inv, cnt)
        elif st == ST_INT8:
            nu = _unique_rows(<int8_t*>rp, n, m, consecutive, order, tmp, first, inv, cnt)
        elif st == ST_INT16:
            nu = _unique_rows(<int16_t*>rp, n, m, consecutive, order, tmp, first, inv, cnt)
        elif st == ST_INT32:
            nu = _unique_rows(<int32_t*>rp, n, m, consecutive, order, tmp, first, inv, cnt)
        elif st == ST_INT64:
            nu = _unique_rows(<int64_t*>rp, n, m, consecutive, order, tmp, first, inv, cnt)
        elif st == ST_FLOAT32:
            nu = _unique_rows(<float*>rp, n, m, consecutive, order, tmp, first, inv, cnt)
        else:
            nu = _unique_rows(<double*>rp, n, m, consecutive, order, tmp, first, inv, cnt)
    # The chosen rows, then moved back so that `dim` holds them.
    out_sizes[0] = nu
    for i in range(1, rows.nd):
        out_sizes[i] = rows.sizes[i]
    picked = empty_contiguous(rows.nd, out_sizes, st, None)
    pp = picked.data()
    with nogil:
        for j in range(nu):
            memcpy(pp + j * m * self.itemsize, rp + first[j] * m * self.itemsize, m * self.itemsize)
    for i in range(self.nd):
        out_sizes[i] = self.sizes[i] if i != d else nu
    out = empty_contiguous(self.nd, out_sizes, st, None)
    moved_out = _dim_first(out, d)
    copy_into(moved_out, picked)
    return out, _long_tensor(1, &n, inv, n), _long_tensor(1, &nu, cnt, nu)
