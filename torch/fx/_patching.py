"""What symbolic tracing changes in the running program, and how it is undone.

While a trace runs, some names are rebound: nn.Module's ``__call__``/``__getattr__`` (so module calls
and parameter reads are recorded), the functions registered with ``torch.fx.wrap`` and the tracer's
auto-wrapped functions (``math.sqrt`` and the like, recorded as one leaf call_function node each).
``_TraceOverrides`` performs every rebinding and keeps, for each, a closure that puts the old state
back; leaving its ``with`` block runs those closures newest first, also when the trace raised."""
from __future__ import annotations

import builtins
import functools
import types
from collections.abc import Callable
from typing import Any

from torch.fx.proxy import Proxy, _proxies_within

# Names registered by torch.fx.wrap: id(module globals) -> (those globals, {name: None} in registration order)
_leaf_function_names: dict[int, tuple[dict[str, Any], dict[str, None]]] = {}
# (class, method name) pairs whose calls involving a Proxy are recorded as one call_method node
_leaf_methods: list[tuple[type, str]] = []


def register_leaf_function(namespace: dict[str, Any], name: str) -> None:
    """Record namespace[name] (a module global, or the builtin of that name) as a leaf in every trace."""
    _, names = _leaf_function_names.setdefault(id(namespace), (namespace, {}))
    names[name] = None


def _find_proxy(*values: Any) -> Proxy | None:
    """The first Proxy anywhere inside values, or None."""
    return next(_proxies_within(values), None)


class _LeafCall:
    """Takes a function's place during a trace. A call that involves a Proxy is recorded as one node
    (``kind``/``target``) instead of running the function; any other call simply runs it. Binds like a
    function, so it can also stand in for a method on a class."""

    def __init__(self, run: Callable[..., Any], kind: str, target: Any, mark_wrapped: bool) -> None:
        functools.update_wrapper(self, run)
        self._run = run
        self._kind = kind
        self._target = target
        self._mark_wrapped = mark_wrapped

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return self._run(*args, **kwargs)
        recorded = proxy.tracer.create_proxy(self._kind, self._target, args, kwargs)
        if self._mark_wrapped:
            # tells the code generator to re-register the function with wrap() in the generated module
            recorded.node.meta["is_wrapped"] = True
        return recorded

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        return self if instance is None else types.MethodType(self, instance)


class _TraceOverrides:
    """Context manager rebinding module globals and class attributes for the length of a trace."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []
        self._namespaces_searched: set[int] = set()

    def __enter__(self) -> _TraceOverrides:
        return self

    def __exit__(self, *exc_info: object) -> None:
        while self._undo:
            self._undo.pop()()
        self._namespaces_searched.clear()

    def set_global(self, namespace: dict[str, Any], name: str, value: Any) -> None:
        if name in namespace:
            previous = namespace[name]
            self._undo.append(lambda: namespace.__setitem__(name, previous))
        else:
            # a builtin reached through the globals' fallback: the new binding only shadows it
            self._undo.append(lambda: namespace.pop(name, None))
        namespace[name] = value

    def set_class_attribute(self, cls: type, name: str, value: Any) -> None:
        # restore what the class itself held (an inherited attribute just loses its override)
        if name in cls.__dict__:
            previous = cls.__dict__[name]
            self._undo.append(lambda: setattr(cls, name, previous))
        else:
            self._undo.append(lambda: delattr(cls, name))
        setattr(cls, name, value)

    def make_leaf(self, namespace: dict[str, Any], name: str) -> None:
        """Rebind namespace[name] (or the builtin it falls back to) to a recording _LeafCall."""
        if name in namespace:
            current = namespace[name]
        elif hasattr(builtins, name):
            current = getattr(builtins, name)
        else:
            raise KeyError(name)
        if isinstance(current, _LeafCall):
            return  # a trace running around this one already records it
        self.set_global(namespace, name, _LeafCall(current, "call_function", current, mark_wrapped=True))

    def make_method_leaf(self, cls: type, name: str) -> None:
        current = getattr(cls, name)
        if not isinstance(current, _LeafCall):
            self.set_class_attribute(cls, name, _LeafCall(current, "call_method", name, mark_wrapped=False))

    def autowrap(self, namespace: dict[str, Any], function_ids: set[int]) -> None:
        """Make leaves of the public globals of namespace that are among function_ids; each namespace
        is searched once per trace."""
        if id(namespace) in self._namespaces_searched:
            return
        self._namespaces_searched.add(id(namespace))
        matches = [name for name, value in namespace.items()
                   if id(value) in function_ids and callable(value) and not name.startswith("_")]
        for name in matches:
            self.make_leaf(namespace, name)

    def install_registered_leaves(self) -> None:
        """Make leaves of everything torch.fx.wrap registered, and of the registered methods."""
        for namespace, names in list(_leaf_function_names.values()):
            for name in list(names):
                self.make_leaf(namespace, name)
        for cls, name in _leaf_methods:
            self.make_method_leaf(cls, name)
