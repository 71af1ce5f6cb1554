# libstdc++'s sorting algorithms over parallel arrays (values k, original indices v), as PyTorch's CPU
# kernels run them, for the sorting (sorting.pyx) and unique (unique.pyx) kernels.
from libc.stdint cimport int64_t
from aten.native.cpu.element_types cimport num_t

cdef enum:
    C_ASC = 0           # (!isnan(a) && isnan(b)) || a < b        sort, topk(largest=False)
    C_DESC = 1          # (isnan(a) && !isnan(b)) || a > b        sort(descending), topk
    C_PLAIN = 2         # a < b                                    mode
    C_MED = 3           # a < b || (a == b && i < j)               median
    C_NANMED = 4        # C_MED || (isnan(b) && !isnan(a))         nanmedian
    C_ASC_STABLE = 5    # C_ASC, ties by original index
    C_DESC_STABLE = 6   # C_DESC, ties by original index

    RADIX_MIN = 64      # integer stable sorts from this length use radix_sort

cdef void std_sort(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t last, int mode) noexcept nogil
cdef void std_partial_sort(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t middle, Py_ssize_t last,
                           int mode) noexcept nogil
cdef void std_nth_element(num_t* k, int64_t* v, Py_ssize_t first, Py_ssize_t nth, Py_ssize_t last,
                          int mode) noexcept nogil
cdef void quick_select(num_t* arr, int64_t* idx, Py_ssize_t n, Py_ssize_t kth) noexcept nogil
cdef void radix_sort(num_t* k, int64_t* v, num_t* k2, int64_t* v2, Py_ssize_t n, bint descending) noexcept nogil


cdef class ScratchBuffers:
    cdef void* p[8]

cdef ScratchBuffers scratch_buffers(Py_ssize_t n, int count)
