"""torch.cuda.amp.common.amp_definitely_not_available."""
from __future__ import annotations

from importlib.util import find_spec

from c10 import cuda as _c10_cuda

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available() -> bool:
    return not (_c10_cuda.is_available() or find_spec("torch_xla"))
