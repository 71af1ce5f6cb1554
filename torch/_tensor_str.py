"""repr(tensor) in PyTorch's format: tensor([1.0000, 2.5000]), dtype/device suffixes, summarised
above 1000 elements."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from c10 import scalar_type

THRESHOLD = 1000
EDGE_ITEMS = 3
_IMPLICIT = ("int64", "bool")


def _float_formatter(values: np.ndarray) -> Any:
    finite = values[np.isfinite(values)].astype(np.float64)
    if finite.size == 0 or np.all(finite == np.round(finite)) and (finite.size == 0 or np.max(np.abs(finite)) < 1e8):
        return lambda v: "nan" if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else f"{v:.0f}.")
    absval = np.abs(finite[finite != 0]) if np.any(finite != 0) else np.array([0.0])
    big, small = float(np.max(absval)), float(np.min(absval))
    if big / max(small, 1e-300) > 1000 or big > 1e8 or small < 1e-4:
        return lambda v: f"{v:.4e}"
    return lambda v: f"{v:.4f}"


def _format(array: np.ndarray, fmt: Any, width: int, indent: int, summarize: bool) -> str:
    if array.ndim == 0:
        return fmt(array.item()).rjust(width)
    n = array.shape[0]
    if summarize and n > 2 * EDGE_ITEMS:
        parts = [_format(array[i], fmt, width, indent + 1, summarize) for i in range(EDGE_ITEMS)] + ["..."] + \
                [_format(array[i], fmt, width, indent + 1, summarize) for i in range(n - EDGE_ITEMS, n)]
    else:
        parts = [_format(array[i], fmt, width, indent + 1, summarize) for i in range(n)]
    if array.ndim == 1:
        return "[" + ", ".join(parts) + "]"
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def tensor_repr(t: Any) -> str:
    array = t._host_view()
    dt = t.dtype
    suffixes = []
    if t.is_cuda:
        suffixes.append(f"device='{t.device}'")
    implicit = dt is scalar_type.get_default_dtype() or dt.name in _IMPLICIT
    if array.size == 0:
        body = "[]" if array.ndim <= 1 else "[]"
        if array.ndim > 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if dt is not scalar_type.get_default_dtype():
            suffixes.append(f"dtype=torch.{dt.name}")
        return "tensor(" + ", ".join([body] + suffixes) + ")"
    summarize = array.size > THRESHOLD
    if dt.is_floating_point:
        fmt = _float_formatter(array)
    elif dt.name == "bool":
        fmt = lambda v: str(bool(v))  # noqa: E731
    else:
        fmt = lambda v: str(int(v))  # noqa: E731
    flat = array.reshape(-1)
    width = max(len(fmt(v)) for v in flat.tolist()) if flat.size <= 100_000 else 10
    body = _format(array, fmt, width, len("tensor("), summarize)
    if not implicit:
        suffixes.append(f"dtype=torch.{dt.name}")
    return "tensor(" + ", ".join([body] + suffixes) + ")"
