# View metadata shared by the view kernels (views.pyx) and the copy kernels (shape.pyx).
from c10.tensor_impl cimport TensorImpl

cdef int wrap_dim(Py_ssize_t dim, int ndim, bint wrap_scalar=*) except -1
cdef TensorImpl alias_with(TensorImpl base, int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                           Py_ssize_t offset)
cdef TensorImpl narrow_view(TensorImpl self, int dim, Py_ssize_t start, Py_ssize_t length)
cdef bint non_overlapping_and_dense(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept
cdef void dense_strides_like(TensorImpl t, Py_ssize_t* out) noexcept
cdef int format_strides(TensorImpl t, object memory_format, str op, Py_ssize_t* out) except -1
cdef void contiguous_strides(int ndim, const Py_ssize_t* sizes, Py_ssize_t* out) noexcept
cdef str sizes_str(int ndim, const Py_ssize_t* values)
