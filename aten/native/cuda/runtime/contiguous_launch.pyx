"""The common pointwise launch in C (aten/native/cuda/pointwise.launch): every operand a contiguous
CUDA tensor of the compute dtype and of the result's shape, and the result a new tensor or an
in-place target it may write straight into. Fields are read off the TensorImpls directly and the
prepared kernel is looked up once per (kernel, operand count, scalar count); anything else
(broadcasting, strides, conversions, numbers from the host, complex scalars) is left to
pointwise.launch's general path."""
from c10.scalar_type cimport dtype
from c10.tensor_impl cimport TensorImpl, empty_contiguous

cdef enum:
    BLOCK = 256             # runtime/launch.py's grid_for: a grid-stride loop
    MAX_BLOCKS = 65535

cdef dict _kernels = {}


cdef bint _same_layout(TensorImpl t, TensorImpl like, int scalar_type) noexcept:
    """t a contiguous tensor on like's device, of like's sizes and of scalar_type."""
    cdef int d
    if t.device_type != like.device_type or t.scalar_type != scalar_type or not t.contiguous or t.nd != like.nd:
        return False
    for d in range(like.nd):
        if t.sizes[d] != like.sizes[d]:
            return False
    return True


cdef bint _apart_or_same(TensorImpl t, TensorImpl target) noexcept:
    """A kernel may write target while reading t: t is target's memory exactly or none of it."""
    cdef char* start = t.data()
    cdef char* end = start + t.n_elem * t.itemsize
    cdef char* t_start = target.data()
    cdef char* t_end = t_start + target.n_elem * target.itemsize
    return start == t_start or end <= t_start or t_end <= start


def contiguous_launch(str source, str cname, tuple tensors, tuple scalars, dtype compute, dtype out_dtype,
                      object into, object kernel_for):
    """The op's result, or None where the general path must launch. kernel_for(source, cname,
    compute, operands, scalars) gives the prepared kernel and the type its scalars are passed as."""
    cdef TensorImpl first, out
    cdef Py_ssize_t n, k
    if compute.is_complex or not tensors:
        return None
    first = <TensorImpl?>tensors[0]
    if first.device_type == 0:
        return None
    for k in range(len(tensors)):
        if not _same_layout(<TensorImpl?>tensors[k], first, compute.scalar_type):
            return None
    if into is not None:
        out = <TensorImpl?>into
        if not _same_layout(out, first, out_dtype.scalar_type):
            return None
        for k in range(len(tensors)):
            if not _apart_or_same(<TensorImpl>tensors[k], out):
                return None
    else:
        out = empty_contiguous(first.nd, first.sizes, out_dtype.scalar_type, first.device_obj)
    n = out.n_elem
    if n == 0:
        return out
    key = (source, cname, compute, len(tensors), len(scalars))
    found = _kernels.get(key)
    if found is None:
        found = _kernels[key] = kernel_for(source, cname, compute, len(tensors), len(scalars))
    kernel, scalar_type_ = found
    args = [n, <size_t>out.data()]
    for k in range(len(tensors)):
        args.append(<size_t>(<TensorImpl>tensors[k]).data())
    for value in scalars:
        args.append(scalar_type_(value))
    kernel.prepared_call((min((n + BLOCK - 1) // BLOCK, MAX_BLOCKS), 1, 1), (BLOCK, 1, 1), *args)
    return out
