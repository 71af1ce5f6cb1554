"""torch.autocast: regions where listed ops run in a lower-precision dtype (PyTorch's torch.amp).

The context manager only sets the per-thread state of aten/autocast_mode.pyx; the casting happens
in the dispatcher's Autocast kernels, whose policies the schema declares per op.
"""
from __future__ import annotations

import collections.abc
import functools
import warnings
from typing import Any, Callable, Literal

import numpy as np

import torch
from aten import autocast_mode as _state

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be used for device_type ('cpu' and 'cuda' here)."""
    return bool(_state.is_autocast_available(device_type))


def autocast_decorator(autocast_instance: autocast, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


class autocast:  # noqa: N801 (PyTorch's name)
    """Run the region's ops in mixed precision: listed ops in `dtype` (default: bfloat16 on the CPU,
    float16 on CUDA), precision-sensitive ones in float32, the rest as they are. Nests; usable as a
    decorator; the state is per thread."""

    def __init__(self, device_type: str, dtype: torch.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = torch.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        supported = [torch.bfloat16, torch.float16]
        self._cache_enabled = torch.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        device_name = self.device.upper()
        if enabled:
            if self.device == "cuda":
                if not torch.cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                                  stacklevel=2)
                    enabled = False
                elif self.fast_dtype == torch.bfloat16 and not torch.cuda.is_bf16_supported():
                    raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            elif self.fast_dtype not in supported:
                warnings.warn(f"In {device_name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{device_name} Autocast only supports dtypes of "
                              + ", ".join(map(str, supported)) + " currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = torch.is_autocast_cache_enabled()
        self.prev = torch.is_autocast_enabled(self.device)
        self.prev_fastdtype = torch.get_autocast_dtype(self.device)
        torch.set_autocast_enabled(self.device, self._enabled)
        torch.set_autocast_dtype(self.device, self.fast_dtype)
        torch.autocast_increment_nesting()
        torch.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> Literal[False]:
        # Leaving the outermost region drops the cached weight casts.
        if torch.autocast_decrement_nesting() == 0:
            torch.clear_autocast_cache()
        torch.set_autocast_enabled(self.device, self.prev)
        torch.set_autocast_dtype(self.device, self.prev_fastdtype)
        torch.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                            "Did you mean to use autocast as a context manager? For example:\n"
                            "    with torch.autocast(device_type=...):\n"
                            "        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value: Any, device_type: str, dtype: torch.dtype) -> Any:
    """value with its eligible tensors (floating, on device_type, not float64) cast to dtype,
    looking into mappings and iterables."""
    if isinstance(value, torch.Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not torch.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd: Callable[..., Any] | None = None, *, device_type: str,
               cast_inputs: torch.dtype | None = None) -> Any:
    """Decorator for a custom autograd Function's forward: with cast_inputs, inside an autocast
    region, cast the floating inputs to it and run forward with autocast off; remembers the state
    for custom_bwd."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    forward = fwd

    @functools.wraps(forward)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        args[0]._dtype = torch.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = torch.is_autocast_enabled(device_type)
            return forward(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if torch.is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return forward(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return forward(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """Decorator for a custom autograd Function's backward: runs it with forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    backward = bwd

    @functools.wraps(backward)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return backward(*args, **kwargs)

    return decorate_bwd
