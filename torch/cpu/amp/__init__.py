"""torch.cpu.amp: deprecated spellings of torch.amp's autocast and GradScaler for the CPU, forwarded
by name to torch.amp (imported on first use)."""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["autocast", "GradScaler"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module("torch.amp._deprecated").CPU[name]
    raise AttributeError(f"module 'torch.cpu.amp' has no attribute '{name}'")
