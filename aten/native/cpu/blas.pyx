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
single-threaded (small_gemm + blas_single_threaded), at the cost of the second thread on
mid-sized products (256^3: 372 us instead of 205 us idle); larger ones keep BLAS's threads.
Where NumPy's BLAS is another library, nothing is found and everything goes through np.matmul.
"""
import numpy as np

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
