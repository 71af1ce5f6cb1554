"""torch.nn.functional's convolution, padding, pooling, normalisation and embedding functions.

Each calls an Ember operator that has an autograd formula (torch.*, torch._C._nn.*), so gradients
flow through them; the 1-d pooling functions run the 2-d operator on a height-1 view. Re-exported
by torch.nn.functional with PyTorch's names and signatures."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor
from torch._C import _nn

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "pad", "max_pool1d", "max_pool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "batch_norm", "instance_norm", "layer_norm", "group_norm",
           "embedding",
           "one_hot"]

_IntOrSeq = int | Sequence[int]


def _tuple(value: Any, n: int) -> tuple[Any, ...]:
    """value repeated n times unless it is already a sequence (PyTorch's _ntuple)."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(value)
    return (value,) * n


# -- convolution -------------------------------------------------------------------------------
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrSeq = 1,
           padding: _IntOrSeq | str = 0, dilation: _IntOrSeq = 1, groups: int = 1) -> Tensor:
    """1-d cross-correlation of (N, C_in, L) or (C_in, L) input with (C_out, C_in/groups, k) weight.

    padding: an int, a 1-tuple, 'valid' (none) or 'same' (output length = input length)."""
    return torch.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrSeq = 1,
           padding: _IntOrSeq | str = 0, dilation: _IntOrSeq = 1, groups: int = 1) -> Tensor:
    """2-d cross-correlation of (N, C_in, H, W) or (C_in, H, W) input with (C_out, C_in/groups, kH, kW) weight.

    padding: an int, a pair, 'valid' (none) or 'same' (output size = input size)."""
    return torch.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrSeq = 1,
           padding: _IntOrSeq | str = 0, dilation: _IntOrSeq = 1, groups: int = 1) -> Tensor:
    """3-d cross-correlation of (N, C_in, D, H, W) or (C_in, D, H, W) input with (C_out, C_in/groups, kD, kH, kW)
    weight.

    padding: an int, a triple, 'valid' (none) or 'same' (output size = input size)."""
    return torch.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrSeq = 1,
                     padding: _IntOrSeq = 0, output_padding: _IntOrSeq = 0, groups: int = 1,
                     dilation: _IntOrSeq = 1) -> Tensor:
    """The gradient of conv1d with respect to its input; weight is (C_in, C_out/groups, k)."""
    return torch.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrSeq = 1,
                     padding: _IntOrSeq = 0, output_padding: _IntOrSeq = 0, groups: int = 1,
                     dilation: _IntOrSeq = 1) -> Tensor:
    """The gradient of conv2d with respect to its input; weight is (C_in, C_out/groups, kH, kW)."""
    return torch.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: _IntOrSeq = 1,
                     padding: _IntOrSeq = 0, output_padding: _IntOrSeq = 0, groups: int = 1,
                     dilation: _IntOrSeq = 1) -> Tensor:
    """The gradient of conv3d with respect to its input; weight is (C_in, C_out/groups, kD, kH, kW)."""
    return torch.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last len(pad)//2 dimensions: pad = (last_left, last_right, second_last_left, ...).

    mode: 'constant' (with value, default 0), 'reflect', 'replicate' or 'circular'."""
    return _nn.pad(input, list(pad), mode, value)


# -- pooling -----------------------------------------------------------------------------------
def _stride(stride: _IntOrSeq | None) -> _IntOrSeq:
    # The operators take [] for "stride = kernel_size".
    return [] if stride is None else stride


def max_pool2d_with_indices(input: Tensor, kernel_size: _IntOrSeq, stride: _IntOrSeq | None = None,
                            padding: _IntOrSeq = 0, dilation: _IntOrSeq = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """2-d max pooling and the flat (H*W) index of each maximum."""
    out, idx = _nn.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    return out, idx


def max_pool2d(input: Tensor, kernel_size: _IntOrSeq, stride: _IntOrSeq | None = None, padding: _IntOrSeq = 0,
               dilation: _IntOrSeq = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-d max pooling over (N, C, H, W) or (C, H, W) input; (output, indices) when return_indices."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return torch.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def _one(value: _IntOrSeq, fn: str, arg: str) -> int:
    """The single int of a 1-d pooling argument (an int or a 1-sequence)."""
    t = _tuple(value, 1)
    if len(t) != 1:
        if fn == "max_pool1d":
            raise RuntimeError(f"max_pool1d() {arg} must be an int, list of ints or tuple of ints of size 1 but got "
                               f"size {len(t)}")
        raise RuntimeError(f"{fn}() argument '{arg}' should contain one int (got {len(t)})")
    return int(t[0])


def _check_dims_2_to_3(input: Tensor, fn: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {fn})")


def max_pool1d_with_indices(input: Tensor, kernel_size: _IntOrSeq, stride: _IntOrSeq | None = None,
                            padding: _IntOrSeq = 0, dilation: _IntOrSeq = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """1-d max pooling and the index (along L) of each maximum."""
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or _tuple(stride, 1) == () else _one(stride, "max_pool1d", "stride")
    p = _one(padding, "max_pool1d", "padding")
    d = _one(dilation, "max_pool1d", "dilation")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    out, idx = _nn.max_pool2d_with_indices(input.unsqueeze(-2), [1, k], [1, s], [0, p], [1, d], ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def max_pool1d(input: Tensor, kernel_size: _IntOrSeq, stride: _IntOrSeq | None = None, padding: _IntOrSeq = 0,
               dilation: _IntOrSeq = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-d max pooling over (N, C, L) or (C, L) input; (output, indices) when return_indices."""
    out, idx = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def avg_pool2d(input: Tensor, kernel_size: _IntOrSeq, stride: _IntOrSeq | None = None, padding: _IntOrSeq = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """2-d average pooling over (N, C, H, W) or (C, H, W) input.

    count_include_pad: count the zero padding in the divisor; divisor_override: divide by this instead."""
    return _nn.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


def avg_pool1d(input: Tensor, kernel_size: _IntOrSeq, stride: _IntOrSeq | None = None, padding: _IntOrSeq = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-d average pooling over (N, C, L) or (C, L) input."""
    _check_dims_2_to_3(input, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or _tuple(stride, 1) == () else _one(stride, "avg_pool1d", "stride")
    out = _nn.avg_pool2d(input.unsqueeze(-2), [1, k], [1, s], [0, _one(padding, "avg_pool1d", "padding")],
                         ceil_mode, count_include_pad, None)
    return out.squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size: int | None | Sequence[int | None]) -> Tensor:
    """Average pooling to an output of output_size (H_out, W_out); None keeps that input size."""
    size = _tuple(output_size, 2)
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    resolved = [input.shape[input.dim() - 2 + i] if v is None else v for i, v in enumerate(size)]
    return _nn.adaptive_avg_pool2d(input, resolved)


def adaptive_avg_pool1d(input: Tensor, output_size: int | Sequence[int]) -> Tensor:
    """Average pooling of (N, C, L) or (C, L) input to length output_size."""
    _check_dims_2_to_3(input, "adaptive_avg_pool1d")
    size = _one(output_size, "adaptive_avg_pool1d", "output_size")
    return _nn.adaptive_avg_pool2d(input.unsqueeze(-2), [1, size]).squeeze(-2)


# -- normalisation -----------------------------------------------------------------------------
def _verify_batch_size(size: Sequence[int], shown: Any) -> None:
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {shown}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) by its batch statistics (training) or the running ones.

    In training, running_mean/running_var (when given) move towards the batch statistics by momentum
    (the variance in its unbiased form)."""
    if training:
        _verify_batch_size(list(input.shape), input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample by its own statistics (or the running ones)."""
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    return torch.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last len(normalized_shape) dimensions, then scale by weight and shift by bias."""
    return torch.layer_norm(input, list(normalized_shape), weight, bias, eps, False)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each of num_groups channel groups per sample, then apply per-channel weight and bias."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    _verify_batch_size(size, size)
    return torch.group_norm(input, num_groups, weight, bias, eps, False)


# -- embedding ---------------------------------------------------------------------------------
def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescale, in place and outside autograd, the rows of weight that input uses to norm <= max_norm."""
    with torch.no_grad():
        rows = input.reshape(-1).unique()
        selected = weight.index_select(0, rows)
        norms = selected.norm(norm_type, 1, keepdim=True)
        scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
        weight.index_copy_(0, rows, selected * scale)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of weight picked by the integer indices in input (shape input.shape + (embedding_dim,)).

    padding_idx: that row gets no gradient. max_norm: rows used are first renormalised in place
    to at most that norm_type-norm."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported by Ember")
    if max_norm is not None:
        input = input.contiguous()
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 tensor of shape tensor.shape + (num_classes,), 1 at each index (num_classes=-1: max + 1)."""
    return _nn.one_hot(tensor, num_classes)
