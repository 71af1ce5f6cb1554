"""Parameters to one flat vector and back."""
from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, old_device: object) -> object:
    if old_device is None:
        return param.device
    if param.device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one vector (differentiable)."""
    device = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return torch.cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Give each parameter its slice of vec as data (in order)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
