"""torch.utils.deterministic: fill_uninitialized_memory, whether (while
torch.use_deterministic_algorithms is on) torch.empty and its kin fill what they allocate, with NaN
for floating and complex dtypes and the largest value for integers, as PyTorch does."""
from __future__ import annotations

import sys
import types

from aten.native.meta import context as _context


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self) -> bool:
        return _context.fill_uninitialized_memory()

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        _context.set_fill_uninitialized_memory(mode)


sys.modules[__name__].__class__ = _Deterministic
