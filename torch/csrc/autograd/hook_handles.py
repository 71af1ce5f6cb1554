"""The handle that a node's or a leaf's register_hook returns (graph.pyx), over the list holding the hook."""
from __future__ import annotations

from typing import Any, Callable, List


class ListHookHandle:
    """What register_hook returns: `remove()` (or leaving a `with` block) unregisters the hook."""

    def __init__(self, hooks: List[Callable[..., Any]], fn: Callable[..., Any]) -> None:
        self._hooks = hooks
        self._fn = fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)

    def __enter__(self) -> "ListHookHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
