"""functional_call and stack_module_state (torch.func): a module run with other tensors in place of its
parameters and buffers, and the parameters and buffers of several like modules stacked for an ensemble.

functional_call swaps the given tensors into the modules' `_parameters` and `_buffers` dicts for the
call and puts the originals back after it, even when the call raises; the call sees plain tensors
where the module had Parameters, as PyTorch's reparametrisation does. With tie_weights, a tensor given
for one name of a tied parameter (one Parameter reachable by two names) replaces it under every name."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Mapping, Sequence

from torch._tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]


def _merged(dicts: Any) -> dict[str, Any]:
    if isinstance(dicts, Mapping):
        return dict(dicts)
    if not isinstance(dicts, (list, tuple)):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                         f"but got {type(dicts)}")
    merged: dict[str, Any] = {}
    repeated: list[str] = []
    for d in dicts:
        for key, value in d.items():
            if key in merged:
                repeated.append(key)
            merged[key] = value
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return merged


def _tied_names(module: Any) -> dict[str, list[str]]:
    """Each parameter or buffer name -> every name of the same tensor (the first name the module lists first)."""
    by_tensor: dict[int, list[str]] = {}
    for name, tensor in [*module.named_parameters(remove_duplicate=False),
                         *module.named_buffers(remove_duplicate=False)]:
        by_tensor.setdefault(id(tensor), []).append(name)
    return {name: names for names in by_tensor.values() for name in names}


def _with_ties(ties: dict[str, list[str]], values: dict[str, Any]) -> dict[str, Any]:
    expanded = dict(values)
    for name, value in values.items():
        names = ties.get(name, [name])
        given = [n for n in names if n in values]
        if len(given) > 1 and any(values[n] is not value for n in given):
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                             "Consider using tie_weights=False")
        for other in names:
            expanded.setdefault(other, value)
    return expanded


def _slot(module: Any, name: str) -> tuple[dict[str, Any], str]:
    """The `_parameters` or `_buffers` dict holding name, and its last component."""
    *path, leaf = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    for store in (owner._parameters, owner._buffers):
        if leaf in store:
            return store, leaf
    return owner.__dict__, leaf           # a plain attribute: set for the call, removed after it


@contextlib.contextmanager
def _swapped(module: Any, values: dict[str, Any], tie_weights: bool, strict: bool) -> Iterator[None]:
    ties = _tied_names(module)
    if strict:
        unexpected = sorted(k for k in values if k not in ties)
        missing = sorted(k for k in ties if k not in values and not (tie_weights and any(n in values for n in ties[k])))
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append(f"\tUnexpected key(s): {', '.join(repr(k) for k in unexpected)}.")
            if missing:
                lines.append(f"\tMissing key(s): {', '.join(repr(k) for k in missing)}.")
            raise RuntimeError("\n".join(lines))
    if tie_weights:
        values = _with_ties(ties, values)
    saved: list[tuple[dict[str, Any], str, Any, bool]] = []
    try:
        for name, value in values.items():
            store, leaf = _slot(module, name)
            saved.append((store, leaf, store.get(leaf), leaf in store))
            store[leaf] = value
        yield
    finally:
        for store, leaf, old, present in reversed(saved):
            if present:
                store[leaf] = old
            else:
                store.pop(leaf, None)


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None, kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with the given tensors in place of its parameters and buffers (named as
    named_parameters/named_buffers name them; one dict, or several with distinct keys)."""
    values = _merged(parameter_and_buffer_dicts)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, values, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and buffers of like models, each stacked along a new first dimension: stacked
    parameters are new leaves that require grad (where the models' do), for an ensemble run with vmap."""
    import torch
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")

    def stacked(named: Any, leaf: bool) -> dict[str, Tensor]:
        result = {}
        per_model = [dict(named(m)) for m in models]
        for name in per_model[0]:
            tensors = [d[name] for d in per_model]
            value = torch.stack([t.detach() for t in tensors])
            if leaf and any(t.requires_grad for t in tensors):
                if not all(t.requires_grad for t in tensors):
                    raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
                value.requires_grad_()
            result[name] = value
        return result

    return (stacked(lambda m: m.named_parameters(), True), stacked(lambda m: m.named_buffers(), False))
