"""torch.backends: the switches and availability queries of the libraries PyTorch can run on.

Ember answers for its own build: it has no cuDNN, MKL, oneDNN or MPS, so those report unavailable
and keep their flags (readable, settable, and restored by flags()) without a library to steer.
Flags with a mechanism in Ember act: torch.backends.cuda.matmul.allow_tf32 is the float32 matmul
precision, and the deterministic switches are torch.use_deterministic_algorithms'. Submodules load
on first use, as `torch.backends.cudnn` is reached without an import in programs."""
from __future__ import annotations

import importlib
import types
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["ContextProp", "PropModule", "disable_global_flags", "flags_frozen"]

_SUBMODULES = ("cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp", "opt_einsum")
_mutation_allowed = True


def disable_global_flags() -> None:
    """From now on, flags change only inside their flags() context managers."""
    global _mutation_allowed
    _mutation_allowed = False


def flags_frozen() -> bool:
    return not _mutation_allowed


@contextmanager
def _allow_nonbracketed_mutation() -> Iterator[None]:
    global _mutation_allowed
    old, _mutation_allowed = _mutation_allowed, True
    try:
        yield
    finally:
        _mutation_allowed = old


class ContextProp:
    """A module attribute backed by a getter and a setter (torch.backends.cudnn.enabled = ...)."""

    def __init__(self, getter: Callable[[], Any], setter: Callable[[Any], None]) -> None:
        self.getter = getter
        self.setter = setter

    def __get__(self, obj: Any, objtype: Any) -> Any:
        return self.getter()

    def __set__(self, obj: Any, val: Any) -> None:
        if flags_frozen():
            raise RuntimeError(f"not allowed to set {obj.__name__} flags after disable_global_flags; "
                               "please use flags() context manager instead")
        self.setter(val)


class PropModule(types.ModuleType):
    """A module whose class holds ContextProps; other names come from the module it replaces."""

    def __init__(self, m: types.ModuleType, name: str) -> None:
        super().__init__(name)
        self.m = m

    def __getattr__(self, attr: str) -> Any:
        return self.m.__getattribute__(attr)


class Flag:
    """One stored switch, with the check PyTorch's setter makes; setter names PyTorch's C setter
    in its message ("set_enabled_cudnn expects a bool, but got int")."""

    def __init__(self, setter: str, value: Any, kind: type = bool) -> None:
        self.setter, self.value, self.kind = setter, value, kind

    def get(self) -> Any:
        return self.value

    def set(self, value: Any) -> None:
        if not isinstance(value, self.kind):
            raise RuntimeError(f"{self.setter} expects a {self.kind.__name__}, but got {type(value).__name__}")
        self.value = value

    def prop(self) -> ContextProp:
        return ContextProp(self.get, self.set)


class NoVerbose:
    """A library's verbose mode for a block, where the library is absent: nothing to report."""

    def __init__(self, level: int) -> None:
        self.level = level

    def __enter__(self) -> "NoVerbose":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBMODULES))
