"""sort, topk, kthvalue, median, nanmedian, mode and unique on CPU.

PyTorch's CPU kernels run libstdc++'s std::sort, std::partial_sort and std::nth_element (and,
for kthvalue, its own quickselect) on (value, index) pairs, with comparators that put NaN above
every number. Those algorithms are not stable, so which of several equal values comes first (and
so the indices returned) depends on the algorithm's exact steps. This module ports those steps
(introsort with median-of-three pivots and a final insertion sort, heap select, introselect)
and the comparators, so that ties resolve as in PyTorch. Stable sorting uses the same introsort
with the original index as the tie-break, which has exactly one result.

Each op runs once per slice along `dim`: the slice is copied into contiguous buffers, the
algorithm runs without the GIL, and the results are written to contiguous outputs.
"""
from libc.stdint cimport int64_t, uint64_t, uint8_t, int8_t, int16_t, int32_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from cython.parallel cimport prange
from libc.math cimport NAN
from c10.scalar_type cimport (ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64,
                              is_integral, is_floating)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, make_tensor
from aten.native.cpu.loops cimport cast_contiguous, copy_into

from aten.native.cpu.loops import get_num_threads
from aten.native.cpu.index_support cimport num_t, check_kernel_dtype, check_cpu, next_pos2, flattened, isnan_t
from aten.native.meta.messages cimport type_name
from aten.native.cpu.half import float16_via_float32

cdef enum:
    C_ASC = 0           # (!isnan(a) && isnan(b)) || a < b        sort, topk(largest=False)
    C_DESC = 1          # (isnan(a) && !isnan(b)) || a > b        sort(descending), topk
    C_PLAIN = 2         # a < b                                    mode
    C_MED = 3           # a < b || (a == b && i < j)               median
    C_NANMED = 4        # C_MED || (isnan(b) && !isnan(a))         nanmedian
    C_ASC_STABLE = 5    # C_ASC, ties by original index
    C_DESC_STABLE = 6   # C_DESC, ties by original index

    S_THRESHOLD = 16    # libstdc++'s _S_threshold
    RADIX_MIN = 64      # integer stable sorts from this length use radix_sort
    PARALLEL_MIN = 32768  # elements from which slices are shared between threads (PyTorch's grain size)


# ---------------------------------------------------------------------------------------------
# libstdc++'s algorithms over parallel arrays k (values) and v (original indices)

cdef inline bint _lt(num_t a, int64_t ai, num_t b, int64_t bi, int mode) noexcept nogil:
    if mode == C_ASC:
        return (not isnan_t(a) and isnan_t(b)) or a < b
    if mode == C_DESC:
        return (isnan_t(a) and not isnan_t(b)) or a > b
    if mode == C_PLAIN:
        return a < b
    if mode == C_MED:
        return a < b or (a == b and ai < bi)
    if mode == C_NANMED:
        return a < b or (a == b and ai < bi) or (isnan_t(b) and not isnan_t(a))
    if mode == C_ASC_STABLE:
        if (not isnan_t(a) and isnan_t(b)) or a < b:
            return True
        if (not isnan_t(b) and isnan_t(a)) or b < a:
            return False
        return ai < bi
    # C_DESC_STABLE
    if (isnan_t(a) and not isnan_t(b)) or a > b:
        return True
    if (isnan_t(b) and not isnan_t(a)) or b > a:
        return False
    return ai < bi


cdef inline bint _lt_at(num_t* k, int64_t* v, Py_ssize_t i, Py_ssize_t j, int mode) noexcept nogil:
    return _lt(k[i], v[i], k[j], v[j], mode)


cdef inline void _swap(num_t* k, int64_t* v, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef num_t tk = k[i]
    cdef int64_t tv = v[i]
    k[i] = k[j]
    v[i] = v[j]
    k[j] = tk
    v[j] = tv


cdef inline Py_ssize_t _lg(Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t r = -1
    while n > 0:
        n >>= 1
        r += 1
    return r


cdef void _unguarded_linear_insert(num_t* k, int64_t* v, Py_ssize_t last, int mode) noexcept nogil:
    cdef num_t vk = k[last]
    cdef int64_t vv = v[last]
    cdef Py_ssize_t nxt = last - 1
    while _lt(vk, vv, k[nxt], v[nxt], mode):
        k[last] = k[nxt]
        v[last] = v[nxt]
        last = nxt
        nxt -= 1
    k[last] = vk
    v[last] = vv


cdef void _insertion_sort(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, int mode) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef num_t vk
    cdef int64_t vv
    if first == last:
        return
    for i in range(first + 1, last):
        if _lt_at(k, v, i, first, mode):
            vk = k[i]
            vv = v[i]
            j = i
            while j > first:
                k[j] = k[j - 1]
                v[j] = v[j - 1]
                j -= 1
            k[first] = vk
            v[first] = vv
        else:
            _unguarded_linear_insert(k, v, i, mode)


cdef void _final_insertion_sort(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, int mode) noexcept nogil:
    cdef Py_ssize_t i
    if last - first > S_THRESHOLD:
        _insertion_sort(k, v, first, first + S_THRESHOLD, mode)
        for i in range(first + S_THRESHOLD, last):
            _unguarded_linear_insert(k, v, i, mode)
    else:
        _insertion_sort(k, v, first, last, mode)


cdef void _move_median_to_first(num_t* k, int64_t* v, Py_ssize_t result, Py_ssize_t a, Py_ssize_t b,
                                Py_ssize_t c, int mode) noexcept nogil:
    if _lt_at(k, v, a, b, mode):
        if _lt_at(k, v, b, c, mode):
            _swap(k, v, result, b)
        elif _lt_at(k, v, a, c, mode):
            _swap(k, v, result, c)
        else:
            _swap(k, v, result, a)
    elif _lt_at(k, v, a, c, mode):
        _swap(k, v, result, a)
    elif _lt_at(k, v, b, c, mode):
        _swap(k, v, result, c)
    else:
        _swap(k, v, result, b)


cdef Py_ssize_t _unguarded_partition(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, Py_ssize_t pivot,
                                     int mode) noexcept nogil:
    while True:
        while _lt_at(k, v, first, pivot, mode):
            first += 1
        last -= 1
        while _lt_at(k, v, pivot, last, mode):
            last -= 1
        if not first < last:
            return first
        _swap(k, v, first, last)
        first += 1


cdef Py_ssize_t _unguarded_partition_pivot(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last,
                                           int mode) noexcept nogil:
    cdef Py_ssize_t mid = first + (last - first) // 2
    _move_median_to_first(k, v, first, first + 1, mid, last - 1, mode)
    return _unguarded_partition(k, v, first + 1, last, first, mode)


cdef void _push_heap(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t hole, Py_ssize_t top, num_t vk,
                     int64_t vv, int mode) noexcept nogil:
    cdef Py_ssize_t parent = (hole - 1) // 2
    while hole > top and _lt(k[first + parent], v[first + parent], vk, vv, mode):
        k[first + hole] = k[first + parent]
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    k[first + hole] = vk
    v[first + hole] = vv


cdef void _adjust_heap(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t hole, Py_ssize_t length, num_t vk,
                       int64_t vv, int mode) noexcept nogil:
    cdef Py_ssize_t top = hole, second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if _lt_at(k, v, first + second, first + second - 1, mode):
            second -= 1
        k[first + hole] = k[first + second]
        v[first + hole] = v[first + second]
        hole = second
    if (length & 1) == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        k[first + hole] = k[first + second - 1]
        v[first + hole] = v[first + second - 1]
        hole = second - 1
    _push_heap(k, v, first, hole, top, vk, vv, mode)


cdef void _make_heap(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, int mode) noexcept nogil:
    cdef Py_ssize_t length = last - first, parent
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(k, v, first, parent, length, k[first + parent], v[first + parent], mode)
        if parent == 0:
            return
        parent -= 1


cdef void _pop_heap(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, Py_ssize_t result,
                    int mode) noexcept nogil:
    cdef num_t vk = k[result]
    cdef int64_t vv = v[result]
    k[result] = k[first]
    v[result] = v[first]
    _adjust_heap(k, v, first, 0, last - first, vk, vv, mode)


cdef void _heap_select(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t middle, Py_ssize_t last,
                       int mode) noexcept nogil:
    cdef Py_ssize_t i
    _make_heap(k, v, first, middle, mode)
    for i in range(middle, last):
        if _lt_at(k, v, i, first, mode):
            _pop_heap(k, v, first, middle, i, mode)


cdef void _sort_heap(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, int mode) noexcept nogil:
    while last - first > 1:
        last -= 1
        _pop_heap(k, v, first, last, last, mode)


cdef void std_partial_sort(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t middle, Py_ssize_t last,
                           int mode) noexcept nogil:
    _heap_select(k, v, first, middle, last, mode)
    _sort_heap(k, v, first, middle, mode)


cdef void _introsort_loop(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, Py_ssize_t depth,
                          int mode) noexcept nogil:
    cdef Py_ssize_t cut
    while last - first > S_THRESHOLD:
        if depth == 0:
            std_partial_sort(k, v, first, last, last, mode)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(k, v, first, last, mode)
        _introsort_loop(k, v, cut, last, depth, mode)
        last = cut


cdef void std_sort(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, int mode) noexcept nogil:
    if first != last:
        _introsort_loop(k, v, first, last, _lg(last - first) * 2, mode)
        _final_insertion_sort(k, v, first, last, mode)


cdef void std_nth_element(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t nth, Py_ssize_t last,
                          int mode) noexcept nogil:
    cdef Py_ssize_t depth, cut
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(k, v, first, nth + 1, last, mode)
            _swap(k, v, first, nth)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(k, v, first, last, mode)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(k, v, first, last, mode)


cdef inline bint _gt_or_nan(num_t x, num_t y) noexcept nogil:
    return (isnan_t(x) and not isnan_t(y)) or x > y


cdef void quick_select(num_t* arr, int64_t* idx, Py_ssize_t n, Py_ssize_t kth) noexcept nogil:
    """PyTorch's quick_select_template (SortingUtils.h), as kthvalue runs it."""
    cdef Py_ssize_t P, L = 0, R = n - 1, i, j
    cdef num_t piv
    while True:
        if R <= L:
            return
        if R == L + 1:
            if _gt_or_nan(arr[L], arr[R]):
                _swap(arr, idx, L, R)
            return
        P = L + (R - L) // 2
        _swap(arr, idx, P, L + 1)
        if _gt_or_nan(arr[L + 1], arr[R]):
            _swap(arr, idx, L + 1, R)
        if _gt_or_nan(arr[L], arr[R]):
            _swap(arr, idx, L, R)
        if _gt_or_nan(arr[L + 1], arr[L]):
            _swap(arr, idx, L + 1, L)
        i = L + 1
        j = R
        piv = arr[L]
        while True:
            i += 1
            while _gt_or_nan(piv, arr[i]):
                i += 1
            j -= 1
            while _gt_or_nan(arr[j], piv):
                j -= 1
            if j < i:
                break
            _swap(arr, idx, i, j)
        _swap(arr, idx, L, j)
        if j <= kth:
            L = i
        if j >= kth:
            R = j - 1


cdef inline uint64_t _ukey(num_t x) noexcept nogil:
    """An unsigned key with the integer order of x (the sign bit of x's width flipped)."""
    cdef int bits = 8 * sizeof(num_t)
    cdef uint64_t mask = (<uint64_t>0xFFFFFFFFFFFFFFFF) >> (64 - bits)
    if num_t is uint8_t:
        return <uint64_t>x
    elif num_t is float or num_t is double:
        return 0
    else:
        return ((<uint64_t>(<int64_t>x)) ^ ((<uint64_t>1) << (bits - 1))) & mask


cdef void radix_sort(num_t* k, int64_t* v, num_t* k2, int64_t* v2, Py_ssize_t n, bint descending) noexcept nogil:
    """Stable LSD radix sort of integer keys (8-bit digits; a digit all keys share is skipped).
    Descending inverts the digits, so equal keys still keep their order, as a stable sort."""
    cdef Py_ssize_t count[256]
    cdef Py_ssize_t i, total, c
    cdef int shift, d, npass = sizeof(num_t)
    cdef num_t* sk = k
    cdef num_t* dk = k2
    cdef int64_t* sv = v
    cdef int64_t* dv = v2
    cdef num_t* tk
    cdef int64_t* tv
    cdef bint skip
    for shift in range(0, 8 * npass, 8):
        for d in range(256):
            count[d] = 0
        for i in range(n):
            d = (_ukey(sk[i]) >> shift) & 255
            if descending:
                d = 255 - d
            count[d] += 1
        skip = False
        for d in range(256):
            if count[d] == n:
                skip = True
        if skip:
            continue
        total = 0
        for d in range(256):
            c = count[d]
            count[d] = total
            total += c
        for i in range(n):
            d = (_ukey(sk[i]) >> shift) & 255
            if descending:
                d = 255 - d
            dk[count[d]] = sk[i]
            dv[count[d]] = sv[i]
            count[d] += 1
        tk = sk
        sk = dk
        dk = tk
        tv = sv
        sv = dv
        dv = tv
    if sk != k:
        for i in range(n):
            k[i] = sk[i]
            v[i] = sv[i]


# ---------------------------------------------------------------------------------------------
# The per-slice driver

cdef class _Buffers:
    """Scratch memory for unique: released when the kernel returns."""
    cdef void* p[8]

    def __dealloc__(self):
        cdef int i
        for i in range(8):
            free(self.p[i])


cdef _Buffers _buffers(Py_ssize_t n, int count):
    cdef _Buffers b = _Buffers.__new__(_Buffers)
    cdef int i
    for i in range(count):
        b.p[i] = malloc((n if n > 0 else 1) * 8)
        if b.p[i] == NULL:
            raise MemoryError()
    return b



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
    cdef _Buffers b
    cdef Py_ssize_t nthreads = 1, chunk, t
    if p.nslices == 0 or p.n == 0:
        return 0
    if p.nslices > 1 and p.nslices * p.n >= PARALLEL_MIN:
        nthreads = min(<Py_ssize_t>get_num_threads(), p.nslices)
    b = _buffers(n * nthreads, 4)
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


@float16_via_float32
def sort_cpu(TensorImpl self not None, dim=-1, descending=False):
    return _sort(self, False, dim, descending)


@float16_via_float32
def sort_stable_cpu(TensorImpl self not None, stable=None, dim=-1, descending=False):
    return _sort(self, bool(stable) if stable is not None else False, dim, descending)


@float16_via_float32
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


@float16_via_float32
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


@float16_via_float32
def median_dim_cpu(TensorImpl self not None, dim, keepdim=False):
    return _median_dim(self, dim, keepdim, False, "median")


@float16_via_float32
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


@float16_via_float32
def median_cpu(TensorImpl self not None):
    return _median_all(self, False)


@float16_via_float32
def nanmedian_cpu(TensorImpl self not None):
    return _median_all(self, True)


@float16_via_float32
def mode_cpu(TensorImpl self not None, dim=-1, keepdim=False):
    cdef int d = self._wrap_dim(dim)
    cdef SlicePlan p
    check_cpu(self)
    check_kernel_dtype(self, "mode_cpu")
    _check_nonempty_dim(self, d, "mode")
    values, indices = _outputs(self, d, 1, keepdim, &p, OP_MODE)
    _dispatch(self, &p, values, indices)
    return values, indices


# ---------------------------------------------------------------------------------------------
# _unique2, unique_consecutive, unique_dim
#
# PyTorch's CPU unique always returns sorted values (sorted=False is a hint it ignores there),
# every NaN its own value, sorted last, in the order its sort leaves them. unique_dim orders
# slices along `dim` lexicographically with `<` / `>` per element and groups equal slices
# (at::equal: a slice holding NaN equals no other); the dim forms return the inverse and counts
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
    cdef _Buffers b = _buffers(n, 5)
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


@float16_via_float32
def _unique2_cpu(TensorImpl self not None, sorted=True, return_inverse=False, return_counts=False):
    check_cpu(self)
    check_kernel_dtype(self, "unique")
    return _unique_flat(self, True, return_inverse, return_counts)


@float16_via_float32
def unique_consecutive_cpu(TensorImpl self not None, return_inverse=False, return_counts=False, dim=None):
    check_cpu(self)
    check_kernel_dtype(self, "unique_consecutive")
    if dim is not None:
        return _unique_dim(self, dim, True)
    return _unique_flat(self, False, return_inverse, return_counts)


@float16_via_float32
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
    cdef _Buffers b
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
    b = _buffers(n, 5)
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
