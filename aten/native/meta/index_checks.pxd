from c10.tensor_impl cimport TensorImpl

cpdef int check_index_copy(TensorImpl self, int d, TensorImpl index, TensorImpl source) except -1
