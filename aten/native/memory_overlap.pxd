# Memory overlap between and within tensors (ATen's MemoryOverlap), for every device: what an
# in-place or out= write must check before it runs.
from c10.tensor_impl cimport TensorImpl

cdef enum MemOverlap:
    OVERLAP_NO
    OVERLAP_YES
    OVERLAP_TOO_HARD

cdef MemOverlap has_internal_overlap(TensorImpl t) noexcept
cpdef int assert_no_internal_overlap(TensorImpl t) except -1
cpdef int check_no_partial_overlap(TensorImpl out, TensorImpl t) except -1

cdef class WrittenArg:
    cdef Py_ssize_t position        # in the schema's argument order (keyword-only ones included)
    cdef str name
    cdef int policy
    cdef str op                     # the op's base name, for warnings

cdef int check_written(tuple written, tuple args, dict kwargs) except -1
