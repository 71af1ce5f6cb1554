"""CUDA memory through PyCUDA, imported only when a CUDA tensor is first made.

Without PyCUDA (`pip install -e .[cuda]`) or without a driver and GPU, is_available() is
False and any CUDA allocation raises a RuntimeError that says which of the two is missing.
"""
from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_state: dict[str, Any] = {}


def _init() -> dict[str, Any]:
    """Import PyCUDA, initialise the driver and make a context on device 0, once."""
    with _lock:
        if _state:
            return _state
        try:
            import pycuda.driver as drv
        except ImportError as e:
            _state["error"] = ("Ember was installed without CUDA support: PyCUDA is not importable "
                               f"({e}). Install it with `pip install -e .[cuda]` on a machine with an NVIDIA driver.")
            return _state
        try:
            drv.init()
            count = drv.Device.count()
        except Exception as e:  # pycuda._driver.Error subclasses, raised by cuInit without a driver
            _state["error"] = f"Found no NVIDIA driver on your system ({e})."
            return _state
        if count == 0:
            _state["error"] = "CUDA driver found but no CUDA device is present."
            return _state
        from pycuda.tools import DeviceMemoryPool
        context = drv.Device(0).retain_primary_context()
        context.push()
        _state.update(drv=drv, count=count, context=context, pool=DeviceMemoryPool())
        return _state


def is_available() -> bool:
    return "error" not in _init()


def device_count() -> int:
    state = _init()
    return 0 if "error" in state else int(state["count"])


def lazy_init() -> dict[str, Any]:
    state = _init()
    if "error" in state:
        raise RuntimeError(state["error"])
    return state


def allocate(nbytes: int, device: Any) -> tuple[int, Any]:
    """(device address, owner) of nbytes on a CUDA device, from a caching pool as PyTorch does."""
    state = lazy_init()
    index = device.index or 0
    if index >= state["count"]:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index} requested, {state['count']} present)")
    block = state["pool"].allocate(max(int(nbytes), 1))
    return int(block), block
