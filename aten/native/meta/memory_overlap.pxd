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

cdef enum:
    MAX_CHECKED = 16                # written, and read, tensor arguments of one operator at most

cdef class WriteChecks:
    cdef str op                     # the base name, for warnings
    cdef int policy                 # what an internal overlap of a written argument does
    cdef int ntargets, ninputs
    cdef Py_ssize_t target_pos[MAX_CHECKED]     # Tensor(a!) arguments (schema positions, keyword-only ones too)
    cdef Py_ssize_t input_pos[MAX_CHECKED]      # the Tensor, Tensor? and Tensor[] arguments read
    cdef tuple target_names, input_names        # for arguments passed by keyword

cdef int check_written(WriteChecks checks, tuple args, dict kwargs) except -1
