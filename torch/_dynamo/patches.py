"""torch._dynamo.patches: attributes of classes and modules replaced for a block, on one thread: what the
capture's observers (torch._dynamo.observers) stand in front of."""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

__all__ = ["on_thread", "original", "patched"]


@contextlib.contextmanager
def patched(patches: list[tuple[Any, str, Any]]) -> Iterator[None]:
    """Set each (owner, name, value) for the block; afterwards each owner has what it had (an inherited
    attribute is inherited again)."""
    saved = [(owner, name, owner.__dict__.get(name, _INHERITED) if isinstance(owner, type) else getattr(owner, name))
             for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in reversed(saved):
            if value is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


_INHERITED = object()


def original(owner: Any, name: str) -> Any:
    """What owner has under name: its own entry (a class's __dict__, so a property is the property), else what
    it inherits."""
    return owner.__dict__.get(name, getattr(owner, name)) if isinstance(owner, type) else getattr(owner, name)


def on_thread(thread: int, patch: Any, replaced: Any) -> Any:
    """patch on the capturing thread, what it replaced on every other: a capture sees only its own thread's
    calls."""
    if isinstance(patch, property):
        fget, fset, fdel = (None if p is None else on_thread(thread, p, o) for p, o in (
            (patch.fget, replaced.fget), (patch.fset, replaced.fset), (patch.fdel, replaced.fdel)))
        return property(fget, fset, fdel, patch.__doc__)
    if isinstance(patch, classmethod):
        inner = replaced.__func__ if isinstance(replaced, classmethod) else replaced
        return classmethod(on_thread(thread, patch.__func__, inner))
    if not callable(patch) or getattr(patch, "checks_thread", False):
        return patch            # (a patch that checks the thread itself)

    def call(*args: Any, **kwargs: Any) -> Any:
        return (patch if threading.get_ident() == thread else replaced)(*args, **kwargs)
    return call
