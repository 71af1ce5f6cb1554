"""Conv1d/2d/3d and ConvTranspose1d/2d/3d (PyTorch's attributes, initialisation and reprs)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    """Shared state of the convolutions: sizes as n-tuples, weight, optional bias."""

    in_channels: int
    out_channels: int
    kernel_size: tuple[int, ...]
    stride: tuple[int, ...]
    padding: str | tuple[int, ...]
    dilation: tuple[int, ...]
    transposed: bool
    output_padding: tuple[int, ...]
    groups: int
    padding_mode: str
    _reversed_padding_repeated_twice: list[int]
    weight: Tensor
    bias: Tensor | None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple[int, ...],
                 stride: tuple[int, ...], padding: str | tuple[int, ...], dilation: tuple[int, ...],
                 transposed: bool, output_padding: tuple[int, ...], groups: int, bias: bool, padding_mode: str,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # The F.pad argument for the non-zeros padding modes: last dimension first, each side given.
        n = len(kernel_size)
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * n
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    j = n - 1 - i
                    self._reversed_padding_repeated_twice[2 * j] = total // 2
                    self._reversed_padding_repeated_twice[2 * j + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(torch.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init._default_weight_and_bias_(self.weight, self.bias)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if isinstance(self.padding, str) or self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class Conv1d(_ConvNd):
    """1-d convolution over (N, C_in, L) or (C_in, L) input.

    Args:
        in_channels, out_channels: channels in the input and produced by the convolution.
        kernel_size, stride, dilation: ints or 1-tuples.
        padding: int, 1-tuple, 'valid' or 'same'. padding_mode: 'zeros', 'reflect', 'replicate' or 'circular'.
        groups: blocked connections from input to output channels. bias: learnable bias. Default: True.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: str | int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 1), _ntuple(stride, 1),
                         padding if isinstance(padding, str) else _ntuple(padding, 1), _ntuple(dilation, 1),
                         False, (0,), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv1d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                            weight, bias, self.stride, (0,), self.dilation, self.groups)
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W) input.

    Args:
        in_channels, out_channels: channels in the input and produced by the convolution.
        kernel_size, stride, dilation: ints or pairs.
        padding: int, pair, 'valid' or 'same'. padding_mode: 'zeros', 'reflect', 'replicate' or 'circular'.
        groups: blocked connections from input to output channels. bias: learnable bias. Default: True.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: str | int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 2), _ntuple(stride, 2),
                         padding if isinstance(padding, str) else _ntuple(padding, 2), _ntuple(dilation, 2),
                         False, (0, 0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv2d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                            weight, bias, self.stride, (0, 0), self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv3d(_ConvNd):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W) input.

    Args:
        in_channels, out_channels: channels in the input and produced by the convolution.
        kernel_size, stride, dilation: ints or triples.
        padding: int, triple, 'valid' or 'same'. padding_mode: 'zeros', 'reflect', 'replicate' or 'circular'.
        groups: blocked connections from input to output channels. bias: learnable bias. Default: True.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: str | int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 3), _ntuple(stride, 3),
                         padding if isinstance(padding, str) else _ntuple(padding, 3), _ntuple(dilation, 3),
                         False, (0, 0, 0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv3d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                            weight, bias, self.stride, (0, 0, 0), self.dilation, self.groups)
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolutions: zeros padding only; forward may ask for an output_size."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                 padding: tuple[int, ...], dilation: tuple[int, ...], transposed: bool,
                 output_padding: tuple[int, ...], groups: int, bias: bool, padding_mode: str, device: Any = None,
                 dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None, stride: Sequence[int],
                        padding: Sequence[int], kernel_size: Sequence[int], num_spatial_dims: int,
                        dilation: Sequence[int] | None = None) -> list[int]:
        """output_padding, or the one that makes the output output_size (checked to be reachable)."""
        if output_size is None:
            return list(self.output_padding)
        batched = input.dim() == num_spatial_dims + 2
        leading = 2 if batched else 1
        size = list(output_size)
        if len(size) == leading + num_spatial_dims:
            size = size[leading:]
        if len(size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {leading + num_spatial_dims} elements (got {len(output_size)})")
        min_sizes = []
        max_sizes = []
        for d in range(num_spatial_dims):
            dil = dilation[d] if dilation is not None else 1
            low = (input.size(d + leading) - 1) * stride[d] - 2 * padding[d] + dil * (kernel_size[d] - 1) + 1
            min_sizes.append(low)
            max_sizes.append(low + stride[d] - 1)
        for want, low, high in zip(size, min_sizes, max_sizes):
            if want < low or want > high:
                raise ValueError(f"requested an output size of {size}, but valid sizes range from {min_sizes} to "
                                 f"{max_sizes} (for an input of {input.shape[2:]})")
        return [want - low for want, low in zip(size, min_sizes)]


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (the gradient of Conv1d with respect to its input)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 1), _ntuple(stride, 1),
                         _ntuple(padding, 1), _ntuple(dilation, 1), True, _ntuple(output_padding, 1), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose1d")
        assert not isinstance(self.padding, str)
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 1,
                                              self.dilation)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (the gradient of Conv2d with respect to its input).

    forward(input, output_size=None): output_size picks among the output sizes a stride > 1 allows."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 2), _ntuple(stride, 2),
                         _ntuple(padding, 2), _ntuple(dilation, 2), True, _ntuple(output_padding, 2), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose2d")
        assert not isinstance(self.padding, str)
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 2,
                                              self.dilation)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution (the gradient of Conv3d with respect to its input).

    forward(input, output_size=None): output_size picks among the output sizes a stride > 1 allows."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 3), _ntuple(stride, 3),
                         _ntuple(padding, 3), _ntuple(dilation, 3), True, _ntuple(output_padding, 3), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose3d")
        assert not isinstance(self.padding, str)
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 3,
                                              self.dilation)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)
