"""torch.backends.cudnn: Ember has no cuDNN (its CUDA kernels are its own), so is_available() is
False and version() None, as in a PyTorch built without it. The flags are kept and readable.
Ember's convolutions are deterministic on every device (no atomics, no algorithm search), so
`deterministic=True` holds already and `benchmark=True` has no search to run."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator

from torch.backends import Flag, PropModule, _allow_nonbracketed_mutation

__all__ = ["is_available", "version", "is_acceptable", "set_flags", "flags"]

_enabled = Flag("set_enabled_cudnn", True)
_benchmark = Flag("set_benchmark_cudnn", False)
_deterministic = Flag("set_deterministic_cudnn", False)
_allow_tf32 = Flag("set_allow_tf32_cudnn", True)
_fp32_precision = Flag("set_fp32_precision_cudnn", "none", str)
_depthwise_kernel = Flag("set_depthwise_kernel_cudnn", "auto", str)


def is_available() -> bool:
    """Whether cuDNN can be used: Ember is not built with it."""
    return False


def version() -> int | None:
    return None


def is_acceptable(tensor: Any) -> bool:
    """Whether cuDNN would take this tensor: never, without cuDNN."""
    return False


def set_flags(_enabled_: Any = None, _benchmark_: Any = None, _benchmark_limit: Any = None,
              _deterministic_: Any = None, _allow_tf32_: Any = None, _fp32_precision_: Any = "none",
              _depthwise_kernel_: Any = None) -> tuple[Any, ...]:
    """Set the flags given (None leaves one alone); returns the previous values, in this order."""
    previous = (_enabled.value, _benchmark.value, None, _deterministic.value, _allow_tf32.value,
                _fp32_precision.value, _depthwise_kernel.value)
    for flag, value in ((_enabled, _enabled_), (_benchmark, _benchmark_), (_deterministic, _deterministic_),
                        (_allow_tf32, _allow_tf32_), (_fp32_precision, _fp32_precision_),
                        (_depthwise_kernel, _depthwise_kernel_)):
        if value is not None:
            flag.set(value)
    return previous


@contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
          allow_tf32: bool = True, fp32_precision: str = "none", depthwise_kernel: str = "auto") -> Iterator[None]:
    with _allow_nonbracketed_mutation():
        previous = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision,
                             depthwise_kernel)
    try:
        yield
    finally:
        with _allow_nonbracketed_mutation():
            set_flags(*previous)


class _OpPrecision:
    """torch.backends.cudnn.conv / .rnn: each op's fp32_precision."""

    def __init__(self, op: str) -> None:
        self._flag = Flag(f"set_fp32_precision_cudnn_{op}", "tf32", str)

    @property
    def fp32_precision(self) -> str:
        return self._flag.get()

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        self._flag.set(value)


class CudnnModule(PropModule):
    enabled = _enabled.prop()
    benchmark = _benchmark.prop()
    deterministic = _deterministic.prop()
    allow_tf32 = _allow_tf32.prop()
    fp32_precision = _fp32_precision.prop()
    depthwise_kernel = _depthwise_kernel.prop()
    benchmark_limit = None        # a cuDNN setting: None without cuDNN, as PyTorch's
    conv = _OpPrecision("conv")
    rnn = _OpPrecision("rnn")


sys.modules[__name__] = CudnnModule(sys.modules[__name__], __name__)

enabled: bool
benchmark: bool
deterministic: bool
allow_tf32: bool
fp32_precision: str
