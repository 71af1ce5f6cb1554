"""libstdc++'s std::sort, std::partial_sort and std::nth_element, PyTorch's quickselect, and a
stable radix sort, over parallel arrays k (values) and v (original indices).

PyTorch's CPU kernels run these algorithms, which are not stable, so which of several equal values comes
first (and so the indices returned) depends on their exact steps. They are ported step by step (introsort
with median-of-three pivots and a final insertion sort, heap select, introselect), with the comparators
named in sort_algorithms.pxd, so that ties resolve as in PyTorch.
"""
from libc.stdint cimport int64_t, uint64_t, uint8_t
from libc.stdlib cimport malloc, free
from aten.native.cpu.index_support cimport isnan_t

cdef enum:
    S_THRESHOLD = 16    # libstdc++'s _S_threshold


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


cdef inline void _move_median_to_first(num_t* k, int64_t* v, Py_ssize_t result, Py_ssize_t a, Py_ssize_t b,
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
    # sort's two comparators as constants: gcc then clones the loops for each, with no test of the mode in
    # every comparison (IPA constant propagation)
    if mode == C_ASC:
        _std_sort(k, v, first, last, C_ASC)
    elif mode == C_DESC:
        _std_sort(k, v, first, last, C_DESC)
    else:
        _std_sort(k, v, first, last, mode)


cdef inline void _std_sort(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, int mode) noexcept nogil:
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


cdef class ScratchBuffers:
    """Scratch buffers of 8-byte slots for the sorting and unique kernels, freed with the object."""
    def __dealloc__(self):
        cdef int i
        for i in range(8):
            free(self.p[i])


cdef ScratchBuffers scratch_buffers(Py_ssize_t n, int count):
    cdef ScratchBuffers b = ScratchBuffers.__new__(ScratchBuffers)
    cdef int i
    for i in range(count):
        b.p[i] = malloc((n if n > 0 else 1) * 8)
        if b.p[i] == NULL:
            raise MemoryError()
    return b
