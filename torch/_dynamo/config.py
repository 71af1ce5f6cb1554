"""torch._dynamo.config: the capture's settings, as PyTorch's names them (attributes of this module;
`patch` sets some for a block or a decorated function). `cache_size_limit` is the older name of
`recompile_limit`: reading or setting either reads or sets the one value."""
from __future__ import annotations

import contextlib
import functools
import sys
import types
from typing import Any, Callable, Iterator

# How many graphs one function keeps for different guards; past it the function runs eagerly for
# new guards, with a warning.
recompile_limit = 8
# The same bound over every function compiled in the process.
accumulated_recompile_limit = 256
# Raise instead of recompiling (tests of "compiled once").
error_on_recompile = False
# Turn a backend's exception into falling back to eager with a warning, instead of raising.
suppress_errors = False
verbose = False
# What PyTorch's capture would do with them; Ember's capture treats item() as a graph break (see README).
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
# Ember's: the most sizes one compiled function captures when its sizes vary (new sizes past it run eagerly)
dynamic_size_captures = 64
assume_static_by_default = True
force_parameter_static_shapes = True
inline_inbuilt_nn_modules = True
optimize_ddp = True
specialize_int = False
specialize_float = False

_ALIASES = {"cache_size_limit": "recompile_limit", "accumulated_cache_size_limit": "accumulated_recompile_limit"}


class _ConfigModule(types.ModuleType):
    """This module, with the older names as aliases of the newer ones."""

    def __getattr__(self, name: str) -> Any:
        if name in _ALIASES:
            return getattr(self, _ALIASES[name])
        raise AttributeError(f"module 'torch._dynamo.config' has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(_ALIASES.get(name, name), value)


@contextlib.contextmanager
def _patched(changes: dict[str, Any]) -> Iterator[None]:
    module = sys.modules[__name__]
    saved = {name: getattr(module, name) for name in changes}
    for name, value in changes.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


class _Patch:
    """config.patch(name=value, ...) or config.patch("name", value): a context manager and a decorator."""

    def __init__(self, changes: dict[str, Any]) -> None:
        module = sys.modules[__name__]
        for name in changes:
            if not hasattr(module, name):
                raise AttributeError(f"torch._dynamo.config has no setting {name!r}")
        self.changes = changes
        self._active: Any = None

    def __enter__(self) -> None:
        self._active = _patched(self.changes)
        self._active.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._active.__exit__(*exc)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def patched(*args: Any, **kwargs: Any) -> Any:
            with _patched(self.changes):
                return fn(*args, **kwargs)
        return patched


def patch(arg: str | dict[str, Any] | None = None, value: Any = None, **changes: Any) -> _Patch:
    if isinstance(arg, dict):
        changes = {**arg, **changes}
    elif arg is not None:
        changes = {arg: value, **changes}
    return _Patch(changes)


sys.modules[__name__].__class__ = _ConfigModule
