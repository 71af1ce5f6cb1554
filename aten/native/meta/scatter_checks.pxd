from c10.tensor_impl cimport TensorImpl

cdef enum:
    R_NONE = 0      # plain write
    R_ADD = 1
    R_MUL = 2
    R_MAX = 3
    R_MIN = 4

# A zero-dim tensor as one element of rank 1 (inline: the CPU loop plans with them too).
cdef inline int ndim1(TensorImpl t):
    return t.nd if t.nd > 0 else 1


cdef inline Py_ssize_t size1(TensorImpl t, int d):
    return t.sizes[d] if t.nd > 0 else 1


cpdef int scatter_reduce_op(object reduce, bint new_options) except -1
cpdef object scatter_identity(str reduce, int st)
