from c10.tensor_impl cimport TensorImpl

cdef int dtype_check(str op, TensorImpl input) except -1
cdef int param_dtype(TensorImpl input, object param) except -1
