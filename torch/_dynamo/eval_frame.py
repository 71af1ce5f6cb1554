"""torch._dynamo.eval_frame: OptimizedModule, what torch.compile wraps a module in (libraries test
isinstance against it). Ember compiles nothing, so no module is one, and making one raises the
missing compiler's error."""
from __future__ import annotations

from typing import Any

from torch.compiler import _NO_COMPILER
from torch.nn import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A module compiled by torch.compile: not available in Ember (see the module's docstring)."""

    def __init__(self, mod: Module, dynamo_ctx: Any = None) -> None:
        raise RuntimeError(_NO_COMPILER)
