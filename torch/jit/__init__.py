"""torch.jit as PyTorch runs it with TorchScript disabled (PYTORCH_JIT=0): script and trace return
the eager function or module, the decorators mark and return what they decorate, fork runs its
function at once. Ember has no TorchScript compiler; saving and loading TorchScript archives is
refused, naming what is missing."""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Final

__all__ = ["Attribute", "Final", "ScriptFunction", "ScriptModule", "annotate", "export", "fork", "ignore",
           "interface", "is_scripting", "is_tracing", "load", "save", "script", "script_if_tracing", "trace",
           "trace_module", "unused", "wait"]

# PyTorch's FunctionModifiers texts, set on what the decorators mark
_EXPORT = "export (compile this function even if nothing calls it)"
_IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
_UNUSED = "unused (ignore and replace with raising of an exception)"
_NO_ARCHIVES = ("TorchScript archives are not supported by Ember: it has no TorchScript compiler or runtime "
                "(save and load eager modules with torch.save / torch.load)")


class ScriptModule:
    """The type of scripted modules; Ember makes none, so no object is one."""


class ScriptFunction:
    """The type of scripted functions; Ember makes none, so no object is one."""


def is_scripting() -> bool:
    """Whether the caller runs as TorchScript: never here."""
    return False


def is_tracing() -> bool:
    """Whether the caller runs under torch.jit.trace: never here (trace returns the eager object)."""
    return False


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None, example_inputs: Any = None) -> Any:
    """obj itself, as torch.jit.script with TorchScript disabled."""
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """func itself, as torch.jit.trace with TorchScript disabled."""
    return func


def trace_module(mod: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
    return mod


def _marked(fn: Callable[..., Any], modifier: str) -> Callable[..., Any]:
    fn._torchscript_modifier = modifier  # type: ignore[attr-defined]
    return fn


def export(fn: Callable[..., Any]) -> Callable[..., Any]:
    return _marked(fn, _EXPORT)


def unused(fn: Callable[..., Any]) -> Callable[..., Any]:
    return _marked(fn, _UNUSED)


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """@ignore or @ignore(drop=...): leave fn to Python; drop=True is PyTorch's deprecated unused."""
    if callable(drop):
        return _marked(drop, _IGNORE)
    if drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function call on "
                      "compilation. Use torch.jit.unused now. {}", FutureWarning, stacklevel=2)
    return lambda fn: _marked(fn, _UNUSED if drop else _IGNORE)


def script_if_tracing(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


def interface(obj: Any) -> Any:
    return obj


def Attribute(value: Any, type: Any) -> Any:  # noqa: N802, A002 (PyTorch's names)
    """A scripted module's typed attribute: in eager mode, the value."""
    return value


def annotate(the_type: Any, the_value: Any) -> Any:
    return the_value


class Future:
    """What fork returns: the result, computed when fork ran."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        return self._value

    def value(self) -> Any:
        return self._value

    def done(self) -> bool:
        return True

    def then(self, callback: Callable[[Future], Any]) -> Future:
        return Future(callback(self))


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
    """func(*args, **kwargs), run now (TorchScript would run it asynchronously)."""
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    return future.wait()


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    raise RuntimeError(f"torch.jit.save: {_NO_ARCHIVES}")


def load(f: Any, map_location: Any = None, _extra_files: Any = None, _restore_shapes: bool = False) -> Any:
    raise RuntimeError(f"torch.jit.load: {_NO_ARCHIVES}")
