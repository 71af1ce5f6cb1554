"""Legacy weight normalisation: torch.nn.utils.weight_norm / remove_weight_norm (PyTorch's
torch/nn/utils/weight_norm.py contract, deprecated there in favour of
torch.nn.utils.parametrizations.weight_norm).

The weight is split into `<name>_g` (magnitude) and `<name>_v` (direction) parameters, and a
forward pre-hook recomputes `<name> = v * g / ||v||` before each call."""
from __future__ import annotations

import warnings
from typing import Any, TypeVar

import torch
from torch import Tensor
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

T_module = TypeVar("T_module", bound=Module)


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of v over every dimension but dim, kept as size-1 dimensions (torch.norm_except_dim);
    dim=-1: the norm of the whole tensor, as a 0-dim tensor."""
    if dim == -1:
        return torch.linalg.vector_norm(v)
    kept = dim + v.dim() if dim < 0 else dim
    if not 0 <= kept < max(v.dim(), 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(v.dim(), 1)}, "
                         f"{max(v.dim(), 1) - 1}], but got {dim})")
    others = tuple(d for d in range(v.dim()) if d != kept)
    if not others:          # nothing else to reduce: each entry is its own norm
        return v.abs()
    return torch.linalg.vector_norm(v, 2, dim=others, keepdim=True)


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """v * (g / ||v||), the norm taken over every dimension but dim (torch._weight_norm)."""
    return v * (g / _norm_except_dim(v, dim))


class WeightNorm:
    """The forward pre-hook of weight_norm: recomputes the weight from `<name>_g` and `<name>_v`."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make sure to run "
                             "the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    """Reparametrize module.<name> as g * v / ||v|| with parameters `<name>_g` and `<name>_v`
    (deprecated: use torch.nn.utils.parametrizations.weight_norm).

    Args:
        name: the parameter. dim: the dimension the norm is kept over (None: the whole tensor).
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo weight_norm: `<name>` becomes a parameter holding the current weight.

    Raises:
        ValueError: if weight_norm was not applied to name.
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
