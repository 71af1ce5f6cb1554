"""The process-wide switches of torch.*: deterministic algorithms, float32 matmul precision and the
default device. The first lives in aten's context (kernels read it); the default device in the
argument parser (factories read it); the matmul precision is only kept, as Ember's CUDA GEMM
always computes float32 in IEEE float32 (no TF32), so every precision gives the same numbers."""
from __future__ import annotations

from typing import Any

from aten.native.meta import context as _aten_context
from c10 import cuda as _c10_cuda
from c10.device import canonical
from torch._C import arg_parser as _arg_parser

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "set_default_device", "get_default_device"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Make ops use deterministic algorithms, and raise (or, with warn_only, warn) in ops that have
    none; while on, the empty ops fill what they allocate (torch.utils.deterministic)."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _aten_context.set_deterministic_algorithms(mode, warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _aten_context.deterministic_algorithms()


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _aten_context.deterministic_warn_only()


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """0 / "default": off; 1 / "warn": on with warn_only; 2 / "error": on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    _aten_context.set_deterministic_algorithms(debug_mode != 0, debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _aten_context.deterministic_algorithms():
        return 0
    return 1 if _aten_context.deterministic_warn_only() else 2


_MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = "highest"
# torch.backends.cuda.matmul.fp32_precision: "none" until a precision is chosen, then "ieee" or "tf32".
_FP32_PRECISIONS = {"ieee": "highest", "tf32": "high", "none": "highest"}
_matmul_fp32_precision = "none"


def set_float32_matmul_precision(precision: str) -> None:
    """Kept and reported (torch.backends.cuda.matmul reads it); an unknown name warns and changes
    nothing, as PyTorch's."""
    global _matmul_precision, _matmul_fp32_precision
    if precision not in _MATMUL_PRECISIONS:
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _matmul_precision = precision
    _matmul_fp32_precision = "ieee" if precision == "highest" else "tf32"


def get_float32_matmul_precision() -> str:
    return _matmul_precision


def matmul_fp32_precision() -> str:
    return _matmul_fp32_precision


def set_matmul_fp32_precision(value: str) -> None:
    """torch.backends.cuda.matmul.fp32_precision = value ("ieee", "tf32" or "none")."""
    global _matmul_precision, _matmul_fp32_precision
    if value not in _FP32_PRECISIONS:
        raise RuntimeError(f"{value} is not a supported fp32_precision for cuda matmul; "
                           f"expected one of {sorted(_FP32_PRECISIONS)}")
    _matmul_precision, _matmul_fp32_precision = _FP32_PRECISIONS[value], value


def set_default_device(device: Any) -> None:
    """The device that factories without a device= argument (torch.zeros, torch.tensor, ...) create
    on; None sets it back to the CPU. Tensors made from others (zeros_like, new_zeros) keep theirs."""
    if device is None:
        _arg_parser.set_default_device(None)
        return
    if isinstance(device, int) and not isinstance(device, bool):     # an index: of the accelerator
        if not _c10_cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        device = f"cuda:{device}"
    dev = canonical(device)
    if dev.type == "cuda" and dev.index is None and _c10_cuda.is_available():
        dev = canonical("cuda:0")        # the current CUDA device (Ember drives device 0)
    _arg_parser.set_default_device(None if dev.type == "cpu" else dev)


def get_default_device() -> Any:
    dev = _arg_parser.get_default_device()
    return canonical("cpu") if dev is None else dev

