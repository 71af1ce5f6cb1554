"""scatter, gather, replicate and parallel_apply over the devices Ember drives (one CUDA device):
inputs are moved (not split) to it, outputs moved back, the module used as it is."""
from __future__ import annotations

from typing import Any, Sequence

import torch
from torch.nn.modules.module import Module
from torch.utils._pytree import tree_map_only


def _index(device: Any) -> int:
    if isinstance(device, int):
        return device
    d = torch.device(device)
    return 0 if d.index is None else d.index


def _one_device(devices: Sequence[Any], what: str) -> Any:
    """The single device of a list of device ids (Ember runs on CUDA device 0 only so far)."""
    if len(devices) != 1:
        raise RuntimeError(f"{what}: Ember drives one CUDA device so far, got device ids {list(devices)}")
    return torch.device("cuda", _index(devices[0]))


def _move(obj: Any, device: Any) -> Any:
    """obj with every tensor inside (tuples, lists, dicts, nested) moved to device."""
    return tree_map_only(torch.Tensor, lambda t: t.to(device), obj)


def scatter(inputs: Any, target_gpus: Sequence[Any], dim: int = 0) -> list[Any]:
    """inputs split along dim over target_gpus: with one device, all of them, on that device."""
    device = _one_device(target_gpus, "scatter")
    return [_move(inputs, device)]


def scatter_kwargs(inputs: tuple[Any, ...], kwargs: dict[str, Any] | None, target_gpus: Sequence[Any],
                   dim: int = 0) -> tuple[tuple[Any, ...], tuple[dict[str, Any], ...]]:
    scattered = scatter(inputs, target_gpus, dim) if inputs else [()]
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else [{}]
    return tuple(tuple(i) for i in scattered), tuple(scattered_kwargs)


def gather(outputs: Any, target_device: Any, dim: int = 0) -> Any:
    """One output per device concatenated along dim on target_device: with one, moved there
    (target_device -1: the CPU)."""
    if len(outputs) != 1:
        raise RuntimeError(f"gather: Ember drives one CUDA device so far, got {len(outputs)} outputs")
    device = torch.device("cpu") if target_device == -1 else (
        torch.device("cuda", target_device) if isinstance(target_device, int) else torch.device(target_device))
    return _move(outputs[0], device)


def replicate(network: Module, devices: Sequence[Any], detach: bool = False) -> list[Module]:
    _one_device(devices, "replicate")
    return [network]


def parallel_apply(modules: Sequence[Module], inputs: Sequence[Any], kwargs_tup: Sequence[Any] | None = None,
                   devices: Sequence[Any] | None = None) -> list[Any]:
    """Each module applied to its inputs (in order: one device, so no threads)."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    kwargs_tup = kwargs_tup if kwargs_tup is not None else ({},) * len(modules)
    return [module(*(args if isinstance(args, (list, tuple)) else (args,)), **kw)
            for module, args, kw in zip(modules, inputs, kwargs_tup)]
