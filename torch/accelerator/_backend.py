"""The accelerator behind torch.accelerator (CUDA, Ember's only one) and PyTorch's error without one."""
from __future__ import annotations

from typing import Any

import torch.cuda


def cuda() -> Any:
    return torch.cuda


def require() -> None:
    if not cuda().is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def device_of(device: Any) -> Any:
    """An index, "cuda[:i]" or a torch.device of the accelerator's type, as torch.cuda takes it."""
    if device is None or isinstance(device, int):
        return device
    from c10.device import canonical
    d = canonical(device)
    if d.type != "cuda":
        raise ValueError(f"{d.type} doesn't match the current accelerator cuda.")
    return d
