"""aten::resize_ on every backend: new sizes with contiguous strides, growing the storage when needed
(Storage.grow: a new host block, or a new block from the CUDA caching allocator)."""
from libc.stdint cimport uint64_t
from c10.dispatch_key cimport DK_AUTOGRAD_CPU, DK_AUTOGRAD_CUDA
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, sizes_from_sequence
from aten.native.meta.tensor_options import check_tensor_options


def resize_tensor_(TensorImpl self not None, size, memory_format=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    # As PyTorch, also under no_grad: a graph may hold this tensor's old shape.
    if self.key_set & (((<uint64_t>1) << DK_AUTOGRAD_CPU) | ((<uint64_t>1) << DK_AUTOGRAD_CUDA)):
        raise RuntimeError("cannot resize variables that require grad")
    cdef int ndim = sizes_from_sequence(size, sizes, "size")
    check_tensor_options(None, None, memory_format)
    self.resize(ndim, sizes)
    return self
