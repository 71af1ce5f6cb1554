"""torch.ops.aten.<name>.<overload>: every operator of the dispatcher, callable directly."""
from __future__ import annotations

from typing import Any

import aten._gen_registrations  # noqa: F401  (defines the operators)
from aten import dispatcher


class OpOverloadPacket:
    """All overloads of one operator name; `.default` is the one without an overload name."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, overload: str) -> Any:
        qualified = self._name if overload == "default" else f"{self._name}.{overload}"
        if not dispatcher.has_operator(qualified):
            raise AttributeError(f"The underlying op of 'aten.{self._name}' has no overload name '{overload}'")
        return dispatcher.find_operator(qualified)

    def overloads(self) -> list[str]:
        prefix = self._name + "."
        return [n[len(prefix):] if n.startswith(prefix) else "default"
                for n in dispatcher.operator_names() if n == self._name or n.startswith(prefix)]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if dispatcher.has_operator(self._name):
            return dispatcher.find_operator(self._name)(*args, **kwargs)
        raise RuntimeError(f"aten::{self._name} has no default overload; use one of {self.overloads()}")

    def __repr__(self) -> str:
        return f"aten.{self._name}"


class _Namespace:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, name: str) -> OpOverloadPacket:
        if not any(n == name or n.startswith(name + ".") for n in dispatcher.operator_names()):
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'")
        return OpOverloadPacket(name)


class _Ops:
    aten = _Namespace("aten")


ops = _Ops()
