from c10.tensor_impl cimport TensorImpl

# `reduction` is upstream's enum (at::Reduction).
cdef enum:
    NONE = 0
    MEAN = 1
    SUM = 2

cdef int check_reduction(object reduction) except -1
cdef tuple broadcast_pair(TensorImpl a, TensorImpl b)
cpdef int check_nll_loss2d(TensorImpl self, TensorImpl target) except -1
cpdef int check_binary_cross_entropy(TensorImpl self, TensorImpl target, object weight, int reduction) except -1
