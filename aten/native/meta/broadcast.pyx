"""Broadcasting: the shape operands of a pointwise op expand to, with PyTorch's error."""
from c10.tensor_impl cimport TensorImpl, MAX_DIMS


cdef int broadcast_shape(tuple inputs, Py_ssize_t* out_sizes) except -1:
    """Write the broadcast shape of inputs into out_sizes; returns its ndim."""
    cdef int ndim = 0, i, j, d
    cdef TensorImpl t
    cdef Py_ssize_t s, o
    for obj in inputs:
        if (<TensorImpl>obj).nd > ndim:
            ndim = (<TensorImpl>obj).nd
    for i in range(ndim):
        out_sizes[i] = 1
    for j, obj in enumerate(inputs):
        t = <TensorImpl>obj
        for i in range(t.nd):
            d = ndim - t.nd + i
            s = t.sizes[i]
            o = out_sizes[d]
            if o == s or s == 1:
                continue
            if o == 1:
                out_sizes[d] = s
                continue
            raise RuntimeError(
                f"The size of tensor a ({o}) must match the size of tensor b ({s}) at non-singleton dimension {d}")
    return ndim


def broadcast_shapes(*tensors):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int n = broadcast_shape(tensors, sizes)
    return tuple([sizes[i] for i in range(n)])
