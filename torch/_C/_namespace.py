"""Lazy namespaces of generated functions: torch.linalg, torch.special, torch._C._nn.

Each is a module whose functions come from `_gen_index.NAMESPACES[<python_module>]` and are
imported from their generated binding module on first use, as torch.<op> is.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

from torch._C import _gen_index


def lazy_functions(module_globals: dict[str, Any], namespace: str) -> tuple[Callable[[str], Any],
                                                                            Callable[[], list[str]]]:
    """__getattr__ and __dir__ for a module serving the functions of one python_module."""
    entries = _gen_index.NAMESPACES.get(namespace, {})
    qualified = module_globals["__name__"]

    def __getattr__(name: str) -> Any:
        module = entries.get(name)
        if module is None:
            raise AttributeError(f"module '{qualified}' has no attribute '{name}'")
        value = getattr(importlib.import_module(module), name)
        module_globals[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(module_globals) | set(entries))

    return __getattr__, __dir__
