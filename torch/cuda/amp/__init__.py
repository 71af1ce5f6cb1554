"""torch.cuda.amp: deprecated spellings of torch.amp's autocast, GradScaler and custom_fwd/bwd for
CUDA, forwarded by name to torch.amp (imported on first use, so torch.cuda imports nothing of the
layers above it)."""
from __future__ import annotations

import importlib
from typing import Any

from torch.cuda.amp.common import amp_definitely_not_available

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module("torch.amp._deprecated").CUDA[name]
    raise AttributeError(f"module 'torch.cuda.amp' has no attribute '{name}'")
