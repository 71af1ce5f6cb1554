"""torch.cpu: the CPU device's counterpart of torch.cuda's device functions, and the deprecated
torch.cpu.amp spellings."""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["is_available", "device_count", "current_device", "synchronize"]


def is_available() -> bool:
    """The CPU is always available."""
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device: Any = None) -> None:
    """CPU work is synchronous: nothing to wait for."""


def __getattr__(name: str) -> Any:
    if name == "amp":
        return importlib.import_module("torch.cpu.amp")
    raise AttributeError(f"module 'torch.cpu' has no attribute '{name}'")
