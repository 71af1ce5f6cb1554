"""The common pointwise launches in C (aten/native/cuda/pointwise.launch): every operand a
contiguous CUDA tensor of the compute dtype and of the result's shape, or a single value (a 0-dim
CUDA tensor of that dtype, or a number from the host, kept on the device by scalar_for), and the
result a new tensor or an in-place target it may write straight into. Fields are read off the
TensorImpls directly; the prepared kernels are looked up once per (kernel, operand count, scalar
count), and a launch with single values takes the strided kernel, its shapes and strides kept on
the device by meta_for. Anything else (broadcasting, strides, conversions, complex scalars) is
left to pointwise.launch's general path."""
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
    """A kernel may write target while reading t: t is target's memory exactly (each element read
    and written by one thread) or none of it."""
    cdef char* start = t.data()
    cdef char* end = start + t.n_elem * t.itemsize
    cdef char* t_start = target.data()
    cdef char* t_end = t_start + target.n_elem * target.itemsize
    if start == t_start and t.n_elem == target.n_elem and t.itemsize == target.itemsize:
        return True
    return end <= t_start or t_end <= start


def contiguous_launch(str source, str cname, tuple tensors, tuple scalars, dtype compute, dtype out_dtype,
                      object into, object kernel_for, object scalar_for, object meta_for):
    """The op's result, or None where the general path must launch. kernel_for(source, cname,
    compute, operands, scalars, strided) gives the prepared kernel and the type its scalars are
    passed as; scalar_for(t, compute) a host number on the device; meta_for(values) the device copy
    of a strided kernel's shapes and strides."""
    cdef TensorImpl first = None, out, t
    cdef Py_ssize_t n, k, d
    cdef bint single = False
    cdef list operands = list(tensors)
    if compute.is_complex or not operands:
        return None
    for k in range(len(operands)):          # the operand giving the result's shape
        if (<TensorImpl?>operands[k]).nd != 0:
            first = <TensorImpl>operands[k]
            break
    else:
        first = <TensorImpl>operands[0]
    if first.device_type == 0:
        return None
    for k in range(len(operands)):
        t = <TensorImpl>operands[k]
        if t.device_type == 0:              # a number from the host (the general path refuses the rest)
            if t.nd != 0:
                return None
            t = operands[k] = scalar_for(t, compute)
        if t.nd == 0 and first.nd != 0:
            if t.device_type != first.device_type or t.scalar_type != compute.scalar_type:
                return None
            single = True
        elif not _same_layout(t, first, compute.scalar_type):
            return None
    if into is not None:
        out = <TensorImpl?>into
        if not _same_layout(out, first, out_dtype.scalar_type):
            return None
        for k in range(len(operands)):
            if not _apart_or_same(<TensorImpl>operands[k], out):
                return None
    else:
        out = empty_contiguous(first.nd, first.sizes, out_dtype.scalar_type, first.device_obj)
    n = out.n_elem
    if n == 0:
        return out
    key = (source, cname, compute, len(operands), len(scalars), single)
    found = _kernels.get(key)
    if found is None:
        found = _kernels[key] = kernel_for(source, cname, compute, len(operands), len(scalars), single)
    kernel, scalar_type_ = found
    args = [n]
    if single:                  # the strided kernel: each single value read with strides 0
        meta = [first.nd]
        for d in range(first.nd):
            meta.append(first.sizes[d])
        for d in range(first.nd):
            meta.append(out.strides[d] * out.itemsize)
        for k in range(len(operands)):
            t = <TensorImpl>operands[k]
            for d in range(first.nd):
                meta.append(0 if t.nd == 0 else t.strides[d] * t.itemsize)
        args.append(int(meta_for(meta)))
    args.append(<size_t>out.data())
    for k in range(len(operands)):
        args.append(<size_t>(<TensorImpl>operands[k]).data())
    for value in scalars:
        args.append(scalar_type_(value))
    kernel.prepared_call((min((n + BLOCK - 1) // BLOCK, MAX_BLOCKS), 1, 1), (BLOCK, 1, 1), *args)
    return out
