"""Comparing results with ones recorded from PyTorch (tools/record_*_reference.py): nested lists and
dicts of numbers and strings, as the recorders write them to JSON."""
from __future__ import annotations

import math
from typing import Any


def mismatch(mine: Any, ref: Any, rel: float, abs: float, where: str = "", ordered_keys: bool = False,
             tuples: bool = False) -> str | None:
    """Where mine first differs from ref (None if nowhere): the same structure and keys (in order
    with ordered_keys; tuples standing for lists with tuples), floats within rel/abs (a NaN matches
    a NaN, an infinity only itself), everything else exactly."""
    if isinstance(ref, list):
        if not isinstance(mine, (list, tuple) if tuples else list) or len(mine) != len(ref):
            return f"{where}: {mine!r} != {ref!r}"
        for i, (m, r) in enumerate(zip(mine, ref)):
            found = mismatch(m, r, rel, abs, f"{where}[{i}]", ordered_keys, tuples)
            if found:
                return found
        return None
    if isinstance(ref, dict):
        if not isinstance(mine, dict) or (list(mine) != list(ref) if ordered_keys else sorted(mine) != sorted(ref)):
            return f"{where}: keys {list(mine) if isinstance(mine, dict) else mine!r} != {list(ref)}"
        for k in ref:
            found = mismatch(mine[k], ref[k], rel, abs, f"{where}.{k}", ordered_keys, tuples)
            if found:
                return found
        return None
    if isinstance(ref, float):
        if isinstance(mine, (int, float)) and ((math.isnan(ref) and math.isnan(mine))
                                               or math.isclose(mine, ref, rel_tol=rel, abs_tol=abs)):
            return None
        return f"{where}: {mine!r} != {ref!r}"
    return None if mine == ref else f"{where}: {mine!r} != {ref!r}"


def assert_matches(mine: Any, ref: Any, where: str, rel: float, abs: float, **options: bool) -> None:
    found = mismatch(mine, ref, rel, abs, where, **options)
    assert found is None, found
