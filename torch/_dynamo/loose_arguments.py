"""torch._dynamo.loose_arguments: a dataclass argument the compiled function reads only through its fields
(batch.x, batch.y, batch.scale: no method called on it, not passed on, returned or stored; the fields held in
its __dict__ or, made with slots=True, in its slots), guarded on its type and on the fields the function reads
instead of on its identity, so that a new batch of the same kind each step replays, as PyTorch's guards on a
dataclass argument do. Its tensor fields are graph inputs read from the
argument at each call (their layout guarded), its plain fields are guarded by value. A field read any other way
(a tensor field's own attributes, a field holding an object) keeps the argument guarded by identity."""
from __future__ import annotations

import dataclasses
import functools
import inspect
import types
from typing import Any

import torch
from torch._dynamo.global_reads import LocalUse
from torch._dynamo.guards import is_plain_value, same_plain

__all__ = ["bind_fields", "field_changed", "field_grad", "field_of", "loose_fields", "sharing"]

# What a function may read of a tensor field besides using it whole: its layout, which the input's guard holds.
_LAYOUT = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad"})


def loose_fields(value: Any, use: LocalUse | None) -> dict[str, Any] | None:
    """The fields of a dataclass argument the function reads (by name), when it reads it only through them and
    each is a plain tensor used whole or through its layout, or a plain value; else None."""
    if use is None or use.methods or use.passed_on or isinstance(value, type) or not dataclasses.is_dataclass(value):
        return None
    names = {f.name for f in dataclasses.fields(value)}
    fields: dict[str, Any] = {}
    for name, reads in use.attributes.items():
        field = _own_value(value, name) if name in names else _MISSING
        if field is _MISSING:
            return None
        chains = reads.values | reads.whole | reads.blind
        if type(field) in (torch.Tensor, torch.nn.Parameter):
            if reads.blind or any(chain and (chain[0][0] != "attr" or chain[0][1] not in _LAYOUT)
                                  for chain in chains):
                return None
        elif not is_plain_value(field):
            return None
        fields[name] = field
    tensors = [id(field) for field in fields.values() if isinstance(field, torch.Tensor)]
    return fields if len(set(tensors)) == len(tensors) else None


def _own_value(value: Any, name: str) -> Any:
    """The value the instance itself holds for a field, as getattr hands it back (in its __dict__, or in its slot
    for a dataclass made with slots=True), or _MISSING where a property or another descriptor computes it."""
    static = inspect.getattr_static(type(value), name, None)
    own = getattr(value, "__dict__", {})
    if name in own and not hasattr(static, "__get__"):
        return own[name]
    if isinstance(static, types.MemberDescriptorType) and \
            getattr(type(value), "__getattribute__") is object.__getattribute__:
        return getattr(value, name, _MISSING)
    return _MISSING


def sharing(flat: list[Any], positions: list[int], loose: dict[int, dict[str, Any]]) -> list[int]:
    """The loose arguments (by position) that share their object or a tensor field with a tensor argument or an
    earlier loose argument: one graph input cannot stand for two inputs that differ at the next call."""
    taken = {id(flat[p]) for p in positions}
    shared = []
    for i, fields in loose.items():
        ids = {id(flat[i])} | {id(field) for field in fields.values() if isinstance(field, torch.Tensor)}
        if ids & taken:
            shared.append(i)
        taken |= ids
    return shared


def field_of(flat: list[Any], position: int, name: str) -> Any:
    """A source's reader: the field of the argument at position (None, failing the guard, if it has none)."""
    return getattr(flat[position], name, None)


def field_grad(flat: list[Any], position: int, name: str) -> Any:
    """The .grad of the field of the argument at position (a source's reader, or a nones reader)."""
    return getattr(getattr(flat[position], name, None), "grad", None)


def field_changed(flat: list[Any], position: int, name: str, expected: Any, description: str) -> str | None:
    """A nones reader: what changed in a plain field of the argument at position, None if it did not."""
    now = getattr(flat[position], name, _MISSING)
    return None if now is not _MISSING and same_plain(now, expected) else f"{description} == {expected!r}"


_MISSING = object()


def bind_fields(capture: Any, description: str, position: int, fields: dict[str, Any]) -> None:
    """A loose argument's fields made graph inputs (tensors, read at each call) or guards (plain values), before
    the call runs: the tensors the function reads through them are those inputs."""
    for name, field in fields.items():
        if isinstance(field, torch.Tensor):
            node = capture.source_placeholder(f"{description}_{name}")
            capture.tracer.bind(field, node)
            capture.field_positions[id(field)] = (position, name)
            capture.guards.add_source(f"{description}.{name}", functools.partial(field_of, position=position,
                                                                                 name=name), field)
            capture.source_tensors.append(field)
        else:
            capture.guards.add_none(f"{description}.{name}", functools.partial(
                field_changed, position=position, name=name, expected=field, description=f"{description}.{name}"))
