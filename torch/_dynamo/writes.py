"""torch._dynamo.writes: an attribute the captured call assigned outside the graph (a module's, a tensor's .grad,
an argument's field, one inside a library argument), assigned again after each replay's graph runs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torch._dynamo import library_arguments

__all__ = ["Write"]


@dataclass
class Write:
    """A module attribute (or a tensor's .grad) the captured call assigned: replayed after the graph, from the
    graph's output `output` (a tensor the graph computes) or as `value` (anything else), on `module`, or on the
    argument at `position` when the owner was one (on its `field`, or on what it holds at `path`)."""
    module: Any
    name: str
    output: int | None
    value: Any
    position: int | None = None
    members: tuple[int, ...] | None = None      # a tuple or list (of kind `value`) of these graph outputs
    field: str | None = None                    # the owner is this field of the argument at position
    path: library_arguments.Path | None = None  # or what it holds at this path (a library argument's)

    def owner(self, flat: list[Any]) -> Any:
        """Whose attribute a replay assigns: the module, the argument at position, that argument's field or what
        it holds at path."""
        if self.position is None:
            return self.module
        if self.path is not None:
            return library_arguments.value_at(flat, self.position, self.path)
        return flat[self.position] if self.field is None else getattr(flat[self.position], self.field)

    def assign(self, flat: list[Any], value: Any) -> None:
        if self.path is not None:       # inside a library argument, whose class assigns plainly (rebound)
            self.owner(flat).__dict__[self.name] = value
        else:
            setattr(self.owner(flat), self.name, value)
