"""torch.backends.cuda: the CUDA backend's switches. Ember's CUDA backend compiles its own kernels
at run time through PyCUDA, so is_built() says whether PyCUDA is installed.

matmul.allow_tf32 and matmul.fp32_precision are torch.set_float32_matmul_precision's state, read
and written both ways as in PyTorch; Ember's GEMM computes float32 in IEEE float32 at every
precision. The scaled-dot-product-attention switches are kept and readable: Ember has one SDPA
implementation (the math formula, on every device), used whatever they say, and no flash or
memory-efficient kernels, so can_use_*() and is_flash_attention_available() answer False."""
from __future__ import annotations

import contextlib
import enum
import importlib.util
import warnings
from typing import Any, Iterator

import torch._context as _context
from aten.native.composite import nn as _nn_composite
from torch.backends import Flag

__all__ = ["is_built", "matmul", "SDPBackend", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled",
           "enable_cudnn_sdp", "fp16_bf16_reduction_math_sdp_allowed", "allow_fp16_bf16_reduction_math_sdp",
           "is_flash_attention_available", "can_use_flash_attention", "can_use_efficient_attention",
           "can_use_cudnn_attention", "sdp_kernel", "preferred_linalg_library", "preferred_blas_library"]


def is_built() -> bool:
    """Whether this Ember can run CUDA kernels when a GPU is present (its CUDA backend needs PyCUDA);
    as PyTorch's, it says nothing about a GPU being available (torch.cuda.is_available())."""
    return importlib.util.find_spec("pycuda") is not None


class cuBLASModule:
    """torch.backends.cuda.matmul."""

    def __getattr__(self, name: str) -> Any:
        if name == "allow_tf32":
            return _context.get_float32_matmul_precision() != "highest"
        if name == "fp32_precision":
            return _context.matmul_fp32_precision()
        if name in _REDUCTIONS:
            return _REDUCTIONS[name].get()
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            _context.set_float32_matmul_precision("high" if value else "highest")
        elif name == "fp32_precision":
            _context.set_matmul_fp32_precision(value)
        elif name in _REDUCTIONS:
            _REDUCTIONS[name].set(value)
        else:
            raise AttributeError(f"Unknown attribute {name}")


_REDUCTIONS = {"allow_fp16_reduced_precision_reduction": Flag("set_allow_fp16_reduction_cublas", True),
               "allow_bf16_reduced_precision_reduction": Flag("set_allow_bf16_reduction_cublas", True),
               "allow_fp16_accumulation": Flag("set_allow_fp16_accumulation_cublas", False)}
matmul = cuBLASModule()


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch chooses between (torch.nn.attention.SDPBackend)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


class _SwitchFlag(Flag):
    """A Flag kept in an aten composite's Switch, so that the composite sees it (flash_sdp)."""

    def __init__(self, setter: str, switch: Any) -> None:
        super().__init__(setter, switch.enabled)
        self.switch = switch

    def get(self) -> Any:
        return self.switch.enabled

    def set(self, value: Any) -> None:
        super().set(value)
        self.switch.enabled = value


_sdp = {"flash": _SwitchFlag("enable_flash_sdp", _nn_composite.flash_sdp), "mem_efficient": Flag("enable_mem_efficient_sdp", True),
        "math": Flag("enable_math_sdp", True), "cudnn": Flag("enable_cudnn_sdp", True),
        "fp16_bf16_reduction_math": Flag("allow_fp16_bf16_reduction_math_sdp", False)}


def flash_sdp_enabled() -> bool:
    return _sdp["flash"].get()


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"].set(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"].get()


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"].set(enabled)


def math_sdp_enabled() -> bool:
    return _sdp["math"].get()


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"].set(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"].get()


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"].set(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    return _sdp["fp16_bf16_reduction_math"].get()


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    _sdp["fp16_bf16_reduction_math"].set(enabled)


def is_flash_attention_available() -> bool:
    """Whether a flash-attention kernel is built in: not in Ember."""
    return False


def can_use_flash_attention(params: Any, debug: bool = False) -> bool:
    if debug:
        warnings.warn("Ember has no flash attention kernel", UserWarning, stacklevel=2)
    return False


def can_use_efficient_attention(params: Any, debug: bool = False) -> bool:
    if debug:
        warnings.warn("Ember has no memory-efficient attention kernel", UserWarning, stacklevel=2)
    return False


def can_use_cudnn_attention(params: Any, debug: bool = False) -> bool:
    if debug:
        warnings.warn("Ember has no cuDNN attention kernel", UserWarning, stacklevel=2)
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True) -> Iterator[None]:
    """The deprecated spelling of torch.nn.attention.sdpa_kernel: sets the switches for the block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=3)
    previous = {name: flag.get() for name, flag in _sdp.items()}
    for name, value in (("flash", enable_flash), ("math", enable_math), ("mem_efficient", enable_mem_efficient),
                        ("cudnn", enable_cudnn)):
        _sdp[name].set(value)
    try:
        yield
    finally:
        for name, value in previous.items():
            _sdp[name].set(value)


class _LinalgBackend(enum.Enum):
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(enum.Enum):
    Default = 0
    Cublas = 1
    Cublaslt = 2


_preferred: dict[str, Any] = {"linalg": _LinalgBackend.Default, "blas": _BlasBackend.Cublas}


def _prefer(kind: str, enum_type: Any, backend: Any) -> Any:
    if backend is not None:
        if isinstance(backend, str):
            names = {member.name.lower(): member for member in enum_type}
            if backend not in names:
                raise RuntimeError(f"Unknown input value. Choose from: {', '.join(names)}, got {backend}")
            backend = names[backend]
        _preferred[kind] = backend
    return _preferred[kind]


def preferred_linalg_library(backend: Any = None) -> _LinalgBackend:
    """Kept and reported; Ember's CUDA linear algebra is its own kernels, whichever is preferred."""
    return _prefer("linalg", _LinalgBackend, backend)


def preferred_blas_library(backend: Any = None) -> _BlasBackend:
    """Kept and reported; Ember's CUDA GEMM is its own kernel, whichever is preferred."""
    return _prefer("blas", _BlasBackend, backend)
