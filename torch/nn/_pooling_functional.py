"""torch.nn.functional's 3-d, adaptive-max, unpooling and power-average pools: PyTorch's Python
argument handling (defaults, return_indices, None sizes, the unpooled size) in front of the schema's
pooling operators."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor
from torch._C import _nn

__all__ = ["max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
           "lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(value)
    return (value,) * n


def _stride(stride: Any) -> Any:
    return [] if stride is None else stride


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """3-d max pooling and the flat (D*H*W) index of each maximum."""
    return _nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """3-d max pooling over (N, C, D, H, W) or (C, D, H, W) input; (output, indices) when return_indices."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return torch.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """3-d average pooling over (N, C, D, H, W) or (C, D, H, W) input."""
    return _nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                          divisor_override)


def _with_default(output_size: Any, input: Tensor, n: int) -> list[int]:
    """output_size as n ints, None entries taking the input's size there."""
    sizes = _ntuple(output_size, n)
    return [input.shape[input.dim() - n + i] if v is None else v for i, v in enumerate(sizes)]


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to (D_out, H_out, W_out) = output_size (None keeps that input size)."""
    return _nn.adaptive_avg_pool3d(input, _with_default(output_size, input, 3))


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return torch.adaptive_max_pool1d(input, _ntuple(output_size, 1))


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of (N, C, L) or (C, L) input to length output_size."""
    out, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return _nn.adaptive_max_pool2d(input, _with_default(output_size, input, 2))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to (H_out, W_out) = output_size (None keeps that input size)."""
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return _nn.adaptive_max_pool3d(input, _with_default(output_size, input, 3))


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to (D_out, H_out, W_out) = output_size (None keeps that input size)."""
    out, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def _unpool_output_size(input: Tensor, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                        padding: tuple[int, ...], output_size: Any) -> list[int]:
    n = len(kernel_size)
    default = [(input.shape[input.dim() - n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    sizes = list(output_size)
    if len(sizes) == n + 2:
        sizes = sizes[2:]
    if len(sizes) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(sizes)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < sizes[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
    return sizes


def _unpool_args(kernel_size: Any, stride: Any, padding: Any, n: int) -> tuple[tuple[int, ...], ...]:
    k = _ntuple(kernel_size, n)
    return k, (_ntuple(stride, n) if stride is not None else k), _ntuple(padding, n)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of max_pool1d: each value back at its index, zeros elsewhere."""
    k, s, p = _unpool_args(kernel_size, stride, padding, 1)
    size = _unpool_output_size(input, k, s, p, output_size) + [1]
    return _nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of max_pool2d: each value back at its index, zeros elsewhere."""
    k, s, p = _unpool_args(kernel_size, stride, padding, 2)
    return _nn.max_unpool2d(input, indices, _unpool_output_size(input, k, s, p, output_size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of max_pool3d: each value back at its index, zeros elsewhere."""
    k, s, p = _unpool_args(kernel_size, stride, padding, 3)
    return _nn.max_unpool3d(input, indices, _unpool_output_size(input, k, s, p, output_size), s, p)


def _lp_finish(pooled: Tensor, norm_type: float, window: int) -> Tensor:
    # sign * relu(abs): PyTorch's guard against tiny negative averages of non-negative powers
    return (torch.sign(pooled) * torch.relu(torch.abs(pooled))).mul(window).pow(1.0 / norm_type)


def _extreme_pool(pool: Any, input: Tensor, norm_type: float, kernel_size: Any, stride: Any,
                  ceil_mode: bool) -> Tensor:
    if norm_type > 0:
        return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """The power-average pool (sum of x^p over each window)^(1/p) of (N, C, L) input."""
    from torch.nn._layer_functional import avg_pool1d, max_pool1d
    if abs(norm_type) == float("inf"):       # the limits of the power mean: the largest or smallest |x|
        return _extreme_pool(max_pool1d, input, norm_type, kernel_size, stride, ceil_mode)
    pooled = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(pooled, norm_type, kernel_size)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """The power-average pool of (N, C, H, W) input."""
    from torch.nn._layer_functional import avg_pool2d, max_pool2d
    if abs(norm_type) == float("inf"):
        return _extreme_pool(max_pool2d, input, norm_type, kernel_size, stride, ceil_mode)
    kh, kw = _ntuple(kernel_size, 2)
    pooled = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(pooled, norm_type, kh * kw)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """The power-average pool of (N, C, D, H, W) input."""
    if abs(norm_type) == float("inf"):
        return _extreme_pool(max_pool3d, input, norm_type, kernel_size, stride, ceil_mode)
    kd, kh, kw = _ntuple(kernel_size, 3)
    pooled = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(pooled, norm_type, kd * kh * kw)
