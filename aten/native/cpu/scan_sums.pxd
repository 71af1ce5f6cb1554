from c10.tensor_impl cimport TensorImpl

# The scan kernels (cumsum/cumprod here, cummax/cummin/logcumsumexp in scan_extremes.pyx) share one
# iteration: a contiguous tensor read as (outer, n, inner) around the scanned dim, each outer slice
# scanned CHUNK inner positions at a time (their running values stay in L1, the inner loop is
# contiguous), outer slices spread over threads when the tensor is large.
cdef enum:
    CHUNK = 512            # inner positions scanned together
    PAR_MIN = 65536        # elements: below this one thread

cdef void scan_geometry(TensorImpl t, int d, Py_ssize_t* outer, Py_ssize_t* n, Py_ssize_t* inner) noexcept
cdef int scan_threads(Py_ssize_t n_elem, Py_ssize_t outer) except -1
