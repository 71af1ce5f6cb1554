"""RemovableHandle: the handle a hook registration returns (PyTorch's torch.utils.hooks.RemovableHandle,
which torch.optim may not import: the layering keeps torch.optim off torch.utils)."""
from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Removes the hook it was returned for from its dict (held weakly, as PyTorch's) on
    `remove()` or on leaving a `with` block."""

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: OrderedDict[int, Any]) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
