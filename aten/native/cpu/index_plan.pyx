"""The loop nest of every CPU indexing kernel (index_along_dim.pyx, advanced_indexing.pyx).

It runs over three blocks of dimensions of `self`: the dims before the indexed ones (pre), the
indexed block flattened to one position b with a precomputed offset into self per b (PyTorch's
index tensors, already bounds-checked and wrapped), and the dims after (post). The other operand
(the result, the source or the values) has its own strides for pre and post and its own offset per
b. Callers validate every index, with PyTorch's message (check_in_bounds), before the loop runs
without the GIL.
"""
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from cython.parallel cimport prange
from c10.scalar_type cimport itemsize_of, ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32
from c10.tensor_impl cimport TensorImpl, MAX_DIMS
from aten.native.cpu.index_support cimport first_out_of_range, next_pos2
from aten.native.cpu.element_types cimport word_t, num_t
from aten.native.cpu.array_bridge cimport num_threads

cdef enum:
    # Elements a gather moves before it is split across threads (the loop engine's grain).
    _PARALLEL_GATHER = 32768


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


cdef inline void _row_move(word_t* dst, Py_ssize_t ds, const word_t* src, Py_ssize_t ss,
                           Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t j
    cdef word_t v
    if ds == 1 and ss == 1:
        memcpy(dst, src, n * sizeof(word_t))
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


cdef void _run3(word_t* s, word_t* o, num_t* sn, num_t* on, const Plan3* p, int mode, num_t alpha,
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
        itemsize = itemsize_of(st)
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


cdef class Offsets:
    """An owned int64 buffer (offsets per position b)."""
    def __dealloc__(self):
        free(self.data)


cdef Offsets new_offsets(Py_ssize_t n):
    cdef Offsets o = Offsets.__new__(Offsets)
    o.data = <int64_t*>malloc((n if n > 0 else 1) * sizeof(int64_t))
    if o.data == NULL:
        raise MemoryError()
    o.n = n
    return o


cdef int check_in_bounds(TensorImpl idx, Py_ssize_t n, Py_ssize_t size, bint allow_negative, int d, type error,
                         str prefix="") except -1:
    """PyTorch's error (of type error, its message after prefix) for the first of the n values of
    the contiguous int64 idx outside [0, size) (or [-size, size) when allow_negative)."""
    cdef Py_ssize_t bad
    with nogil:
        bad = first_out_of_range(<int64_t*>idx.data(), n, size, allow_negative)
    if bad >= 0:
        raise error(f"{prefix}index {(<int64_t*>idx.data())[bad]} is out of bounds for dimension {d} with size {size}")
    return 0
