"""The lazy layers: LazyLinear, LazyConv*/LazyConvTranspose*, LazyBatchNorm* and LazyInstanceNorm*,
whose input size (in_features, in_channels, num_features) is read from the first input
(PyTorch's classes of the same names, defined beside their eager classes there).

Each builds its eager class with size 0 and no tensors (so construction draws no random numbers),
holds UninitializedParameter/UninitializedBuffer instead, and on the first forward materializes
them and runs the eager class's reset_parameters: the initial weights are those of the eager class
built with the inferred size from the same random state."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor
from torch.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from torch.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from torch.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.modules.linear import Linear
from torch.nn.parameter import UninitializedBuffer, UninitializedParameter

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

_Size = int | Sequence[int]


class LazyLinear(LazyModuleMixin, Linear):
    """Linear with in_features inferred from input.shape[-1]; becomes a Linear after the first call.

    Args:
        out_features: size of each output sample. bias: learn an additive bias. Default: True.
    """

    cls_to_become = Linear
    weight: Any
    bias: Any

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if self.has_uninitialized_params():
            with torch.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # Loaded from a state_dict before the first call: the size comes from the input.
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels from the channel dimension of the first input (batched or not)."""

    _spatial_dims: int
    in_channels: int
    out_channels: int
    groups: int
    transposed: bool
    kernel_size: tuple[int, ...]
    weight: Any
    bias: Any

    def _make_lazy(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
        else:
            self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return int(input.shape[1] if input.dim() == unbatched + 1 else input.shape[0])

    def _get_num_spatial_dims(self) -> int:
        return self._spatial_dims


class _LazyConv(_LazyConvXdMixin):
    """The Conv{1,2,3}d constructor without in_channels."""

    def __init__(self, out_channels: int, kernel_size: _Size, stride: _Size = 1, padding: str | _Size = 0,
                 dilation: _Size = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        # bias=False: no tensor that materialize would replace anyway.
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         device=device, dtype=dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    """The ConvTranspose{1,2,3}d constructor without in_channels."""

    def __init__(self, out_channels: int, kernel_size: _Size, stride: _Size = 1, padding: _Size = 0,
                 output_padding: _Size = 0, groups: int = 1, bias: bool = True, dilation: _Size = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """Conv1d with in_channels inferred from the first input; becomes a Conv1d."""
    cls_to_become = Conv1d
    _spatial_dims = 1


class LazyConv2d(_LazyConv, Conv2d):
    """Conv2d with in_channels inferred from the first input; becomes a Conv2d."""
    cls_to_become = Conv2d
    _spatial_dims = 2


class LazyConv3d(_LazyConv, Conv3d):
    """Conv3d with in_channels inferred from the first input; becomes a Conv3d."""
    cls_to_become = Conv3d
    _spatial_dims = 3


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """ConvTranspose1d with in_channels inferred from the first input; becomes a ConvTranspose1d."""
    cls_to_become = ConvTranspose1d
    _spatial_dims = 1


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """ConvTranspose2d with in_channels inferred from the first input; becomes a ConvTranspose2d."""
    cls_to_become = ConvTranspose2d
    _spatial_dims = 2


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """ConvTranspose3d with in_channels inferred from the first input; becomes a ConvTranspose3d."""
    cls_to_become = ConvTranspose3d
    _spatial_dims = 3


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features from input.shape[1] (for instance norms too, unbatched input included, as PyTorch)."""

    weight: Any
    bias: Any
    running_mean: Any
    running_var: Any

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        # affine and track_running_stats False: no tensors that materialize would replace anyway.
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = torch.tensor(0, dtype=torch.long, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = int(input.shape[1])
        if self.affine:
            self.weight.materialize((self.num_features,))
            if self.bias is not None:
                self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean.materialize((self.num_features,))
            self.running_var.materialize((self.num_features,))
        self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d with num_features inferred from the first input; becomes a BatchNorm1d."""
    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d with num_features inferred from the first input; becomes a BatchNorm2d."""
    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d with num_features inferred from the first input; becomes a BatchNorm3d."""
    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d with num_features inferred from the first input; becomes an InstanceNorm1d."""
    cls_to_become = InstanceNorm1d
    _spatial = InstanceNorm1d._spatial


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm2d with num_features inferred from the first input; becomes an InstanceNorm2d."""
    cls_to_become = InstanceNorm2d
    _spatial = InstanceNorm2d._spatial


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm3d with num_features inferred from the first input; becomes an InstanceNorm3d."""
    cls_to_become = InstanceNorm3d
    _spatial = InstanceNorm3d._spatial
