"""torch.overrides: the __torch_function__ protocol. A torch function or Tensor method whose
arguments include an object defining __torch_function__ (a Tensor subclass, or any object), or that
is called while a TorchFunctionMode is active, is handed to that object or mode instead: the
argument parser finds them (torch/_C/arg_parser.pyx) and dispatch() here runs PyTorch's rules. Python-
level functions take part through has_torch_function / handle_torch_function, as in PyTorch."""
from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from typing import Any, Callable, Iterable, Iterator

from torch._C import arg_parser as _parser
from torch._C.arg_parser import overrides_torch_function

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like",
           "is_tensor_method_or_property", "wrap_torch_function", "TorchFunctionMode", "BaseTorchFunctionMode",
           "enable_reentrant_dispatch"]

_modes = threading.local()      # each thread's mode stack, as PyTorch's (the parser counts them per thread)


def _stack() -> list["TorchFunctionMode"]:
    stack = _modes.__dict__.get("stack")
    if stack is None:
        stack = _modes.stack = []
    return stack


def _get_current_function_mode() -> "TorchFunctionMode | None":
    stack = _stack()
    return stack[-1] if stack else None


def _get_current_function_mode_stack() -> list["TorchFunctionMode"]:
    return list(_stack())


def _push_mode(mode: "TorchFunctionMode") -> None:
    stack = _stack()
    stack.append(mode)
    _parser.set_torch_function_mode_count(len(stack))


def _pop_mode() -> "TorchFunctionMode":
    stack = _stack()
    if not stack:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = stack.pop()
    _parser.set_torch_function_mode_count(len(stack))
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily() -> Iterator["TorchFunctionMode"]:
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def _is_torch_function_mode_enabled() -> bool:
    return bool(_parser.is_torch_function_mode_enabled())


def _no_implementation(public_api: Any, overloaded: list[Any]) -> TypeError:
    name = f"{getattr(public_api, '__module__', None)}.{getattr(public_api, '__name__', public_api)}"
    message = (f"no implementation found for '{name}' on types that implement __torch_function__: "
               f"{[type(arg) for arg in overloaded]}")
    if _is_torch_function_mode_enabled():
        message += f" nor in mode {_get_current_function_mode()}"
    return TypeError(message)


def _multiple_dispatch_failed(public_api: Any, overloaded: list[Any], mode: Any) -> TypeError:
    """The error of a torch function or Tensor method (PyTorch's C++ message) when every handler
    returned NotImplemented."""
    if getattr(public_api, "__module__", "").startswith("torch._C._gen_"):
        qualified = getattr(public_api, "__qualname__", "")
        name = ("Tensor." if qualified.startswith("Tensor_") else "torch.") + public_api.__name__
    else:
        name = f"{getattr(public_api, '__module__', None)}.{getattr(public_api, '__name__', public_api)}"
    lines = ([f"  - mode object {mode!r}"] if mode is not None else []) + \
        [f"  - tensor subclass {type(arg)}" for arg in overloaded]
    return TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
                     "NotImplemented:\n\n" + "\n".join(lines) + "\n\nFor more information, try re-running with "
                     "TORCH_LOGS=not_implemented")


def dispatch(public_api: Any, overloaded: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A torch function or Tensor method call the argument parser found overloaded."""
    try:
        return _dispatch(public_api, overloaded, args, kwargs)
    except _Unhandled as unhandled:
        raise _multiple_dispatch_failed(public_api, overloaded, unhandled.mode) from None


class _Unhandled(Exception):
    def __init__(self, mode: Any) -> None:
        self.mode = mode


def _dispatch(public_api: Any, overloaded: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """PyTorch's order: the innermost mode first (popped while it runs), then each overloaded
    argument, subclasses before their parents; the first result that is not NotImplemented wins
    (_Unhandled when none does)."""
    tried_mode = None
    types = tuple(type(arg) for arg in overloaded)
    if _stack() and _is_torch_function_mode_enabled():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
        tried_mode = mode
    for arg in overloaded:
        impl = arg.__torch_function__
        if getattr(impl, "__self__", None) is arg:
            warnings.warn("Defining your `__torch_function__` as a plain method is deprecated and will be an error "
                          "in future, please define it as a classmethod.", DeprecationWarning, stacklevel=3)
        result = impl(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise _Unhandled(tried_mode)


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether a call with these arguments goes to __torch_function__ (an overloaded argument, or a mode)."""
    return _parser.wants_torch_function(tuple(relevant_args))


def has_torch_function_unary(arg: Any) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args: Any) -> bool:
    return has_torch_function(args)


def handle_torch_function(public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any,
                          **kwargs: Any) -> Any:
    """Run public_api(*args, **kwargs) through the __torch_function__ of relevant_args (and modes)."""
    overloaded = _parser.overloaded_among(tuple(relevant_args))
    try:
        return _dispatch(public_api, overloaded, args, kwargs)
    except _Unhandled:
        raise _no_implementation(public_api, overloaded) from None


def is_tensor_like(inp: Any) -> bool:
    """A Tensor, or an object whose type defines __torch_function__."""
    import torch
    return type(inp) is torch.Tensor or hasattr(inp, "__torch_function__")


def wrap_torch_function(dispatcher: Callable[..., Iterable[Any]]) -> Callable[[Callable[..., Any]], Any]:
    """A decorator making a Python function take part in __torch_function__, with dispatcher(*args,
    **kwargs) naming its relevant arguments."""
    def inner(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


class TorchFunctionMode:
    """`with Mode():` every torch function and Tensor method called inside goes to
    Mode.__torch_function__(func, types, args, kwargs) first; the mode is off while it runs."""

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> "TorchFunctionMode":
        _push_mode(self)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> "TorchFunctionMode":
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      UserWarning, stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs each call as it is (a base for modes that only watch)."""

    def __torch_function__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def enable_reentrant_dispatch() -> Iterator[None]:
    """PyTorch's guard for re-entering __torch_dispatch__; Ember has no __torch_dispatch__, so a
    block under it runs as it is."""
    yield


def get_overridable_functions() -> dict[Any, list[Callable[..., Any]]]:
    """The functions that take part in __torch_function__: every generated torch.* function and
    Tensor method, and torch.nn.functional's."""
    import torch
    from torch._C import _gen_index
    F = torch.nn.functional
    return {torch: [getattr(torch, name) for name in sorted(_gen_index.FUNCTIONS)],
            torch.Tensor: [getattr(torch.Tensor, name) for name in sorted(_gen_index.METHODS)],
            F: [getattr(F, name) for name in sorted(getattr(F, "__all__", ())) if callable(getattr(F, name, None))]}


def get_ignored_functions() -> set[Callable[..., Any]]:
    """The public torch.* callables that never dispatch to __torch_function__."""
    import torch
    overridable = {id(f) for f in get_overridable_functions()[torch]}
    out = set()
    for name in torch.__all__:
        value = getattr(torch, name, None)
        if callable(value) and not isinstance(value, type) and id(value) not in overridable:
            out.add(value)
    return out


def get_testing_overrides() -> dict[Callable[..., Any], Callable[..., Any]]:
    """A stand-in returning -1 for each overridable function (for tests of __torch_function__)."""
    return {func: (lambda *args, **kwargs: -1) for funcs in get_overridable_functions().values() for func in funcs}


def is_tensor_method_or_property(func: Callable[..., Any]) -> bool:
    import torch
    return func in get_overridable_functions()[torch.Tensor] or getattr(func, "__name__", None) == "__get__"

