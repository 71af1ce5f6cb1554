"""torch._dynamo.size_families: a compiled function's captures at sizes that vary (PyTorch's dynamic shapes, as
far as a capture without bytecode can take them).

A call that differs from a cached capture only in its tensors' sizes, or that has a size marked dynamic, or
whose function was compiled with dynamic=True, is captured again at its own sizes: its Python runs again, since
the decisions it takes on sizes cannot be replayed blind. Such captures form a family, named by its first
capture's compile id, that counts as one entry against the recompile limits, and their graphs are compiled
generic in sizes (the inductor's kernels read them at the call, so the compiled code is shared). Where a size
still reaches the code (a number computed from it, a loop unrolled over it), a member's compile builds kernels
of its own: each such member counts as an entry of its own. A capture
costs more than an eager call: past config.recompile_limit members, a family captures a new size only while its
members are served again at least as often as they were captured, and never past
config.dynamic_size_captures.

The sizes an operator's result takes from the data (nonzero, unique) cannot vary in a graph at all: data_dependent
tells them apart."""
from __future__ import annotations

from typing import Any, Sequence

import torch
from torch._dynamo import config

__all__ = ["counted", "data_dependent", "family_of", "may_capture", "members", "unshared"]


def family_of(dynamic: bool | None, entries: Sequence[Any], flat: list[Any], structure: Any) -> tuple[str | None, bool]:
    """(the family of the cached captures this call differs from only in sizes, if any; whether its capture is
    one at sizes that vary: in a family, a size marked dynamic, dynamic=True, or, with automatic dynamic shapes
    unless dynamic=False, a cached capture that holds but for the sizes)."""
    # (families' members first, and the first that holds is enough: each is a slow check)
    similar = next((entry for entry in sorted(entries, key=lambda e: e.family is None)
                    if entry.guards.check(flat, structure, sizes=False) is None), None)
    family = similar.family if similar is not None else None
    if family is not None or any(getattr(t, "_dynamo_dynamic_indices", None)
                                 or getattr(t, "_dynamo_weak_dynamic_indices", None)
                                 for t in flat if isinstance(t, torch.Tensor)):
        return family, True
    if dynamic is not None:
        return None, dynamic
    return None, config.automatic_dynamic_shapes and similar is not None


def _own_kernels(entry: Any) -> bool:
    """A family member after the first whose compile built kernels of its own."""
    return entry.family is not None and entry.built and entry.compile_id != entry.family


def counted(entries: Sequence[Any]) -> int:
    """The entries that count against the limits: a family's captures count as one, but for those that built
    kernels of their own."""
    return sum(entry.family is None or _own_kernels(entry) for entry in entries) + \
        len({entry.family for entry in entries if entry.family is not None})


def unshared(entries: Sequence[Any], family: str) -> bool:
    """Whether a family's members build kernels of their own (the next one counts against the limits)."""
    return any(_own_kernels(entry) for entry in members(entries, family))


def members(entries: Sequence[Any], family: str) -> list[Any]:
    return [entry for entry in entries if entry.family == family]


def may_capture(entries: Sequence[Any], family: str) -> bool:
    """Whether a family may capture one more size."""
    captured = members(entries, family)
    replays = sum(entry.replays for entry in captured)
    return len(captured) < config.dynamic_size_captures and (
        len(captured) < config.recompile_limit or replays >= len(captured))


# Operators whose result's size depends on the data (the schema's dynamic_output_shape tag); index.Tensor only
# with a bool mask.
_DYNAMIC_SHAPE = frozenset({"_unique2", "argwhere", "bincount", "masked_select", "nonzero", "nonzero_static",
                            "one_hot", "repeat_interleave", "unique_consecutive", "unique_dim", "unique"})


def data_dependent(func: Any, args: tuple[Any, ...]) -> bool:
    """Whether an operator call's result has a size that depends on the data (a graph break: it would be baked in)."""
    name = getattr(getattr(func, "overloadpacket", None), "__name__", "")
    if name == "one_hot":               # the number of classes from the data only when it is not given
        return len(args) < 2 or args[1] == -1
    if name in _DYNAMIC_SHAPE and name != "nonzero_static":
        return not (name == "repeat_interleave" and len(args) > 1 and not isinstance(args[1], torch.Tensor))
    if name == "index" and len(args) > 1 and isinstance(args[1], (list, tuple)):
        return any(isinstance(i, torch.Tensor) and i.dtype in (torch.bool, torch.uint8) for i in args[1])
    return False
