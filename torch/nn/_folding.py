"""torch.nn.functional.unfold and fold: sliding local blocks of a batch of images as columns
(im2col), and columns summed back into images (col2im)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torch import Tensor
from torch._C import _nn

__all__ = ["unfold", "fold"]


def _pair(value: Any) -> list[Any]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return [value, value]


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """(N, C, H, W) -> (N, C * kh * kw, L): every kh x kw block (dilated, padded, strided) as a column."""
    return _nn.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """(N, C * kh * kw, L) -> (N, C, H, W): unfold's adjoint, overlapping blocks summed."""
    return _nn.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))
