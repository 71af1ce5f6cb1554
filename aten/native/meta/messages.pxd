# How PyTorch's messages print dtypes and shapes, for the checks of every backend.
from c10.tensor_impl cimport TensorImpl

cdef str type_name(int scalar_type)
cdef str cpp_type(int scalar_type)
cdef str sizes_str(TensorImpl t)
cdef tuple shape_of(TensorImpl t)
