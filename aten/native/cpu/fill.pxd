from libc.stdint cimport uint64_t
from c10.tensor_impl cimport TensorImpl

cdef int fill_pattern(object value, int scalar_type, uint64_t* out) except -1
cdef int fill_bits(TensorImpl t, uint64_t pattern) except -1
cdef int fill_value(TensorImpl t, object value) except -1
cdef int zero_fill(TensorImpl t) except -1
