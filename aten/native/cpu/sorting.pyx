"""sort, topk, kthvalue, median, nanmedian and mode on CPU.

Each op runs once per slice along `dim`: the slice is copied into contiguous buffers, one of the
algorithms of sort_algorithms.pyx (libstdc++'s, as PyTorch runs them, so that ties resolve as in PyTorch)
runs without the GIL, and the results are written to contiguous outputs. Stable sorting uses the same
introsort with the original index as the tie-break, which has exactly one result.
"""
from libc.stdint cimport int64_t, uint8_t, int8_t, int16_t, int32_t
from cython.parallel cimport prange
from libc.math cimport NAN
from c10.scalar_type cimport (ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64,
                              is_integral)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.index_support cimport check_kernel_dtype, check_cpu, next_pos2, flattened, isnan_t
from aten.native.cpu.element_types cimport num_t
from aten.native.cpu.sort_algorithms cimport (
    C_ASC, C_DESC, C_PLAIN, C_MED, C_NANMED, C_ASC_STABLE, C_DESC_STABLE, RADIX_MIN, ScratchBuffers,
    scratch_buffers, std_sort, std_partial_sort, std_nth_element, quick_select, radix_sort)

from aten.native.cpu.loops import get_num_threads

cdef enum:
    PARALLEL_MIN = 32768  # elements from which slices are shared between threads (PyTorch's grain size)


cdef enum:
    OP_SORT = 0
    OP_TOPK = 1
    OP_KTH = 2
    OP_MEDIAN = 3
    OP_NANMEDIAN = 4
    OP_MODE = 5


cdef struct SlicePlan:
    int op
    int mode                 # comparator for sort
    int nouter
    Py_ssize_t outer_sizes[MAX_DIMS]
    Py_ssize_t s_outer[MAX_DIMS]       # self strides over the other dims
    Py_ssize_t o_outer[MAX_DIMS]       # output strides over the other dims
    Py_ssize_t nslices
    Py_ssize_t n                       # slice length
    Py_ssize_t s_dim                   # self stride along dim
    Py_ssize_t o_dim                   # output stride along dim (sort, topk)
    Py_ssize_t k                       # topk's k, kthvalue's k - 1
    bint largest
    bint sorted


cdef void _one_slice(num_t* kb, int64_t* vb, num_t* k2, int64_t* v2, const SlicePlan* p, num_t* ov,
                     int64_t* oi) noexcept nogil:
    """Run p.op on the slice in kb (values) / vb (0..n-1); write the results at ov, oi."""
    cdef Py_ssize_t n = p.n, j, nnan, nth, freq, best
    cdef num_t mode_value
    cdef int64_t mode_index
    if p.op == OP_SORT:
        if (num_t is not float and num_t is not double) and n >= RADIX_MIN and \
                (p.mode == C_ASC_STABLE or p.mode == C_DESC_STABLE):
            radix_sort(kb, vb, k2, v2, n, p.mode == C_DESC_STABLE)     # same result, faster
        else:
            std_sort(kb, vb, 0, n, p.mode)
        for j in range(n):
            ov[j * p.o_dim] = kb[j]
            oi[j * p.o_dim] = vb[j]
    elif p.op == OP_TOPK:
        if p.k == 0:
            return
        if p.k * 64 <= n:
            std_partial_sort(kb, vb, 0, p.k, n, C_DESC if p.largest else C_ASC)
        else:
            std_nth_element(kb, vb, 0, p.k - 1, n, C_DESC if p.largest else C_ASC)
            if p.sorted:
                std_sort(kb, vb, 0, p.k - 1, C_DESC if p.largest else C_ASC)
        for j in range(p.k):
            ov[j * p.o_dim] = kb[j]
            oi[j * p.o_dim] = vb[j]
    elif p.op == OP_KTH:
        quick_select(kb, vb, n, p.k)
        ov[0] = kb[p.k]
        oi[0] = vb[p.k]
    elif p.op == OP_MEDIAN:
        for j in range(n):
            if isnan_t(kb[j]):
                ov[0] = kb[j]
                oi[0] = j
                return
        nth = (n - 1) // 2
        std_nth_element(kb, vb, 0, nth, n, C_MED)
        ov[0] = kb[nth]
        oi[0] = vb[nth]
    elif p.op == OP_NANMEDIAN:
        nnan = 0
        for j in range(n):
            if isnan_t(kb[j]):
                nnan += 1
        nth = (n - nnan - 1) // 2           # C division: -1 // 2 is 0 here (cdivision)
        std_nth_element(kb, vb, 0, nth, n, C_NANMED)
        ov[0] = kb[nth]
        oi[0] = vb[nth]
    else:
        std_sort(kb, vb, 0, n, C_PLAIN)
        freq = 0
        best = 0
        mode_value = 0
        mode_index = 0
        for j in range(n):
            freq += 1
            if j == n - 1 or kb[j] != kb[j + 1]:
                if freq > best:
                    mode_value = kb[j]
                    mode_index = vb[j]
                    best = freq
                freq = 0
        ov[0] = mode_value
        oi[0] = mode_index


cdef void _run_slices(num_t* src, const SlicePlan* p, num_t* ov, int64_t* oi, num_t* kb, int64_t* vb, num_t* k2,
                      int64_t* v2, Py_ssize_t begin, Py_ssize_t end) noexcept nogil:
    """Slices [begin, end) in row-major order of the other dims."""
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t so = 0, oo = 0, s, j, rest = begin
    cdef int d
    for d in range(p.nouter - 1, -1, -1):
        cnt[d] = rest % p.outer_sizes[d]
        rest = rest // p.outer_sizes[d]
        so += cnt[d] * p.s_outer[d]
        oo += cnt[d] * p.o_outer[d]
    for s in range(begin, end):
        for j in range(p.n):
            kb[j] = src[so + j * p.s_dim]
            vb[j] = j
        _one_slice(kb, vb, k2, v2, p, ov + oo, oi + oo)
        next_pos2(p.nouter, p.outer_sizes, cnt, p.s_outer, p.o_outer, &so, &oo)


cdef void _run_typed(int st, char* s, const SlicePlan* p, char* ov, int64_t* oi, char* kb, int64_t* vb, char* k2,
                     int64_t* v2, Py_ssize_t begin, Py_ssize_t end) noexcept nogil:
    if st == ST_BOOL or st == ST_UINT8:
        _run_slices(<uint8_t*>s, p, <uint8_t*>ov, oi, <uint8_t*>kb, vb, <uint8_t*>k2, v2, begin, end)
    elif st == ST_INT8:
        _run_slices(<int8_t*>s, p, <int8_t*>ov, oi, <int8_t*>kb, vb, <int8_t*>k2, v2, begin, end)
    elif st == ST_INT16:
        _run_slices(<int16_t*>s, p, <int16_t*>ov, oi, <int16_t*>kb, vb, <int16_t*>k2, v2, begin, end)
    elif st == ST_INT32:
        _run_slices(<int32_t*>s, p, <int32_t*>ov, oi, <int32_t*>kb, vb, <int32_t*>k2, v2, begin, end)
    elif st == ST_INT64:
        _run_slices(<int64_t*>s, p, <int64_t*>ov, oi, <int64_t*>kb, vb, <int64_t*>k2, v2, begin, end)
    elif st == ST_FLOAT32:
        _run_slices(<float*>s, p, <float*>ov, oi, <float*>kb, vb, <float*>k2, v2, begin, end)
    else:
        _run_slices(<double*>s, p, <double*>ov, oi, <double*>kb, vb, <double*>k2, v2, begin, end)


cdef int _dispatch(TensorImpl self, const SlicePlan* p, TensorImpl values, TensorImpl indices) except -1:
    """Run the plan over every slice; slices are split across threads when there is enough work
    (each thread has its own scratch buffers)."""
    cdef int st = self.scalar_type
    cdef Py_ssize_t n = p.n if p.n > 0 else 1
    cdef char* s = self.data()
    cdef char* ov = values.data()
    cdef int64_t* oi = <int64_t*>indices.data()
    cdef ScratchBuffers b
    cdef Py_ssize_t nthreads = 1, chunk, t
    if p.nslices == 0 or p.n == 0:
        return 0
    if p.nslices > 1 and p.nslices * p.n >= PARALLEL_MIN:
        nthreads = min(<Py_ssize_t>get_num_threads(), p.nslices)
    b = scratch_buffers(n * nthreads, 4)
    if nthreads == 1:
        with nogil:
            _run_typed(st, s, p, ov, oi, <char*>b.p[0], <int64_t*>b.p[1], <char*>b.p[2], <int64_t*>b.p[3], 0,
                       p.nslices)
        return 0
    chunk = (p.nslices + nthreads - 1) // nthreads
    for t in prange(nthreads, nogil=True, schedule="static", num_threads=nthreads):
        if t * chunk < p.nslices:
            _run_typed(st, s, p, ov, oi, <char*>b.p[0] + t * n * 8, <int64_t*>b.p[1] + t * n,
                       <char*>b.p[2] + t * n * 8, <int64_t*>b.p[3] + t * n, t * chunk,
                       min(p.nslices, (t + 1) * chunk))
    return 0


cdef tuple _outputs(TensorImpl self, int dim, Py_ssize_t dim_size, bint keep, SlicePlan* p, int op):
    """Contiguous values/indices tensors with `dim` resized to dim_size (or removed when keep is
    False), and the plan's loop over the other dims."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t ostr[MAX_DIMS]
    cdef Py_ssize_t acc = 1
    cdef int nd = 0, d, j = 0
    cdef TensorImpl values, indices
    for d in range(self.nd):
        if d == dim:
            if keep:
                sizes[nd] = dim_size
                nd += 1
        else:
            sizes[nd] = self.sizes[d]
            nd += 1
    values = empty_contiguous(nd, sizes, self.scalar_type, None)
    indices = empty_contiguous(nd, sizes, ST_INT64, None)
    for d in range(nd - 1, -1, -1):
        ostr[d] = acc
        acc *= sizes[d]
    p.op = op
    p.nouter = 0
    p.nslices = 1
    p.n = self.sizes[dim] if self.nd > 0 else 1
    p.s_dim = self.strides[dim] if self.nd > 0 else 0
    p.o_dim = 0
    for d in range(self.nd):
        if d == dim:
            if keep:
                p.o_dim = ostr[j]
                j += 1
            continue
        p.outer_sizes[p.nouter] = self.sizes[d]
        p.s_outer[p.nouter] = self.strides[d]
        p.o_outer[p.nouter] = ostr[j]
        p.nslices *= self.sizes[d]
        p.nouter += 1
        j += 1
    return values, indices


# ---------------------------------------------------------------------------------------------
# sort, topk, kthvalue, median, nanmedian, mode

cdef tuple _sort(TensorImpl self, bint stable, object dim, bint descending):
    cdef int d = self._wrap_dim(dim)
    cdef SlicePlan p
    check_cpu(self)
    check_kernel_dtype(self, "sort")
    values, indices = _outputs(self, d, self.sizes[d] if self.nd > 0 else 1, True, &p, OP_SORT)
    if not stable and self.nd == 1 and not descending and is_integral(self.scalar_type, False) \
            and self.n_elem >= 32768:
        stable = True          # PyTorch's radix sort path for large 1-d integer tensors (stable)
    if stable:
        p.mode = C_DESC_STABLE if descending else C_ASC_STABLE
    else:
        p.mode = C_DESC if descending else C_ASC
    _dispatch(self, &p, values, indices)
    return values, indices


def sort_cpu(TensorImpl self not None, dim=-1, descending=False):
    return _sort(self, False, dim, descending)


def sort_stable_cpu(TensorImpl self not None, stable=None, dim=-1, descending=False):
    return _sort(self, bool(stable) if stable is not None else False, dim, descending)


def topk_cpu(TensorImpl self not None, k, dim=-1, largest=True, sorted=True):
    cdef int d = self._wrap_dim(dim)
    cdef SlicePlan p
    cdef Py_ssize_t size = self.sizes[d] if self.nd > 0 else 1
    check_cpu(self)
    if not (0 <= k <= size):
        raise RuntimeError("selected index k out of range")
    if self.scalar_type == ST_BOOL:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    check_kernel_dtype(self, "topk_cpu")
    values, indices = _outputs(self, d, k, True, &p, OP_TOPK)
    p.k = k
    if self.nd == 0:
        p.k = 1                # PyTorch copies a 0-dim self whatever k (0 or 1) is
    p.largest = largest
    p.sorted = sorted
    _dispatch(self, &p, values, indices)
    return values, indices


cdef int _check_nonempty_dim(TensorImpl self, int d, str name) except -1:
    if self.nd > 0 and self.sizes[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return 0


def kthvalue_cpu(TensorImpl self not None, k, dim=-1, keepdim=False):
    cdef int d = self._wrap_dim(dim)
    cdef SlicePlan p
    cdef Py_ssize_t size = self.sizes[d] if self.nd > 0 else 1
    check_cpu(self)
    if self.scalar_type == ST_BOOL:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    check_kernel_dtype(self, "kthvalue_cpu")
    _check_nonempty_dim(self, d, "kthvalue")
    if not (1 <= k <= size):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = _outputs(self, d, 1, keepdim, &p, OP_KTH)
    p.k = k - 1
    _dispatch(self, &p, values, indices)
    return values, indices


cdef tuple _median_dim(TensorImpl self, object dim, bint keepdim, bint ignore_nan, str name):
    cdef int d = self._wrap_dim(dim)
    cdef SlicePlan p
    check_cpu(self)
    if self.scalar_type == ST_BOOL:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
    check_kernel_dtype(self, "median_out")
    _check_nonempty_dim(self, d, name)
    values, indices = _outputs(self, d, 1, keepdim, &p, OP_NANMEDIAN if ignore_nan else OP_MEDIAN)
    _dispatch(self, &p, values, indices)
    return values, indices


def median_dim_cpu(TensorImpl self not None, dim, keepdim=False):
    return _median_dim(self, dim, keepdim, False, "median")


def nanmedian_dim_cpu(TensorImpl self not None, dim, keepdim=False):
    return _median_dim(self, dim, keepdim, True, "nanmedian")


cdef TensorImpl _median_all(TensorImpl self, bint ignore_nan):
    """The lower median of all elements (NaN when there is one, unless ignore_nan)."""
    cdef SlicePlan p
    cdef TensorImpl flat, values, indices
    cdef Py_ssize_t n = self.n_elem
    check_cpu(self)
    if self.scalar_type == ST_BOOL:
        raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
    check_kernel_dtype(self, "median_cpu")
    values = empty_contiguous(0, NULL, self.scalar_type, None)
    if n == 0:
        _store_nan(values)
        return values
    flat = flattened(self)
    values, indices = _outputs(flat, 0, 1, False, &p, OP_NANMEDIAN if ignore_nan else OP_MEDIAN)
    _dispatch(flat, &p, values, indices)
    return values


cdef void _store_nan(TensorImpl t):
    """NaN converted to t's dtype, as PyTorch's at::full({}, NAN).to(dtype) does for empty input."""
    cdef int st = t.scalar_type
    cdef double nan = NAN
    if st == ST_FLOAT32:
        (<float*>t.data())[0] = <float>nan
    elif st == ST_FLOAT64:
        (<double*>t.data())[0] = nan
    elif st == ST_INT64:
        (<int64_t*>t.data())[0] = <int64_t>(-9223372036854775807 - 1)
    elif st == ST_INT32:
        (<int32_t*>t.data())[0] = <int32_t>(-2147483647 - 1)
    elif st == ST_INT16:
        (<int16_t*>t.data())[0] = 0
    else:
        (<uint8_t*>t.data())[0] = 0


def median_cpu(TensorImpl self not None):
    return _median_all(self, False)


def nanmedian_cpu(TensorImpl self not None):
    return _median_all(self, True)


def mode_cpu(TensorImpl self not None, dim=-1, keepdim=False):
    cdef int d = self._wrap_dim(dim)
    cdef SlicePlan p
    check_cpu(self)
    check_kernel_dtype(self, "mode_cpu")
    _check_nonempty_dim(self, d, "mode")
    values, indices = _outputs(self, d, 1, keepdim, &p, OP_MODE)
    _dispatch(self, &p, values, indices)
    return values, indices
