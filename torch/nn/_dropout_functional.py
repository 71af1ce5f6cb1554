"""torch.nn.functional's channel-wise and alpha dropouts (PyTorch's checks, warnings and shapes) over
the feature_dropout / alpha_dropout / feature_alpha_dropout operators. With inplace=True the result
is written back into the input (PyTorch's in-place operators keep the input's history; Ember
computes from a copy so that the backward's saved input is not overwritten)."""
from __future__ import annotations

import warnings
from collections.abc import Callable

import torch
from torch import Tensor

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply(op: Callable[[Tensor, float, bool], Tensor], input: Tensor, p: float, training: bool,
           inplace: bool, unbatched: bool = False) -> Tensor:
    """op over input (with a batch dim of one added and removed when unbatched); inplace, the result
    written back into input (computed from a copy, whose history the backward still has)."""
    if inplace and (not training or p == 0 or input.numel() == 0):
        return input
    source = input.clone() if inplace else input
    result = op(source.unsqueeze(0), p, training).squeeze(0) if unbatched else op(source, p, training)
    return input.copy_(result) if inplace else result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input with probability p, scaling the rest by 1/(1-p)."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.dim() == 2:
        return _apply(torch.feature_dropout, input, p, training, inplace, unbatched=True)
    return _apply(torch.feature_dropout, input, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) input with probability p, scaling the rest by 1/(1-p)."""
    _check_p(p)
    dims = input.dim()
    if dims not in (3, 4):
        warnings.warn(f"dropout2d: Received a {dims}-D input to dropout2d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if dims == 3:       # PyTorch's historical reading of 3-d input: (N, C, L)
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _apply(torch.feature_dropout, input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p, scaling the rest."""
    _check_p(p)
    dims = input.dim()
    if dims not in (4, 5):
        warnings.warn(f"dropout3d: Received a {dims}-D input to dropout3d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    if dims != 5:
        return _apply(torch.feature_dropout, input, p, training, inplace, unbatched=True)
    return _apply(torch.feature_dropout, input, p, training, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps the mean and variance of SELU activations (dropped entries saturate)."""
    _check_p(p)
    return _apply(torch.alpha_dropout, input, p, training, inplace)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _apply(torch.feature_alpha_dropout, input, p, training, inplace)
