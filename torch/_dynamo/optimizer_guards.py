"""torch._dynamo.optimizer_guards: what a call that steps an optimizer depends on, guarded in two reads: its
plain values (hyperparameters and the state's values that are not tensors; floats among them, compared one by
one, since -0.0 is not 0.0) and the identities of its parameters and state tensors with the keys naming them
(ints and strings alone, compared as one tuple in C), so that a replayed step over many parameters does not
compare each in Python. Both in the dicts' own order: one that changes (a key removed and added again) only
captures again. A step captured before the state existed (the first step) is not replayed on a later one."""
from __future__ import annotations

from typing import Any

import torch
from torch._dynamo.guards import GuardSet, is_plain_value

__all__ = ["add", "members", "values"]


def add(guards: GuardSet, opt: Any) -> None:
    """Guard what a step of `opt` depends on."""
    name = type(opt).__name__
    guards.add_read(f"{name}'s hyperparameters", opt, values, values(opt), by_value=True)
    guards.add_read(f"{name}'s parameters and state", opt, members, members(opt), by_value=True)


def values(opt: Any) -> tuple[Any, ...]:
    """An optimizer's hyperparameters and the state's values that are not tensors, by value."""
    items: list[Any] = []
    for group in opt.param_groups:
        for key, value in group.items():
            if key != "params" and is_plain_value(value):
                items.append((key, tuple(value) if isinstance(value, list) else value))
    tensor = torch.Tensor
    for state in opt.state.values():
        for key, value in state.items():
            if not isinstance(value, tensor):
                items.append((key, value))
    return tuple(items)


def members(opt: Any) -> tuple[Any, ...]:
    """An optimizer's parameters, tensor hyperparameters and state tensors by identity, with the keys naming
    them."""
    items: list[Any] = []
    tensor = torch.Tensor
    for group in opt.param_groups:
        for key, value in group.items():
            if key == "params":
                items.append(tuple(map(id, value)))
            elif isinstance(value, tensor):
                items.append((key, id(value)))
            elif is_plain_value(value):
                items.append(key)
    for param, state in opt.state.items():
        items.append(id(param))
        for key, value in state.items():
            items.append((key, id(value)) if isinstance(value, tensor) else key)
    return tuple(items)
