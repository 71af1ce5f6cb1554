"""torch._dynamo.tensor_attributes: what a program keeps on its tensors (x.scale = 2.0, x.meta = Config()), told
apart from Ember's own per-tensor state, and the guards' test that a tensor still carries it."""
from __future__ import annotations

from typing import Any

import torch
from torch._dynamo.guards import attributes_of, same_attributes
from torch._dynamo.program_state import members_of

__all__ = ["EMBER_TENSOR_STATE", "attributes_changed", "attributes_hold", "public_attributes"]

# Ember's own per-tensor state, kept in a tensor's __dict__ under these names (its autograd links and flags, a
# view's version, forward-mode tangents); torch._dynamo's marks (mark_dynamic) start with _dynamo_
EMBER_TENSOR_STATE = frozenset({"_accumulation_lock", "_fw_grads", "_grad", "_grad_accumulator", "_grad_fn",
                                 "_leaf_hooks", "_output_nr", "_requires_grad", "_retains_grad", "_view_version"})


def public_attributes(tensor: torch.Tensor) -> tuple[tuple[str, Any, bool], ...]:
    """The attributes a program set on a tensor (x.scale = 2.0, x._scale = 2.0, x._meta = Config()), as
    guards.attributes_of gives them. Ember's own state and torch._dynamo's marks are not the program's; of the
    other names with a leading underscore, those holding plain values, containers or the program's objects are
    (a library's objects under such names, a weak reference say, would not compare alike from call to call)."""
    return tuple(entry for entry in attributes_of(tensor)
                 if not entry[0].startswith("_") or entry[0] not in EMBER_TENSOR_STATE
                 and not entry[0].startswith("_dynamo_") and (entry[2] or _program_state(entry[1])))


def _program_state(value: Any) -> bool:
    """A container or an object the program keeps state in (program_state.members_of knows it)."""
    return not isinstance(value, torch.Tensor) and members_of(value) is not None


def attributes_hold(tensor: torch.Tensor, expected: tuple[tuple[str, Any, bool], ...]) -> bool:
    """Whether a tensor carries the attributes the program had set on it when captured (public_attributes)."""
    if not expected and tensor.__dict__.keys() <= EMBER_TENSOR_STATE:      # (the common case, at every replay)
        return True
    return same_attributes(public_attributes(tensor), expected)


def attributes_changed(flat: list[Any], position: int, expected: tuple[tuple[str, Any, bool], ...]) -> str | None:
    """What changed in the attributes set on the tensor argument at position, None if nothing did (a nones
    reader)."""
    return None if attributes_hold(flat[position], expected) else \
        f"the attributes set on tensor argument {position} changed"
