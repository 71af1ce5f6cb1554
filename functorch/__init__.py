"""functorch: the transforms' home before torch.func (PyTorch keeps it for old programs), by their old names.

grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap and functional_call are torch.func's;
make_functional, make_functional_with_buffers and combine_state_for_ensemble turn modules into functions of
their parameters (and buffers), as functorch's did."""
from __future__ import annotations

import copy
from typing import Any, Callable

import torch
from torch.func import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize,
                        stack_module_state, vjp, vmap)

__all__ = ["combine_state_for_ensemble", "functional_call", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "make_functional", "make_functional_with_buffers", "vjp", "vmap"]
__version__ = torch.__version__


class FunctionalModuleWithBuffers(torch.nn.Module):
    """A module called as fmodel(params, buffers, *args): its own copy of the module, run on the given tensors."""

    def __init__(self, module: torch.nn.Module, param_names: tuple[str, ...], buffer_names: tuple[str, ...]) -> None:
        super().__init__()
        self.stateless_model = module
        self.param_names = param_names
        self.buffer_names = buffer_names

    def forward(self, params: Any, buffers: Any, *args: Any, **kwargs: Any) -> Any:
        state = dict(zip(self.param_names, params))
        state.update(zip(self.buffer_names, buffers))
        return functional_call(self.stateless_model, state, args, kwargs)


class FunctionalModule(torch.nn.Module):
    """A module called as fmodel(params, *args)."""

    def __init__(self, module: torch.nn.Module, param_names: tuple[str, ...]) -> None:
        super().__init__()
        self.stateless_model = module
        self.param_names = param_names

    def forward(self, params: Any, *args: Any, **kwargs: Any) -> Any:
        return functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs)


def _names_and_values(items: Any) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    pairs = list(items)
    return tuple(n for n, _ in pairs), tuple(v for _, v in pairs)


def make_functional(model: torch.nn.Module, disable_autograd_tracking: bool = False) -> tuple[Callable[..., Any],
                                                                                                tuple[Any, ...]]:
    """(fmodel, params): fmodel(params, *args) runs model with params in place of its parameters."""
    if any(True for _ in model.buffers()):
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    names, params = _names_and_values(model.named_parameters())
    if disable_autograd_tracking:
        params = tuple(p.detach() for p in params)
    return FunctionalModule(copy.deepcopy(model), names), params


def make_functional_with_buffers(model: torch.nn.Module, disable_autograd_tracking: bool = False) -> tuple[
        Callable[..., Any], tuple[Any, ...], tuple[Any, ...]]:
    """(fmodel, params, buffers): fmodel(params, buffers, *args) runs model with them."""
    names, params = _names_and_values(model.named_parameters())
    buffer_names, buffers = _names_and_values(model.named_buffers())
    if disable_autograd_tracking:
        params = tuple(p.detach() for p in params)
    return FunctionalModuleWithBuffers(copy.deepcopy(model), names, buffer_names), params, buffers


def combine_state_for_ensemble(models: Any) -> tuple[Callable[..., Any], tuple[Any, ...], tuple[Any, ...]]:
    """(fmodel, params, buffers) for models of one architecture: each parameter and buffer stacked over the
    models (dim 0), to run them all with vmap(fmodel)(params, buffers, x)."""
    models = list(models)
    if not models:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not all(m.training == models[0].training for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    params, buffers = stack_module_state(models)
    names, buffer_names = tuple(params), tuple(buffers)
    fmodel = FunctionalModuleWithBuffers(copy.deepcopy(models[0]), names, buffer_names)
    return fmodel, tuple(params.values()), tuple(buffers.values())
