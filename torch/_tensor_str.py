"""repr(tensor) in PyTorch's format (torch/_tensor_str.py's rules): one formatter per tensor
chooses integer-valued (`1.`), fixed (`1.0000`) or scientific (`1.0000e+00`) notation from the
non-zero finite values, pads to their widest, and summarises above 1000 elements."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from c10 import scalar_type

THRESHOLD = 1000
EDGE_ITEMS = 3
LINEWIDTH = 80
_IMPLICIT = ("int64", "bool")


class _Formatter:
    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            self.max_width = max((len(str(v)) for v in values.tolist()), default=1)
            return
        finite = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            self.sci_mode = high / low > 1000.0 or high > 1e8
        else:
            self.sci_mode = high / low > 1000.0 or high > 1e8 or low < 1e-4
        self.max_width = max(len(self._text(v)) for v in finite.tolist())

    def _text(self, value: Any) -> str:
        if not self.floating:
            return str(value)
        if self.sci_mode:
            return f"{value:.4e}"
        if self.int_mode:
            text = f"{value:.0f}"
            return text if math.isinf(value) or math.isnan(value) else text + "."
        return f"{value:.4f}"

    def format(self, value: Any) -> str:
        text = self._text(value)
        return " " * (self.max_width - len(text)) + text


def _format(array: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if array.ndim == 0:
        return fmt.format(array.item())
    n = array.shape[0]
    if summarize and n > 2 * EDGE_ITEMS:
        head = [_format(array[i], fmt, indent + 1, summarize) for i in range(EDGE_ITEMS)]
        tail = [_format(array[i], fmt, indent + 1, summarize) for i in range(n - EDGE_ITEMS, n)]
        parts = head + [" ..." if array.ndim == 1 else "..."] + tail
    else:
        parts = [_format(array[i], fmt, indent + 1, summarize) for i in range(n)]
    if array.ndim == 1:
        # As many elements per line as fit the line width (each is the widest plus ", ").
        per_line = max(1, (LINEWIDTH - indent) // (fmt.max_width + 2))
        lines = [", ".join(parts[i:i + per_line]) for i in range(0, len(parts), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _summary_values(array: np.ndarray) -> np.ndarray:
    """The elements a summarised repr shows (the formatter looks only at those, as PyTorch's)."""
    if array.ndim == 0:
        return array.reshape(1)
    if array.shape[0] > 2 * EDGE_ITEMS:
        array = np.concatenate([array[:EDGE_ITEMS], array[-EDGE_ITEMS:]])
    return np.concatenate([_summary_values(a) for a in array]) if array.ndim > 1 else array


def tensor_repr(t: Any) -> str:
    array = t._host_view()
    dt = t.dtype
    suffixes = []
    if t.is_cuda:
        suffixes.append(f"device='{t.device}'")
    if array.size == 0:
        if array.ndim > 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if dt is not scalar_type.get_default_dtype():
            suffixes.append(f"dtype=torch.{dt.name}")
        if t.requires_grad:
            suffixes.append("requires_grad=True")
        return "tensor(" + ", ".join(["[]"] + suffixes) + ")"
    summarize = array.size > THRESHOLD
    shown = _summary_values(array) if summarize else array.reshape(-1)
    fmt = _Formatter(shown, dt.is_floating_point)
    body = _format(array, fmt, len("tensor("), summarize)
    if not (dt is scalar_type.get_default_dtype() or dt.name in _IMPLICIT):
        suffixes.append(f"dtype=torch.{dt.name}")
    if t.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes("tensor(" + body, suffixes, len("tensor("))


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """PyTorch's _add_suffixes: a suffix that would pass the line width starts a new line."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"
