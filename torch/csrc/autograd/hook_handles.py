"""The handle that a node's or a leaf's register_hook returns (graph.pyx), over the list holding the hook, and
the marker of a leaf's post-accumulate hooks among its hooks."""
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


class PostAccumulateHook:
    """fn(leaf) after the leaf's gradient is accumulated into .grad (Tensor.register_post_accumulate_grad_hook).
    Kept among the leaf's hooks (_leaf_hooks), whose readers (torch.compile's guards) see it as one; the engine
    (graph.pyx) calls it after the AccumulateGrad node instead of before."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
