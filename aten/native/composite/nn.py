"""Neural-network composites (CompositeImplicitAutograd, as upstream): the public entry points
softmax, conv*, pooling, normalisation and losses, written over the kernels that carry the
work (_softmax, convolution, native_layer_norm, nll_loss_forward, ...). Argument checks that
upstream does at this level are done here, with its messages.
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.losses import MEAN, NONE, SUM
from aten.native.meta.conv_geometry import expand_param
from aten.native.meta.norm_checks import check_norm_shapes
from c10.scalar_type import CPP_TYPE_NAMES, dtype_from_name
from c10.tensor_impl import TensorImpl

_BOOL = dtype_from_name("bool")

_softmax = find_operator("_softmax")
_log_softmax = find_operator("_log_softmax")
_empty = find_operator("empty.memory_format")
_copy = find_operator("copy_")


def _to_copy(t: Any, dtype: Any = None) -> Any:
    """A copy of t (converted to dtype): upstream's _to_copy."""
    return _copy(_empty(t._sizes(), dtype=t.dtype if dtype is None else dtype, device=t.device), t)


def _to(t: Any, dtype: Any) -> Any:
    return t if dtype is None or t.dtype is dtype else _to_copy(t, dtype)


def softmax(self: Any, dim: int, dtype: Any = None) -> Any:
    return _softmax(_to(self, dtype), dim, False)


def log_softmax(self: Any, dim: int, dtype: Any = None) -> Any:
    return _log_softmax(_to(self, dtype), dim, False)


_sub = find_operator("sub.Tensor")
_exp = find_operator("exp")


def softmax_backward_data(grad_output: Any, output: Any, dim: int, input_dtype: Any) -> Any:
    """output * (grad - sum(grad * output)) along dim, in input_dtype (the CPU kernel's formula)."""
    inner = _sum_dim(_mul(grad_output, output), [dim], True)
    return _to(_mul(output, _sub(grad_output, inner)), input_dtype)


def log_softmax_backward_data(grad_output: Any, output: Any, dim: int, input_dtype: Any) -> Any:
    """grad - exp(output) * sum(grad) along dim, in input_dtype."""
    total = _sum_dim(grad_output, [dim], True)
    return _to(_sub(grad_output, _mul(_exp(output), total)), input_dtype)


# ---- convolution ----------------------------------------------------------------------------

_convolution = find_operator("convolution")
_constant_pad_nd = find_operator("constant_pad_nd")
_unsqueeze = find_operator("unsqueeze")
_squeeze = find_operator("squeeze.dim")



def _batchify(input: Any, spatial: int, name: str) -> tuple[Any, ...]:
    if input.dim() != spatial + 1 and input.dim() != spatial + 2:
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but got "
                           f"input of size: {list(input._sizes())}")
    batched = input.dim() == spatial + 2
    return (input if batched else _unsqueeze(input, 0)), batched


def _check_bias_dtype(input: Any, bias: Any) -> None:
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({CPP_TYPE_NAMES[input.dtype.name]}) and bias type "
                           f"({CPP_TYPE_NAMES[bias.dtype.name]}) should be the same")


def _int_list(value: Any, n: int) -> Any:
    """An int (or a one-element list) for an int[n] parameter is n copies of it, as PyTorch's argument
    parser makes them."""
    if isinstance(value, int):
        return (value,) * n
    return tuple(value) * n if len(value) == 1 else value


def _conv(input: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any, groups: int,
          spatial: int, name: str) -> Any:
    stride, padding, dilation = (_int_list(v, spatial) for v in (stride, padding, dilation))
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


def conv3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Any:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _convolution_mode(input: Any, weight: Any, bias: Any, stride: Any, padding: str, dilation: Any,
                      groups: int) -> Any:
    dim = weight.dim() - 2
    stride, dilation = expand_param(stride, dim, "stride"), expand_param(dilation, dim, "dilation")
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


def conv3d_padding(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: str = "valid",
                   dilation: Any = 1, groups: int = 1) -> Any:
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 3, "conv3d")
    output = _convolution_mode(batched_input, weight, bias, stride, padding, dilation, groups)
    return output if batched else _squeeze(output, 0)


def conv_transpose1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:
    stride, padding, output_padding, dilation = (_int_list(v, 1) for v in (stride, padding, output_padding, dilation))
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 1, "conv_transpose1d")
    output = _convolution(batched_input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return output if batched else _squeeze(output, 0)


def conv_transpose2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:
    stride, padding, output_padding, dilation = (_int_list(v, 2) for v in (stride, padding, output_padding, dilation))
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 2, "conv_transpose2d")
    output = _convolution(batched_input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return output if batched else _squeeze(output, 0)


def conv_transpose3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:
    stride, padding, output_padding, dilation = (_int_list(v, 3) for v in (stride, padding, output_padding, dilation))
    _check_bias_dtype(input, bias)
    batched_input, batched = _batchify(input, 3, "conv_transpose3d")
    output = _convolution(batched_input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return output if batched else _squeeze(output, 0)


# ---- padding --------------------------------------------------------------------------------

_PAD_OPS = {
    ("reflect", 1): "reflection_pad1d", ("replicate", 1): "replication_pad1d", ("circular", 1): "_pad_circular",
    ("reflect", 2): "reflection_pad2d", ("replicate", 2): "replication_pad2d", ("circular", 2): "_pad_circular",
    ("reflect", 3): "reflection_pad3d", ("replicate", 3): "replication_pad3d", ("circular", 3): "_pad_circular",
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
    if k in (1, 2, 3) and ndim in (k + 1, k + 2):
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


# ---- normalisation --------------------------------------------------------------------------

_native_layer_norm = find_operator("native_layer_norm")
_native_batch_norm = find_operator("native_batch_norm")
_native_group_norm = find_operator("native_group_norm")


_FLOAT32 = dtype_from_name("float32")
_REDUCED = (dtype_from_name("bfloat16"), dtype_from_name("float16"))


def _mixed(input: Any, *params: Any) -> bool:
    """PyTorch's mixed-type normalisation: a bfloat16 or float16 input with float32 parameters (an autocast
    region's activations through a float32 model's norms), computed in float32 and handed back in the input's
    dtype, the parameters' gradients in float32."""
    given = [p for p in params if p is not None]
    return input.dtype in _REDUCED and bool(given) and all(p.dtype == _FLOAT32 for p in given)


def _normalised(native: Any, input: Any, *rest: Any) -> Any:
    """native(input, *rest)'s output; a mixed-type call (its parameters in rest) through a float32 copy of the
    input, so that autograd differentiates it in float32 on every device (the native kernels take mixed
    operands themselves too: aten/native/meta/opmath.pyx)."""
    if not _mixed(input, *(r for r in rest if isinstance(r, TensorImpl))):
        return native(input, *rest)[0]
    return _to_copy(native(_to_copy(input, dtype=_FLOAT32), *rest)[0], dtype=input.dtype)


def layer_norm(input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-05,
               cudnn_enable: bool = True) -> Any:
    return _normalised(_native_layer_norm, input, normalized_shape, weight, bias, eps)


def batch_norm(input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Any:
    if input.numel() == 0:
        # upstream returns a copy (nothing to normalise; no statistics to update)
        return _to_copy(input)
    return _normalised(_native_batch_norm, input, weight, bias, running_mean, running_var, training, momentum, eps)


def group_norm(input: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-05,
               cudnn_enabled: bool = True) -> Any:
    sizes = input._sizes()
    if len(sizes) < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(len(sizes), 1)}, "
                         f"{max(len(sizes), 1) - 1}], but got 1)")
    n, c = sizes[0], sizes[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(sizes)} and num_groups={num_groups}")
    hxw = 1
    for s in sizes[2:]:
        hxw *= s
    return _normalised(_native_group_norm, input, weight, bias, n, c, hxw, num_groups, eps)


# ---- losses (reduction: 0 none, 1 mean, 2 sum) ------------------------------------------------

_nll_loss_forward = find_operator("nll_loss_forward")
_nll_loss2d_forward = find_operator("nll_loss2d_forward")
_nll_loss = find_operator("nll_loss")
_nll_loss2d = find_operator("nll_loss2d")
_mul = find_operator("mul.Tensor")
_add = find_operator("add.Tensor")
_div = find_operator("div.Tensor")
_neg = find_operator("neg")
_sum_dim = find_operator("sum.dim_IntList")
_sum = find_operator("sum")
_fill = find_operator("fill_.Scalar")
_reshape = find_operator("reshape")
_view = find_operator("view")
_contiguous = find_operator("contiguous")
_eq = find_operator("eq.Tensor")        # with a number: the dispatcher wraps it (eq.Scalar)
_where = find_operator("where.self")


def _masked_fill(t: Any, mask: Any, value: float) -> Any:
    return _where(mask, value, t)

_MEAN, _SUM, _NONE = MEAN, SUM, NONE


def nll_loss(self: Any, target: Any, weight: Any = None, reduction: int = _MEAN, ignore_index: int = -100) -> Any:
    return _nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss2d(self: Any, target: Any, weight: Any = None, reduction: int = _MEAN, ignore_index: int = -100) -> Any:
    return _nll_loss2d_forward(self, target, weight, reduction, ignore_index)[0]


def _nll_one(self: Any, target: Any, weight: Any, reduction: int, ignore_index: int) -> tuple[Any, ...]:
    return _nll_loss(self, target, weight, reduction, ignore_index), None


def _nll_two(self: Any, target: Any, weight: Any, reduction: int, ignore_index: int) -> tuple[Any, ...]:
    return _nll_loss2d(self, target, weight, reduction, ignore_index), None


def _nll_nd_forward(self: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                    one: Any = _nll_loss_forward, two: Any = _nll_loss2d_forward) -> tuple[Any, ...]:
    """upstream's nll_loss_nd over the forward kernels, keeping total_weight (the mean's denominator)
    for label smoothing; or, with one/two = _nll_one/_nll_two, over the nll_loss and nll_loss2d
    operators, as upstream's (which autocast computes in float32)."""
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    sizes, tsizes = self._sizes(), target._sizes()
    if self.dim() != 1 and (len(tsizes) == 0 or sizes[0] != tsizes[0]):
        raise ValueError(f"Expected input batch_size ({sizes[0]}) to match target batch_size "
                         f"({tsizes[0] if tsizes else 1}).")
    if self.dim() <= 2:
        return one(self, target, weight, reduction, ignore_index)
    if self.dim() == 4:
        return two(self, target, weight, reduction, ignore_index)
    n, c = sizes[0], sizes[1]
    out_size = (n,) + tuple(sizes[2:])
    if tuple(tsizes[1:]) != tuple(sizes[2:]):
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(tsizes)}")
    input4 = _contiguous(self)
    target3 = _contiguous(target)
    input4 = _view(input4, (n, c, 1, -1) if self.numel() > 0 else (n, c, 0, 0))
    target3 = _view(target3, (n, 1, -1) if target.numel() > 0 else (n, 0, 0))
    out, total_weight = two(input4, target3, weight, reduction, ignore_index)
    return (out if reduction != _NONE else _view(out, out_size)), total_weight


def nll_loss_nd(self: Any, target: Any, weight: Any = None, reduction: int = _MEAN, ignore_index: int = -100) -> Any:
    return _nll_nd_forward(self, target, weight, reduction, ignore_index, _nll_one, _nll_two)[0]


def _class_weight_view(weight: Any, ndim: int, class_dim: int) -> Any:
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[class_dim] = weight._sizes()[0]
    return _view(weight, tuple(shape))


def _cross_entropy_prob_target(self: Any, target: Any, weight: Any, reduction: int, label_smoothing: float) -> Any:
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self._sizes()[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight._sizes())}")
    logp = log_softmax(self, class_dim, self.dtype)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        target = _add(_mul(target, 1 - label_smoothing), label_smoothing / n_classes)
    terms = _mul(logp, target)
    if weight is not None:
        terms = _mul(terms, _class_weight_view(weight, logp.dim(), class_dim))
    if reduction == _NONE:
        return _neg(_sum_dim(terms, (class_dim,)))
    total = _neg(_sum(terms))
    if reduction == _SUM:
        return total
    if logp.numel() == 0:
        return _fill(total, float("nan"))
    return _div(total, logp.numel() // n_classes)


def _cross_entropy_label_smoothing(self: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                                   label_smoothing: float) -> Any:
    class_dim = 0 if self.dim() == 1 else 1
    logp = log_softmax(self, class_dim, self.dtype)
    nll, total_weight = _nll_nd_forward(logp, target, weight, reduction, ignore_index)
    n_classes = logp._sizes()[class_dim]
    if weight is not None:
        smooth = _neg(_sum_dim(_mul(logp, _class_weight_view(weight, logp.dim(), class_dim)), (class_dim,)))
    else:
        smooth = _neg(_sum_dim(logp, (class_dim,)))
    smooth = _masked_fill(smooth, _eq(target, ignore_index), 0.0)
    if reduction == _MEAN:
        # upstream divides by the weights (or the count) of the targets that are not ignored:
        # exactly nll_loss's total_weight
        ret = _div(_sum(smooth), total_weight)
    elif reduction == _SUM:
        ret = _sum(smooth)
    else:
        ret = smooth
    return _add(_mul(nll, 1 - label_smoothing), _mul(ret, label_smoothing / n_classes))


def cross_entropy_loss(self: Any, target: Any, weight: Any = None, reduction: int = _MEAN,
                       ignore_index: int = -100, label_smoothing: float = 0.0) -> Any:
    if self._sizes() == target._sizes():
        # class probabilities
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{target.dtype.type_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        return _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if self.dim() == 1 else 1
    return nll_loss_nd(log_softmax(self, class_dim, self.dtype), target, weight, reduction, ignore_index)


# ---- attention --------------------------------------------------------------------------------

_matmul = find_operator("matmul")
_safe_softmax = find_operator("_safe_softmax")
_zeros = find_operator("zeros")
_ones = find_operator("ones")
_transpose = find_operator("transpose.int")
_expand = find_operator("expand")
_tril = find_operator("tril")


def _bool_mask_to_float(mask: Any, dtype: Any) -> Any:
    """True: attend (0); False: masked out (-inf)."""
    return _where(mask, _zeros(mask._sizes(), dtype=dtype, device=mask.device), float("-inf"))


def _repeat_heads(t: Any, repeats: int) -> Any:
    """repeat_interleave(t, repeats, dim=-3)."""
    sizes = t._sizes()
    expanded = _expand(_unsqueeze(t, -3), sizes[:-2] + (repeats,) + sizes[-2:])
    return _reshape(expanded, sizes[:-3] + (sizes[-3] * repeats,) + sizes[-2:])


_dropout = find_operator("dropout")


_flash_attention = find_operator("_scaled_dot_product_flash_attention_for_cpu")


class Switch:
    """A switch of PyTorch's global context that a composite reads; torch.backends sets it."""
    __slots__ = ("enabled",)

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled


flash_sdp = Switch(True)      # torch.backends.cuda.enable_flash_sdp (and sdpa_kernel)


def _flash_applies(query: Any, key: Any, value: Any, attn_mask: Any, dropout_p: float, enable_gqa: bool) -> bool:
    """Whether PyTorch's CPU choice, the flash kernel (sdp_utils_cpp's use_flash_attention_cpp), serves
    this call: flash enabled, CPU floating (batch, heads, length, dim) tensors of one dtype and one head
    dim, the same heads, no dropout, at least one query and key. A mask (which PyTorch's kernel takes
    and Ember's does not) goes to the math path."""
    if not flash_sdp.enabled or dropout_p != 0.0 or attn_mask is not None:
        return False
    if not all(t.device.type == "cpu" and t.dim() == 4 for t in (query, key, value)):
        return False
    if not (query.dtype is key.dtype is value.dtype) or not query.dtype.is_floating_point:
        return False
    q, k, v = query._sizes(), key._sizes(), value._sizes()
    if not (q[:2] == k[:2] == v[:2] and k[2] == v[2] and q[3] == k[3] == v[3]):
        return False
    return q[2] > 0 and k[2] > 0 and q[3] > 0


def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: Any = None, enable_gqa: bool = False) -> Any:
    if not (query.dtype is key.dtype is value.dtype):
        names = [CPP_TYPE_NAMES[t.dtype.name] for t in (query, key, value)]
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{names[0]} key.dtype: {names[1]} and value.dtype: {names[2]} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype.name not in ("bool", "float32", query.dtype.name):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {CPP_TYPE_NAMES[attn_mask.dtype.name]} and  query.dtype: "
                           f"{CPP_TYPE_NAMES[query.dtype.name]} instead.")
    if attn_mask is not None and attn_mask.dtype.name == "bool":
        attn_mask = _bool_mask_to_float(attn_mask, query.dtype)
    if _flash_applies(query, key, value, attn_mask, dropout_p, enable_gqa):
        return _flash_attention(query, key, value, 0.0, is_causal, scale=scale)[0]
    negative = scale is not None and scale < 0
    softmax_scale = abs(scale) if scale is not None else 1.0 / float(query._sizes()[-1]) ** 0.5
    factor = softmax_scale ** 0.5
    q = _mul(query, -factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        length, source = q._sizes()[-2], key._sizes()[-2]
        attn_mask = _bool_mask_to_float(_tril(_ones((length, source), dtype=_BOOL, device=q.device)), q.dtype)
    if enable_gqa and query.dim() >= 3:
        hq, hk, hv = query._sizes()[-3], key._sizes()[-3], value._sizes()[-3]
        if not (hq == hk == hv) and (hq % hk != 0 or hq % hv != 0):
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        if not (hq == hk == hv):
            key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv)
    attn = _matmul(q, _mul(_transpose(key, -2, -1), factor))
    if attn_mask is not None:
        attn = _add(attn, attn_mask)
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        # PyTorch's math path: at::dropout(attn, p, train=true), from the default generator.
        attn = _dropout(attn, dropout_p, True)
    return _matmul(attn, value)


_rsqrt = find_operator("rsqrt")
_mean_dim = find_operator("mean.dim")
_FLOAT32, _FLOAT64 = dtype_from_name("float32"), dtype_from_name("float64")


def rms_norm(input: Any, normalized_shape: Any, weight: Any = None, eps: Any = None) -> Any:
    """x / sqrt(mean(x^2) + eps) over the normalized dims, times weight: PyTorch's composite, in the
    opmath type (float for half types) and rounded to the input's dtype at the end; eps the machine
    epsilon of the opmath type by default."""
    normalized = check_norm_shapes(input, normalized_shape, weight, None, True)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"rms_norm" not implemented for \'{input.dtype.type_name}\'')
    dims = list(range(input.dim() - len(normalized), input.dim()))
    opmath = _FLOAT64 if input.dtype.name == "float64" else _FLOAT32
    x = input.to(dtype=opmath)
    if eps is None:
        eps = 2.220446049250313e-16 if opmath is _FLOAT64 else 1.1920928955078125e-07
    scale = _rsqrt(_add(_mean_dim(_mul(x, x), dims, True), eps))
    result = _mul(x, scale)
    if weight is not None:
        result = _mul(result, weight)
    return result.to(dtype=input.dtype)       # rounded once, and the input's dtype whatever weight's is


_repeat = find_operator("repeat")
_batch_norm = find_operator("batch_norm")


def instance_norm(input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any, use_input_stats: bool,
                  momentum: float, eps: float, cudnn_enabled: bool) -> Any:
    """Each (sample, channel) normalised by its own statistics: a batch norm over one sample with
    N * C channels (the parameters and running statistics repeated per sample); the running
    statistics then average what the samples' copies became, as PyTorch's composite does."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = input.shape[0], input.shape[1]

    def per_sample(t: Any) -> Any:       # running statistics in the input's dtype, as PyTorch casts them
        return None if t is None else _repeat(t.to(dtype=input.dtype), [b])
    means, variances = per_sample(running_mean), per_sample(running_var)
    folded = _view(_contiguous(input), (1, b * c) + tuple(input.shape[2:]))
    out = _batch_norm(folded, per_sample(weight), per_sample(bias), means, variances, use_input_stats, momentum, eps,
                      cudnn_enabled)
    for running, copies in ((running_mean, means), (running_var, variances)):
        if running is not None:
            _copy(running, _mean_dim(_view(copies, (b, c)), [0], False))
    return _view(out, tuple(input.shape))
