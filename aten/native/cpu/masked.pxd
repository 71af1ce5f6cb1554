from c10.tensor_impl cimport TensorImpl

cdef TensorImpl nonzero_of(TensorImpl t)
