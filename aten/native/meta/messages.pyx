"""How PyTorch's messages print dtypes and shapes, for the checks of every backend."""
from c10.scalar_type cimport dtype_of
from c10.tensor_impl cimport TensorImpl, sizes_text

from c10.scalar_type import CPP_TYPE_NAMES

cdef dict _CPP_TYPE_NAMES = CPP_TYPE_NAMES


cdef str type_name(int scalar_type):
    """PyTorch's toString() of a scalar type: Float, Long, Bool ..."""
    return dtype_of(scalar_type).type_name


cdef str cpp_type(int scalar_type):
    """c10's TypeMeta name: float, long int, c10::Half ..."""
    return _CPP_TYPE_NAMES[dtype_of(scalar_type).name]


cdef str sizes_str(TensorImpl t):
    return sizes_text(t.nd, t.sizes)


cdef tuple shape_of(TensorImpl t):
    return tuple([t.sizes[i] for i in range(t.nd)])
