"""Convolution's argument and shape checks (PyTorch's check_shape_forward and dtype checks, in its
order), and its stride, padding and dilation expanded to the weight's spatial dimensions; shared by
every backend."""
from c10.scalar_type cimport ST_BOOL
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport shape_of, type_name, cpp_type


cdef str spatial_text(tuple s, str sep=" x "):
    return "(" + sep.join([str(v) for v in s]) + ")"


cpdef tuple expand_param(object value, int n, str name):
    """An int or a sequence of ints as n ints (PyTorch's expand_param_if_needed)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(value)}")
    return value


cdef int _check(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding, tuple dilation,
                bint transposed, tuple output_padding, Py_ssize_t groups) except -1:
    """PyTorch's convolution checks (check_shape_forward and the dtype checks), in its order."""
    cdef int k = weight.nd - 2
    cdef int i
    cdef TensorImpl b
    ws = list(shape_of(weight))
    if any([d <= 0 for d in dilation]):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if any([p < 0 for p in padding]):
        raise RuntimeError("negative padding is not supported")
    if any([p < 0 for p in output_padding]):
        raise RuntimeError("negative output_padding is not supported")
    if any([s <= 0 for s in stride]):
        raise RuntimeError("non-positive stride is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if input.nd != weight.nd:
        raise RuntimeError(f"Expected {weight.nd}-dimensional input for {weight.nd}-dimensional weight {ws}, but got "
                           f"{input.nd}-dimensional input of size {list(shape_of(input))} instead")
    if weight.sizes[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if weight.sizes[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    if not transposed:
        if input.sizes[1] != weight.sizes[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{list(shape_of(input))} to "
                               f"have {weight.sizes[1] * groups} channels, but got {input.sizes[1]} channels instead")
        if bias is not None:
            b = <TensorImpl?>bias
            if b.nd != 1 or b.sizes[0] != weight.sizes[0]:
                raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with "
                                   f"{weight.sizes[0]} elements, but got bias of size {list(shape_of(b))} instead")
        padded = tuple([input.sizes[2 + i] + 2 * padding[i] for i in range(k)])
        kernel = tuple([dilation[i] * (weight.sizes[2 + i] - 1) + 1 for i in range(k)])
        if any([padded[i] < kernel[i] for i in range(k)]):
            raise RuntimeError(f"Calculated padded input size per channel: {spatial_text(padded)}. Kernel size: "
                               f"{spatial_text(kernel)}. Kernel size can't be greater than actual input size")
    else:
        if input.sizes[1] != weight.sizes[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{list(shape_of(input))} to "
                               f"have {weight.sizes[0]} channels, but got {input.sizes[1]} channels instead")
        if bias is not None:
            b = <TensorImpl?>bias
            if b.nd != 1 or b.sizes[0] != weight.sizes[1] * groups:
                raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                                   f"{weight.sizes[1] * groups} elements, but got bias of size {list(shape_of(b))} "
                                   "instead")
    if input.scalar_type != weight.scalar_type:
        raise RuntimeError(f"expected scalar type {type_name(input.scalar_type)} but found "
                           f"{type_name(weight.scalar_type)}")
    if bias is not None and (<TensorImpl>bias).scalar_type != input.scalar_type:
        raise RuntimeError(f"Input type ({cpp_type(input.scalar_type)}) and bias type "
                           f"({cpp_type((<TensorImpl>bias).scalar_type)}) should be the same")
    if input.scalar_type == ST_BOOL:
        kernel_name = "compute_columns3d" if k == 3 else "slow_conv2d_cpu"
        raise NotImplementedError(f'"{kernel_name}" not implemented for \'Bool\'')
    return 0


def convolution_params(TensorImpl input not None, TensorImpl weight not None, bias, stride, padding, dilation,
                       bint transposed, output_padding, Py_ssize_t groups):
    """PyTorch's convolution checks; (stride, padding, dilation, output_padding) expanded to the
    weight's spatial dimensions. The CUDA kernel (aten/native/cuda/conv.py) checks through it too."""
    cdef int k = weight.nd - 2
    if k < 1:
        raise RuntimeError(f"weight should have at least three dimensions")
    stride = expand_param(stride, k, "stride")
    padding = expand_param(padding, k, "padding")
    dilation = expand_param(dilation, k, "dilation")
    output_padding = expand_param(output_padding, k, "output_padding")
    _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    return stride, padding, dilation, output_padding


_AXES = {1: ("",), 2: ("height", "width"), 3: ("depth", "height", "width")}


cpdef tuple transposed_output_sizes(tuple sizes, tuple kernel, tuple stride, tuple padding, tuple dilation,
                                    tuple output_padding):
    """A transposed convolution's output size per spatial dimension, after PyTorch's checks (its
    messages for 1-, 2- and 3-D: slow_conv_transpose2d/3d's shape checks)."""
    cdef int k = len(sizes), d
    if any([output_padding[d] >= stride[d] and output_padding[d] >= dilation[d] for d in range(k)]):
        if k == 1:
            detail = f"output_padding: {output_padding[0]} stride: {stride[0]} dilation: {dilation[0]}"
        else:
            detail = " ".join([f"{name}_{axis}: {v}" for name, values in (("output_padding", output_padding),
                                                                         ("stride", stride), ("dilation", dilation))
                               for axis, v in zip(_AXES[k], values)])
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {detail}")
    outs = tuple([(sizes[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + output_padding[d] + 1
                  for d in range(k)])
    if any([s < 1 for s in outs]):
        raise RuntimeError(f"Given input size per channel: {spatial_text(sizes)}. Calculated output size per "
                           f"channel: {spatial_text(outs)}. Output size is too small")
    return outs
