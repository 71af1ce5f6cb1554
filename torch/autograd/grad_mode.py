"""no_grad, enable_grad, set_grad_enabled and inference_mode: context managers that are also
decorators, as PyTorch's (torch/autograd/grad_mode.py). The flags themselves are c10's,
per thread."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar

from c10 import grad_mode as _mode

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

is_grad_enabled = _mode.is_grad_enabled
is_inference_mode_enabled = _mode.is_inference_mode_enabled


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions: each resume
    runs under the context) with a fresh instance per call."""

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is deprecated and will be disabled in future versions. "
                               "You should only decorate functions or methods. To preserve the current "
                               "behavior of class decoration, you can directly decorate the `__init__` method "
                               "and nothing else.")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)
        return decorated  # type: ignore[return-value]

    def _wrap_generator(self, func: F) -> F:
        @functools.wraps(func)
        def generator(*args: Any, **kwargs: Any) -> Any:
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as error:
                        with self.clone():
                            response = gen.throw(error)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value
        return generator  # type: ignore[return-value]

    def clone(self) -> _DecoratorContextManager:
        return self.__class__()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, *exc: Any) -> None:
        raise NotImplementedError


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: `@torch.no_grad` as well as `@torch.no_grad()`."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Operations inside record no autograd history (results do not require grad)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _mode.is_grad_enabled()
        _mode.set_grad_enabled(False)

    def __exit__(self, *exc: Any) -> None:
        _mode.set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Grad mode on inside, even within no_grad."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _mode.is_grad_enabled()
        _mode.set_grad_enabled(True)

    def __exit__(self, *exc: Any) -> None:
        _mode.set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode at once (a plain call works like a function); as a context manager or
    decorator, the previous mode comes back on exit."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                            f"{type(mode).__name__}")
        self.prev = _mode.is_grad_enabled()
        self.mode = mode
        _mode.set_grad_enabled(mode)

    def __call__(self, func: F) -> F:
        _mode.set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self) -> None:
        _mode.set_grad_enabled(self.mode)

    def __exit__(self, *exc: Any) -> None:
        _mode.set_grad_enabled(self.prev)

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, for code that never needs autograd (mode=False leaves grad mode alone)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self.prev_grad = False
        self.prev_inference = False

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)            # @inference_mode without parentheses

    def __enter__(self) -> None:
        self.prev_grad = _mode.is_grad_enabled()
        self.prev_inference = _mode.is_inference_mode_enabled()
        if self.mode:
            _mode.set_inference_mode(True)

    def __exit__(self, *exc: Any) -> None:
        _mode.set_inference_mode(self.prev_inference)
        _mode.set_grad_enabled(self.prev_grad)

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)
