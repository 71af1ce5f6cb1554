"""The argument checks of batch, layer and group norm that every backend runs: feature counts,
dtypes of the input and its parameters, with PyTorch's messages."""
from c10.scalar_type cimport ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport shape_of, type_name


cdef int dtype_check(str op, TensorImpl input) except -1:
    if input.scalar_type != ST_FLOAT32 and input.scalar_type != ST_FLOAT64:
        raise NotImplementedError(f'"{op}" not implemented for \'{type_name(input.scalar_type)}\'')
    return 0


cdef int param_dtype(TensorImpl input, object param) except -1:
    if param is None:
        return 0
    cdef TensorImpl p = <TensorImpl?>param
    if p.scalar_type != input.scalar_type:
        if input.scalar_type == ST_FLOAT32:
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return 0


cdef int _check_features(str name, object t, Py_ssize_t C) except -1:
    if t is not None and (<TensorImpl?>t).n_elem != C:
        raise RuntimeError(f"{name} should contain {C} elements not {(<TensorImpl>t).n_elem}")
    return 0


def check_batch_norm(TensorImpl input not None, weight, bias, running_mean, running_var, bint training):
    """PyTorch's native_batch_norm argument checks (the portable kernel checks through it too)."""
    if input.nd < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.nd, 1)}, "
                         f"{max(input.nd, 1) - 1}], but got 1)")
    cdef Py_ssize_t C = input.sizes[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is None and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        _check_features(name, t, C)
    _check_features("weight", weight, C)
    _check_features("bias", bias, C)
    dtype_check("batch_norm", input)
    for t in (weight, bias, running_mean, running_var):
        param_dtype(input, t)
    if input.n_elem == 0:
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes = "
                           f"{list(shape_of(input))}")


def check_group_norm(TensorImpl input not None, weight, bias, Py_ssize_t N, Py_ssize_t C, Py_ssize_t HxW,
                     Py_ssize_t group):
    """PyTorch's native_group_norm argument checks (the portable kernel checks through it too)."""
    if group <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {group}")
    if C % group != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(shape_of(input))} and num_groups={group}")
    if input.n_elem != N * C * HxW:
        raise RuntimeError(f"Expected the input to have {N * C * HxW} elements (N={N}, C={C}, HxW={HxW}), but got "
                           f"input of shape {list(shape_of(input))}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and ((<TensorImpl?>t).nd != 1 or (<TensorImpl>t).n_elem != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(shape_of(t))} and input of shape "
                               f"{list(shape_of(input))}")
    dtype_check("GroupNormKernelImpl", input)
    param_dtype(input, weight)
    param_dtype(input, bias)


def check_norm_shapes(TensorImpl input not None, normalized_shape, weight, bias=None, bint rms=False):
    """layer_norm's and rms_norm's shape checks (PyTorch's _check_layer_norm_inputs): normalized_shape
    as a tuple, after checking it against weight, bias and input's trailing dims (rms_norm's message
    writes the expected shape without layer_norm's comma after the star)."""
    normalized = tuple(normalized_shape)
    cdef Py_ssize_t k = len(normalized)
    if k < 1:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(normalized)}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and shape_of(<TensorImpl?>param) != normalized:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(shape_of(param))} and normalized_shape = {list(normalized)}")
    shape = shape_of(input)
    if input.nd < k or shape[input.nd - k:] != normalized:
        dims = ", ".join([str(s) for s in normalized]) if rms else "".join([f", {s}" for s in normalized])
        raise RuntimeError(f"Given normalized_shape={list(normalized)}, expected input with shape [*{dims}], but got "
                           f"input of size{list(shape)}")
    return normalized
