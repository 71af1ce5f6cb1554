"""repr(tensor) in PyTorch's format (torch/_tensor_str.py's rules): one formatter per tensor
chooses integer-valued (`1.`), fixed (`1.0000`) or scientific (`1.0000e+00`) notation from the
non-zero finite values shown, pads to their widest, and summarises above `threshold` elements.
`set_printoptions` changes precision, threshold, edge items, line width and scientific mode."""
from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Iterator

import numpy as np

from c10 import scalar_type


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set options for printing tensors (PyTorch's names and profiles: default, short, full).
    As PyTorch's, sci_mode is reset to automatic unless given."""
    if profile in _PROFILES:
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for set_printoptions."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Change the print options inside a with block only."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


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
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        else:
            self.sci_mode = high / low > 1000.0 or high > 1e8 or low < 1e-4
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{precision}e}") for v in finite.tolist())
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in finite.tolist())
        else:
            self.max_width = max(len(f"{v:.{precision}f}") for v in finite.tolist())

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{PRINT_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{PRINT_OPTS.precision}f}"
        return " " * (self.max_width - len(text)) + text


class _ComplexFormatter:
    """PyTorch's pair of formatters for a complex tensor: one over the real parts, one over the
    imaginary parts (each choosing its own notation), joined as `re+imj` with the imaginary
    part's padding dropped."""

    def __init__(self, values: np.ndarray) -> None:
        self.real, self.imag = _Formatter(values.real, True), _Formatter(values.imag, True)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value: Any) -> str:
        real, imag = self.real.format(value.real), (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _format(array: np.ndarray, fmt: Any, indent: int, summarize: bool) -> str:
    if array.ndim == 0:
        return fmt.format(array.item())
    n, edge = array.shape[0], PRINT_OPTS.edgeitems
    if summarize and not edge:
        parts = ["..."]
    elif summarize and n > 2 * edge:
        head = [_format(array[i], fmt, indent + 1, summarize) for i in range(edge)]
        tail = [_format(array[i], fmt, indent + 1, summarize) for i in range(n - edge, n)]
        parts = head + [" ..." if array.ndim == 1 else "..."] + tail
    else:
        parts = [_format(array[i], fmt, indent + 1, summarize) for i in range(n)]
    if array.ndim == 1:
        # As many elements per line as fit the line width (each is the widest plus ", ").
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.max_width + 2))
        lines = [", ".join(parts[i:i + per_line]) for i in range(0, len(parts), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _summary_values(array: np.ndarray) -> np.ndarray:
    """The elements a summarised repr shows (the formatter looks only at those, as PyTorch's)."""
    edge = PRINT_OPTS.edgeitems
    if array.ndim == 0:
        return array.reshape(1)
    if array.ndim > 1 and not edge:
        return array[:0].reshape(-1)
    if array.shape[0] > 2 * edge:
        array = np.concatenate([array[:edge], array[-edge:]]) if edge else array[:0]
    if array.ndim == 1:
        return array
    return np.concatenate([_summary_values(a) for a in array]) if len(array) else array.reshape(-1)


def _body(array: np.ndarray, floating: bool, indent: int) -> str:
    summarize = array.size > PRINT_OPTS.threshold
    shown = _summary_values(array) if summarize else array.reshape(-1)
    fmt = _ComplexFormatter(shown) if np.iscomplexobj(array) else _Formatter(shown, floating)
    return _format(array, fmt, indent, summarize)


def _has_default_dtype(dt: Any) -> bool:
    """Whether repr leaves the dtype out: the default float dtype, its complex twin, int64, bool."""
    default = scalar_type.get_default_dtype()
    return dt is default or dt.name in ("int64", "bool") or (dt.is_complex and dt.to_real() is default)


# vmap's batched tensors print as PyTorch's (torch._functorch.batched installs the printer: it sits above torch)
_batched_repr: Any = None


def set_batched_repr(printer: Any) -> None:
    global _batched_repr
    _batched_repr = printer


def tensor_repr(t: Any) -> str:
    from torch._tensor import Tensor
    if t._is_batched() and _batched_repr is not None:
        return str(_batched_repr(t))
    prefix = "tensor(" if type(t) is Tensor else f"{type(t).__name__}("
    indent = len(prefix)
    dt = t.dtype
    suffixes = []
    if t.is_cuda:
        suffixes.append(f"device='{t.device}'")
    if t.numel() == 0:              # no NumPy view: NumPy refuses shapes like (2**62, 0)
        array = None
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if dt is not scalar_type.get_default_dtype():
            suffixes.append(f"dtype={dt}")
        body = "[]"
    else:
        array = t._host_view()
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(array.shape)}")
        if not _has_default_dtype(dt):
            suffixes.append(f"dtype={dt}")
        body = _body(array, dt.is_floating_point, indent)
    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    if t._has_forward_ad_key():
        from torch.autograd import forward_ad
        tangent = forward_ad.unpack_dual(t).tangent
        if tangent is not None:
            suffixes.append(f"tangent={tangent}")
    return _with_suffixes(prefix + body, suffixes, indent)


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """PyTorch's _add_suffixes: a suffix that would pass the line width starts a new line."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"
