"""The torch.fx reference cases' machinery (see tools/record_fx_reference.py): a case is a function of a
torch package that runs one small program and returns a Run, whose `seen` holds what the program showed as
plain JSON values (a node as "%name", a function, class or operator as the qualified name torch.fx gives it,
an enum member or any other object as its repr, object addresses blanked); `case` registers one in CASES."""
import enum
import functools
import importlib
import json
import re
import warnings
from typing import Any, Callable


def _plain(torch: Any, value: Any) -> Any:
    """value as plain JSON: a Node as "%name", a function, class or operator as the qualified name torch.fx gives
    it, an enum member or any other object as its repr; tuples (not their subclasses) and lists as lists."""
    if isinstance(value, enum.Enum):
        return repr(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.fx.Node):
        return "%" + value.name
    if type(value) is tuple or isinstance(value, list):
        return [_plain(torch, v) for v in value]
    if isinstance(value, dict):
        return {str(_plain(torch, k)): _plain(torch, v) for k, v in value.items()}
    if callable(value) and hasattr(value, "__name__"):
        try:
            return str(torch.fx.node._get_qualified_name(value))
        except Exception:  # noqa: BLE001 (no qualified name: its repr)
            pass
    return repr(value)


def _without_addresses(value: Any) -> Any:
    """Object addresses (" at 0x7f..."), which change from run to run, as " at 0x?"."""
    if isinstance(value, str):
        return re.sub(r" at 0x[0-9a-f]+", " at 0x?", value)
    if isinstance(value, list):
        return [_without_addresses(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_addresses(v) for k, v in value.items()}
    return value


def failure(error: BaseException) -> dict[str, Any]:
    """An error as seen: its type's name, its message, and its cause's type's name if it has one."""
    seen: dict[str, Any] = {"error": type(error).__name__, "message": str(error)}
    if error.__cause__ is not None:
        seen["cause"] = type(error.__cause__).__name__
    return seen


class Run:
    """What one case did: `seen` (the recorded observations) and, as attributes, the objects it built."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.seen: dict[str, Any] = {}

    def see(self, key: str, value: Any) -> Any:
        assert key not in self.seen, key
        self.seen[key] = _without_addresses(json.loads(json.dumps(_plain(self.torch, value))))
        return value

    def attempt(self, key: str, fn: Callable[[], Any]) -> Any:
        """Call fn; see {"value": what it returned} or {"error", "message"(, "cause")}. Returns the result (None
        after an error)."""
        try:
            result = fn()
        except Exception as error:  # noqa: BLE001 (the recorded behaviour is the error)
            self.see(key, failure(error))
            return None
        self.see(key, {"value": result})
        return result

    def warned(self, key: str, fn: Callable[[], Any]) -> Any:
        """Call fn; see the warnings it gave as [category, message] pairs."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn()
        self.see(key, [[w.category.__name__, str(w.message)] for w in caught])
        return result


def submodule(torch: Any, name: str) -> Any:
    """torch's submodule `name` ("fx.proxy"), imported."""
    return importlib.import_module(f"{torch.__name__}.{name}")


def names(graph: Any) -> list[str]:
    return [n.name for n in graph.nodes]


CASES: dict[str, Callable[[Any], Run]] = {}


def case(fn: Callable[[Any], Run]) -> Callable[[Any], Run]:
    """Register fn as the case named after it."""
    assert fn.__name__ not in CASES, fn.__name__
    CASES[fn.__name__] = fn
    return fn


def case_for_each(count: int) -> Callable[[Callable[..., Run]], Callable[..., Run]]:
    """Register fn(torch, index) as the cases fn_0 ... fn_<count - 1>."""
    def register(fn: Callable[..., Run]) -> Callable[..., Run]:
        for index in range(count):
            CASES[f"{fn.__name__}_{index}"] = functools.partial(fn, index=index)
        return fn
    return register
