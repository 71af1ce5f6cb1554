"""NumPy's OpenBLAS, found through NumPy's own extension module (the ILP64 CBLAS interface its
wheels bundle): its GEMMs for kernels that call BLAS from their own loops (conv.pyx), and its
thread count, which is one global setting.

Why the thread count matters: OpenBLAS hands a GEMM above its own small threshold to its worker
threads, which busy-wait between calls, as do the OpenMP threads of Ember's own loops. On 2 cores
shared with other processes, a worker that is not scheduled stalls the whole product (a
64x64x256 GEMM: 23 us idle, milliseconds under load), and BLAS's spinning workers and the next
OpenMP region fight for the cores (the char transformer step of examples/char_gpt.py: 130 ms with
both pools at 2 threads, 14.7 ms with BLAS single-threaded below 2^26 multiply-adds; PyTorch,
whose BLAS shares its OpenMP pool, 9.5 ms). So GEMMs below SMALL_GEMM_MACS (a 400^3 product) run
single-threaded (small_gemm + blas_single_threaded); larger ones keep BLAS's threads.
Float mm/bmm/addmm/baddbmm (linalg.pyx) instead split the work across Ember's own OpenMP threads,
each calling BLAS single-threaded (run_gemm, like conv.pyx's tasks), so the second core serves
mid-sized products too (char_gpt's step: 14.7 -> 11 ms; 512x64x256: 218 -> 121 us).
Where NumPy's BLAS is another library, nothing is found and everything goes through np.matmul.
"""
import numpy as np
from cython.parallel cimport prange
from libc.string cimport memcpy
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

cdef extern from "dlfcn.h" nogil:
    void* dlopen(const char* filename, int flags)
    void* dlsym(void* handle, const char* symbol)
    int RTLD_LAZY
    int RTLD_NOLOAD

ctypedef void (*set_threads_t)(int n) noexcept nogil
ctypedef int (*get_threads_t)() noexcept nogil

cdef enum:
    SMALL_GEMM_MACS = 1 << 26      # m * n * k below which a GEMM runs single-threaded (see above)

cdef sgemm_t _sgemm = NULL
cdef dgemm_t _dgemm = NULL
cdef set_threads_t _set_threads = NULL
cdef get_threads_t _get_threads = NULL
cdef int _users = 0, _saved_threads = 1


cdef void _find_blas():
    global _sgemm, _dgemm, _set_threads, _get_threads
    cdef void* handle
    cdef void* s
    cdef void* d
    cdef void* st
    cdef void* gt
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    path = getattr(getattr(core, "_multiarray_umath", None), "__file__", None)
    if not path:
        return
    handle = dlopen(path.encode(), RTLD_LAZY | RTLD_NOLOAD)
    if handle == NULL:
        return
    for prefix in (b"scipy_", b""):
        s = dlsym(handle, prefix + b"cblas_sgemm64_")
        d = dlsym(handle, prefix + b"cblas_dgemm64_")
        st = dlsym(handle, prefix + b"openblas_set_num_threads64_")
        gt = dlsym(handle, prefix + b"openblas_get_num_threads64_")
        if s != NULL and d != NULL and st != NULL and gt != NULL:
            _sgemm = <sgemm_t>s
            _dgemm = <dgemm_t>d
            _set_threads = <set_threads_t>st
            _get_threads = <get_threads_t>gt
            return


_find_blas()


cdef sgemm_t blas_sgemm() noexcept:
    return _sgemm


cdef dgemm_t blas_dgemm() noexcept:
    return _dgemm


cdef void blas_single_threaded(bint enter) noexcept:
    """BLAS's thread count is global: 1 while any caller is inside a single-threaded section, back
    to what it was when the last one leaves (under the GIL, so concurrent callers from several
    Python threads neither race nor leave it at 1)."""
    global _users, _saved_threads
    if _set_threads == NULL:
        return
    if enter:
        if _users == 0:
            _saved_threads = _get_threads()
            if _saved_threads != 1:
                _set_threads(1)
        _users += 1
    else:
        _users -= 1
        if _users == 0 and _saved_threads != 1:
            _set_threads(_saved_threads)


cdef bint small_gemm(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) noexcept:
    return <double>m * <double>n * <double>k < SMALL_GEMM_MACS


def blas_threads():
    """BLAS's current thread count (None where NumPy's BLAS was not found): for tests."""
    return _get_threads() if _get_threads != NULL else None


# ---- GEMMs split across Ember's own OpenMP threads ----

cdef enum:
    PARALLEL_GEMM_MACS = 1 << 18   # below this a GEMM (all batches) is cheaper than waking a thread


cdef bint _operand(Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t rs, Py_ssize_t cs, int* trans,
                   Py_ssize_t* ld) noexcept nogil:
    """How BLAS reads a rows x cols matrix with element strides (rs, cs): row-major (ld = rs) or
    column-major, i.e. transposed (ld = cs); False when neither. A dimension of size 1 has no
    meaningful stride, so it is given the one BLAS's leading-dimension check wants."""
    if rows == 1:
        rs = cols if cols > 1 else 1
    if cols == 1:
        cs = 1
        if rows == 1:
            rs = 1
    if cs == 1 and rs >= (cols if cols > 1 else 1):
        trans[0] = CBLAS_NO_TRANS
        ld[0] = rs
        return True
    if rs == 1 and cs >= (rows if rows > 1 else 1):
        trans[0] = CBLAS_TRANS
        ld[0] = cs
        return True
    return False


cdef bint gemm_plan(GemmPlan* p, Py_ssize_t batch, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k,
                    const Py_ssize_t* a_strides, const Py_ssize_t* b_strides) noexcept nogil:
    """Fills p's shape and operand layouts from (batch, row, column) element strides of A (m x k)
    and B (k x n); the result is contiguous (batch, m, n). False where BLAS cannot read an operand
    in place (the caller copies it) or BLAS was not found."""
    if _sgemm == NULL:
        return False
    p.batch, p.m, p.n, p.k = batch, m, n, k
    p.alpha, p.beta = 1.0, 0.0
    p.row = NULL
    p.epilogue, p.epilogue_args = NULL, NULL
    p.a_batch, p.b_batch = a_strides[0], b_strides[0]
    p.a_rs, p.b_cs = a_strides[1], b_strides[2]
    return (_operand(m, k, a_strides[1], a_strides[2], &p.ta, &p.lda)
            and _operand(k, n, b_strides[1], b_strides[2], &p.tb, &p.ldb))


cdef inline void _fill_rows(const GemmPlan* p, char* c, Py_ssize_t rows, Py_ssize_t lo, Py_ssize_t cols,
                            Py_ssize_t size) noexcept nogil:
    """p.row's columns lo..lo+cols written into `rows` rows of C from c (rows p.n apart): an addmm's bias
    broadcast by the thread that then accumulates its band of the product onto it, while the band is in
    its cache, rather than by a separate single-threaded pass over the whole output first."""
    cdef Py_ssize_t r
    if p.row != NULL:
        for r in range(rows):
            memcpy(c + r * p.n * size, p.row + lo * size, cols * size)


cdef inline void _band(const GemmPlan* p, bint dbl, const char* pa, const char* pb, char* pc, Py_ssize_t m,
                       Py_ssize_t n, Py_ssize_t col, Py_ssize_t size) noexcept nogil:
    """Rows (columns) of one product: m x n of C at pc, its columns from col (C's rows are p.n apart)."""
    _fill_rows(p, pc, m, col, n, size)
    if dbl:
        _dgemm(CBLAS_ROW_MAJOR, p.ta, p.tb, m, n, p.k, p.alpha, <const double*>pa, p.lda, <const double*>pb,
               p.ldb, p.beta, <double*>pc, p.n)
    else:
        _sgemm(CBLAS_ROW_MAJOR, p.ta, p.tb, m, n, p.k, <float>p.alpha, <const float*>pa, p.lda,
               <const float*>pb, p.ldb, <float>p.beta, <float*>pc, p.n)


cdef void _gemm_piece(const GemmPlan* p, bint dbl, const char* a, const char* b, char* c, Py_ssize_t t,
                      Py_ssize_t pieces) noexcept nogil:
    """Piece t of `pieces`: a run of whole batches, or of rows (columns) of a single product."""
    cdef Py_ssize_t lo, hi, i, col, size = 4 if not dbl else 8
    cdef Py_ssize_t m = p.m, n = p.n
    cdef const char* pa
    cdef const char* pb
    cdef char* pc
    if p.batch >= pieces:
        lo, hi = p.batch * t // pieces, p.batch * (t + 1) // pieces
        for i in range(lo, hi):
            pa = a + i * p.a_batch * size
            pb = b + i * p.b_batch * size
            pc = c + i * m * n * size
            _band(p, dbl, pa, pb, pc, m, n, 0, size)
            if p.epilogue != NULL:
                p.epilogue(p.epilogue_args, i * m, (i + 1) * m, 0, n)
        return
    # one product (batch is 1 here): a band of output rows, or of columns when there are few rows
    if m >= n:
        lo, hi = m * t // pieces, m * (t + 1) // pieces
        pa, pb, pc = a + lo * p.a_rs * size, b, c + lo * n * size
        m, col = hi - lo, 0
    else:
        lo, hi = n * t // pieces, n * (t + 1) // pieces
        pa, pb, pc = a, b + lo * p.b_cs * size, c + lo * size
        n, col = hi - lo, lo
    if m == 0 or n == 0:
        return
    _band(p, dbl, pa, pb, pc, m, n, col, size)
    # (the epilogue runs on the whole piece: splitting the product further into tiles that stay in the cache costs
    # BLAS more, in packing its operands again for each, than the cache saves: 2048x512x2048, 14.7 -> 18.3 ms)
    if p.epilogue != NULL:
        if n == p.n:
            p.epilogue(p.epilogue_args, lo, lo + m, 0, n)
        else:
            p.epilogue(p.epilogue_args, 0, m, col, col + n)


cdef enum:
    MAX_PIECES = 256
    LATE_STREAK = 3         # split products in a row whose helper thread started late ...
    SERIAL_CALLS = 200      # ... make this many products run on the calling thread alone

cdef int _late_streak = 0
cdef int _serial_left = 0


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef void run_gemm(const GemmPlan* p, bint dbl, const char* a, const char* b, char* c,
                   int nthreads) noexcept nogil:
    """C = A @ B for each batch, with BLAS single-threaded inside and the work split across up to
    nthreads of Ember's OpenMP threads: whole batches per thread, else bands of one product. The
    caller holds blas_single_threaded (blas.pyx's docstring says why BLAS's own pool is avoided).

    A split pays only while the other threads get a core: on a machine busy with other processes
    a descheduled thread holds the whole product up for milliseconds (train_digits.py's epoch:
    25 ms alone, 150 ms beside a compiler on both cores). So each split product's wall time is
    compared with its longest piece; after LATE_STREAK products in a row whose pieces started late
    the next SERIAL_CALLS run on the calling thread, then splitting is tried again."""
    global _late_streak, _serial_left
    cdef Py_ssize_t t, pieces = nthreads
    cdef double macs = <double>p.batch * p.m * p.n * p.k
    cdef double start, begun, total, longest = 0
    cdef double took[MAX_PIECES]
    if p.batch > 1:
        if pieces > p.batch:
            pieces = p.batch
    elif (p.m if p.m >= p.n else p.n) < 2 * pieces:
        pieces = 1
    if pieces > MAX_PIECES:
        pieces = MAX_PIECES
    if macs < PARALLEL_GEMM_MACS or pieces <= 1 or _serial_left > 0:
        if _serial_left > 0 and macs >= PARALLEL_GEMM_MACS:
            _serial_left -= 1
        _gemm_piece(p, dbl, a, b, c, 0, 1)
        return
    start = _now()
    for t in prange(pieces, schedule="static", num_threads=pieces):
        begun = _now()
        _gemm_piece(p, dbl, a, b, c, t, pieces)
        took[t] = _now() - begun
    total = _now() - start
    for t in range(pieces):
        if took[t] > longest:
            longest = took[t]
    if total > 2 * longest + 50e-6:
        _late_streak += 1
        if _late_streak >= LATE_STREAK:
            _late_streak = 0
            _serial_left = SERIAL_CALLS
    else:
        _late_streak = 0


def gemm_split_state():
    """(products in a row split late, products still to run unsplit): for tests."""
    return _late_streak, _serial_left
