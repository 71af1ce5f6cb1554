"""TorchDispatchMode: Python code that sees every operator call below autograd (PyTorch's Python key).

While a mode is active the dispatcher adds the Python key to every call's key set, and the key's kernel
hands the call, as the operator's OpOverload (`torch.ops.aten.mm.default`) with the arguments the kernel
would get, to the innermost mode's __torch_dispatch__. The mode is off while its own code runs (calls it
makes go to the mode below it, or to the kernels), as PyTorch's: `func(*args, **kwargs)` inside
__torch_dispatch__ runs the operator. The key sits below autograd, so a mode sees what autograd runs:
the ops of a forward, and those of a backward the engine runs while the mode is active.

Modes are per thread, as PyTorch's: a mode entered on one thread sees only that thread's calls."""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

from aten import dispatcher

__all__ = ["TorchDispatchMode", "is_in_torch_dispatch_mode"]

_modes = threading.local()            # .stack: this thread's modes, innermost last
_overloads: dict[str, Any] = {}       # operator name -> its OpOverload


def _overload(handle: dispatcher.OperatorHandle) -> Any:
    op = _overloads.get(handle.name)
    if op is None:
        import torch
        namespace, name = handle.name.split("::", 1) if "::" in handle.name else ("aten", handle.name)
        base, _, overload = name.partition(".")
        op = getattr(getattr(getattr(torch.ops, namespace), base), overload or "default")
        _overloads[handle.name] = op
    return op


def _stack() -> list[TorchDispatchMode]:
    stack = _modes.__dict__.get("stack")
    if stack is None:
        stack = _modes.stack = []
    return stack


def _sync() -> None:
    dispatcher.set_python_key(_handle if _stack() else None)


def _handle(handle: dispatcher.OperatorHandle, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The Python key's kernel: the call, to the innermost mode, with that mode off while it runs."""
    stack = _stack()
    mode = stack.pop()
    _sync()
    try:
        return mode.__torch_dispatch__(_overload(handle), (), args, kwargs)
    finally:
        stack.append(mode)
        _sync()


class TorchDispatchMode:
    """Subclass and define __torch_dispatch__(self, func, types, args=(), kwargs=None); a `with` block of
    an instance routes every operator call made in it there."""

    def __init__(self, _dispatch_key: Any = None) -> None:
        self._dispatch_key = _dispatch_key

    def __torch_dispatch__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError()

    def __enter__(self) -> TorchDispatchMode:
        _push_mode(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchDispatchMode:
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False


def _push_mode(mode: TorchDispatchMode) -> None:
    import torch._indexing_dispatched  # noqa: F401  (indexing reaches the mode as operator calls)
    _stack().append(mode)
    _sync()


def _pop_mode(k: Any = None) -> TorchDispatchMode:
    stack = _stack()
    if not stack:
        raise AssertionError("Trying to pop from an empty mode stack")
    mode = stack.pop()
    _sync()
    return mode


def _get_current_dispatch_mode() -> TorchDispatchMode | None:
    stack = _stack()
    return stack[-1] if stack else None


def _get_current_dispatch_mode_stack() -> list[TorchDispatchMode]:
    return list(_stack())


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    return bool(_stack())


@contextlib.contextmanager
def _pop_mode_temporarily(k: Any = None) -> Iterator[TorchDispatchMode]:
    mode = _pop_mode(k)
    try:
        yield mode
    finally:
        _push_mode(mode)


@contextlib.contextmanager
def _disable_current_modes() -> Iterator[list[TorchDispatchMode]]:
    stack = _stack()
    saved = list(stack)
    stack.clear()
    _sync()
    try:
        yield saved
    finally:
        stack[:] = saved
        _sync()
