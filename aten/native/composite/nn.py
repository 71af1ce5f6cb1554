"""Neural-network composites (CompositeImplicitAutograd, as upstream): the public entry points
softmax, conv*, pooling, normalisation and losses, written over the kernels that carry the
work (_softmax, convolution, native_layer_norm, nll_loss_forward, ...). Argument checks that
upstream does at this level are done here, with its messages.
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite._pending_ops import op

_softmax = find_operator("_softmax")
_log_softmax = find_operator("_log_softmax")
_to_copy = op("_to_copy")


def _to(t: Any, dtype: Any) -> Any:
    return t if dtype is None or t.dtype is dtype else _to_copy(t, dtype=dtype)


def softmax(self: Any, dim: int, dtype: Any = None) -> Any:
    return _softmax(_to(self, dtype), dim, False)


def log_softmax(self: Any, dim: int, dtype: Any = None) -> Any:
    return _log_softmax(_to(self, dtype), dim, False)


# ---- convolution ----------------------------------------------------------------------------

_convolution = find_operator("convolution")
_constant_pad_nd = find_operator("constant_pad_nd")
_unsqueeze = op("unsqueeze")
_squeeze = op("squeeze.dim")

# caffe2::TypeMeta names, which upstream prints for dtypes inside C++ messages
_CPP_TYPES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
              "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double", "bool": "bool"}


def _expand(value: Any, n: int, name: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(value)}")
    return value


def _batchify(input: Any, spatial: int, name: str) -> tuple:
    if input.dim() != spatial + 1 and input.dim() != spatial + 2:
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but got "
                           f"input of size: {list(input._sizes())}")
    batched = input.dim() == spatial + 2
    return (input if batched else _unsqueeze(input, 0)), batched


def _check_bias_dtype(input: Any, bias: Any) -> None:
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_CPP_TYPES[input.dtype.name]}) and bias type ({_CPP_TYPES[bias.dtype.name]}) "
                           "should be the same")


def _conv(input: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any, groups: int,
          spatial: int, name: str) -> Any:
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, spatial, name)
    output = _convolution(batched_input, weight, bias, stride, padding, dilation, False, (0,), groups)
    return output if batched else _squeeze(output, 0)


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Any:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Any:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def _convolution_mode(input: Any, weight: Any, bias: Any, stride: Any, padding: str, dilation: Any,
                      groups: int) -> Any:
    dim = weight.dim() - 2
    stride, dilation = _expand(stride, dim, "stride"), _expand(dilation, dim, "dilation")
    if padding == "valid":
        return _convolution(input, weight, bias, stride, (0,) * dim, dilation, False, (0,), groups)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    ksizes = weight._sizes()[2:]
    left, right = [], []
    for i in range(dim):
        total = dilation[i] * (ksizes[i] - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    if left == right:
        return _convolution(input, weight, bias, stride, tuple(left), dilation, False, (0,), groups)
    # asymmetric: pad the extra amount on one side first (F.pad order: last dim first)
    pad_nd = [0] * (2 * dim)
    for i in range(dim):
        delta = right[i] - left[i]
        index = 2 * (dim - 1 - i)
        if delta > 0:
            pad_nd[index + 1] = delta
        else:
            pad_nd[index] = delta
            left[i] = right[i]
    padded = _constant_pad_nd(input, tuple(pad_nd), 0)
    return _convolution(padded, weight, bias, stride, tuple(left), dilation, False, (0,), groups)


def conv1d_padding(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: str = "valid",
                   dilation: Any = 1, groups: int = 1) -> Any:
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 1, "conv1d")
    output = _convolution_mode(batched_input, weight, bias, stride, padding, dilation, groups)
    return output if batched else _squeeze(output, 0)


def conv2d_padding(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: str = "valid",
                   dilation: Any = 1, groups: int = 1) -> Any:
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 2, "conv2d")
    output = _convolution_mode(batched_input, weight, bias, stride, padding, dilation, groups)
    return output if batched else _squeeze(output, 0)


def conv_transpose1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 1, "conv_transpose1d")
    output = _convolution(batched_input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return output if batched else _squeeze(output, 0)


def conv_transpose2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 2, "conv_transpose2d")
    output = _convolution(batched_input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return output if batched else _squeeze(output, 0)


# ---- padding --------------------------------------------------------------------------------

_PAD_OPS = {
    ("reflect", 1): "reflection_pad1d", ("replicate", 1): "replication_pad1d", ("circular", 1): "_pad_circular",
    ("reflect", 2): "reflection_pad2d", ("replicate", 2): "replication_pad2d", ("circular", 2): "_pad_circular",
}


def pad(self: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:
    pad = tuple(pad)
    ndim = self.dim()
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > ndim * 2:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {ndim}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return _constant_pad_nd(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if k in (1, 2) and ndim in (k + 1, k + 2):
        return find_operator(_PAD_OPS[(mode, k)])(self, pad)
    raise NotImplementedError(f"Padding size {len(pad)} is not supported for {ndim}D input tensor.")


# ---- pooling --------------------------------------------------------------------------------

_max_pool2d_with_indices = find_operator("max_pool2d_with_indices")
_adaptive_avg_pool2d = find_operator("_adaptive_avg_pool2d")


def max_pool2d(self: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Any:
    return _max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def adaptive_avg_pool2d(self: Any, output_size: Any) -> Any:
    output_size = tuple(output_size) if not isinstance(output_size, int) else (output_size,)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}}}")
    return _adaptive_avg_pool2d(self, output_size)
