"""torch.utils: helpers around the core API; each submodule loads on first use."""
from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

_SUBMODULES = ("_pytree", "checkpoint", "collect_env", "data", "deterministic", "dlpack", "hooks")


def __getattr__(name: str) -> _Any:
    if name not in _SUBMODULES:
        raise AttributeError(f"module 'torch.utils' has no attribute '{name}'")
    value = _importlib.import_module(f"torch.utils.{name}")
    globals()[name] = value
    return value
