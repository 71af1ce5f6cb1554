"""The _foreach ops on a device without a multi-tensor kernel of its own (CUDA, or a list mixing
devices): each tensor's own in-place op, in list order, as PyTorch's slow path runs them."""
from __future__ import annotations

from typing import Any


def _foreach_add__Scalar(self: Any, scalar: Any) -> None:
    for t in self:
        t.add_(scalar)
