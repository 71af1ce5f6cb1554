# The NumPy bridge of the kernels that compute through NumPy (linalg.pyx, conv.pyx, norm.pyx, nn_*.pyx).
from c10.tensor_impl cimport TensorImpl

cdef object np_view(TensorImpl t)
cdef TensorImpl new_tensor(tuple shape, int scalar_type)
# A new tensor of scalar_type holding a NumPy result (converted as C converts).
cdef TensorImpl tensor_of(object array, int scalar_type)
cdef object np_bits(TensorImpl t)
cdef int reject_half(str op, TensorImpl t) except -1
cdef int require_floating(str op, TensorImpl t) except -1
cdef TensorImpl contiguous(TensorImpl t)
cdef int num_threads() noexcept
