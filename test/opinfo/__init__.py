"""The operator test database (PyTorch's OpInfo, in small).

Each module here defines `OPS: list[OpInfo]` for one area of the operator library (pointwise,
reductions, shape, ...); `all_ops()` collects them, and test/torch/test_opinfo.py runs every
entry: each sample against its NumPy reference, contiguous and non-contiguous, and the out=
and in-place variants the entry declares. Add an op by adding an OpInfo to its area's module.
"""
from __future__ import annotations

import importlib
import pkgutil

from opinfo.core import OpInfo, SampleInput

__all__ = ["OpInfo", "SampleInput", "all_ops"]


def all_ops() -> list[OpInfo]:
    ops: list[OpInfo] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name != "core":
            ops.extend(importlib.import_module(f"opinfo.{info.name}").OPS)
    names = [op.id for op in ops]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"OpInfo ids must be unique; repeated: {duplicates}")
    return ops
