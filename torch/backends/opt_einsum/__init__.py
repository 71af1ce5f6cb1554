"""torch.backends.opt_einsum: whether the opt_einsum package is installed, and the switches that
choose torch.einsum's contraction path with it. Ember's einsum contracts its operands left to right
whatever these say (it does not call opt_einsum yet), which is what PyTorch does without the package."""
from __future__ import annotations

import importlib
import importlib.util
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from torch.backends import ContextProp, PropModule, _allow_nonbracketed_mutation

__all__ = ["is_available", "get_opt_einsum", "set_flags", "flags", "enabled", "strategy"]


def is_available() -> bool:
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum() -> Any:
    """The opt_einsum package, or None where it is not installed."""
    return importlib.import_module("opt_einsum") if is_available() else None


_state: dict[str, Any] = {"enabled": is_available(), "strategy": "auto" if is_available() else None}


def _set_enabled(value: bool) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"opt_einsum.enabled must be a bool, but got {type(value).__name__}")
    _state["enabled"] = value


def _set_strategy(value: str) -> None:
    if not is_available():
        raise ValueError(f"opt_einsum is not available, so setting `strategy` to {value} will not be meaningful. "
                         "torch.einsum will bypass path calculation and simply contract from left to right. "
                         "Please install opt_einsum or unset `strategy`.")
    if not _state["enabled"]:
        raise ValueError(f"opt_einsum is not enabled, so setting a `strategy` to {value} will not be meaningful. "
                         "torch.einsum will bypass path calculation and simply contract from left to right. "
                         "Please set `enabled` to `True` as well or unset `strategy`.")
    if value not in ("auto", "greedy", "optimal"):
        raise ValueError(f"`strategy` must be one of the following: [auto, greedy, optimal] but is {value}")
    _state["strategy"] = value


def set_flags(_enabled: Any = None, _strategy: Any = None) -> tuple[Any, Any]:
    previous = (_state["enabled"], _state["strategy"] if is_available() else None)
    if _enabled is not None:
        _set_enabled(_enabled)
    if _strategy is not None:
        _set_strategy(_strategy)
    return previous


@contextmanager
def flags(enabled: Any = None, strategy: Any = None) -> Iterator[None]:
    with _allow_nonbracketed_mutation():
        previous = set_flags(enabled, strategy)
    try:
        yield
    finally:
        with _allow_nonbracketed_mutation():
            set_flags(*previous)


class OptEinsumModule(PropModule):
    enabled = ContextProp(lambda: _state["enabled"], _set_enabled)
    strategy = ContextProp(lambda: _state["strategy"], _set_strategy)


sys.modules[__name__] = OptEinsumModule(sys.modules[__name__], __name__)

enabled: bool
strategy: Any
