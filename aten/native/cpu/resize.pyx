"""aten::resize_ on CPU: new sizes with contiguous strides, growing the storage when needed."""
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, sizes_from_sequence
from aten.native.cpu.empty import check_tensor_options


def resize_cpu_(TensorImpl self not None, size, memory_format=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(size, sizes, "size")
    check_tensor_options(None, None, memory_format)
    self.resize(ndim, sizes)
    return self
