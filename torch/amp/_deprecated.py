"""The per-device spellings PyTorch deprecated in favour of torch.amp: torch.cpu.amp and
torch.cuda.amp forward their names here (by name, so those packages import nothing of torch's)."""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import torch
from torch.amp import autocast_mode as _amp
from torch.amp.grad_scaler import GradScaler as _GradScaler


def _warn(old: str, new: str) -> None:
    warnings.warn(f"`{old}` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3)


class CpuAutocast(_amp.autocast):
    """torch.cpu.amp.autocast: see torch.autocast; deprecated: use torch.amp.autocast("cpu", ...)."""

    def __init__(self, enabled: bool = True, dtype: torch.dtype = torch.bfloat16, cache_enabled: bool = True) -> None:
        _warn("torch.cpu.amp.autocast(args...)", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CudaAutocast(_amp.autocast):
    """torch.cuda.amp.autocast: see torch.autocast; deprecated: use torch.amp.autocast("cuda", ...)."""

    def __init__(self, enabled: bool = True, dtype: torch.dtype = torch.float16, cache_enabled: bool = True) -> None:
        _warn("torch.cuda.amp.autocast(args...)", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CpuGradScaler(_GradScaler):
    """torch.cpu.amp.GradScaler: see torch.amp.GradScaler; deprecated: use torch.amp.GradScaler("cpu", ...)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _warn("torch.cpu.amp.GradScaler(args...)", "torch.amp.GradScaler('cpu', args...)")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class CudaGradScaler(_GradScaler):
    """torch.cuda.amp.GradScaler: see torch.amp.GradScaler; deprecated: use torch.amp.GradScaler("cuda", ...)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _warn("torch.cuda.amp.GradScaler(args...)", "torch.amp.GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def cuda_custom_fwd(fwd: Callable[..., Any] | None = None, *, cast_inputs: torch.dtype | None = None) -> Any:
    """torch.cuda.amp.custom_fwd; deprecated: use torch.amp.custom_fwd(args..., device_type='cuda')."""
    _warn("torch.cuda.amp.custom_fwd(args...)", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return functools.partial(_amp.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd: Callable[..., Any]) -> Any:
    """torch.cuda.amp.custom_bwd; deprecated: use torch.amp.custom_bwd(args..., device_type='cuda')."""
    _warn("torch.cuda.amp.custom_bwd(args...)", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return functools.partial(_amp.custom_bwd, device_type="cuda")(bwd)


def _named(value: Any, module: str, name: str) -> Any:
    value.__module__, value.__name__, value.__qualname__ = module, name, name
    return value


CPU = {"autocast": _named(CpuAutocast, "torch.cpu.amp", "autocast"),
       "GradScaler": _named(CpuGradScaler, "torch.cpu.amp", "GradScaler")}
CUDA = {"autocast": _named(CudaAutocast, "torch.cuda.amp", "autocast"),
        "GradScaler": _named(CudaGradScaler, "torch.cuda.amp", "GradScaler"),
        "custom_fwd": _named(cuda_custom_fwd, "torch.cuda.amp", "custom_fwd"),
        "custom_bwd": _named(cuda_custom_bwd, "torch.cuda.amp", "custom_bwd")}
