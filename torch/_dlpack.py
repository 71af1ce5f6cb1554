"""Tensor.__dlpack__ / __dlpack_device__ and the capsule converters behind torch.utils.dlpack.

The capsules themselves are made and consumed in Cython (torch._C._dlpack); this module holds
the argument handling PyTorch does in Python and in its bindings: streams, max_version,
dl_device and copy.
"""
from __future__ import annotations

import enum
from typing import Any

from c10.tensor_impl import TensorImpl
from torch._C import _dlpack as _capsules

# The stream values the array API gives special meaning on CUDA.
_CUDA_LEGACY_DEFAULT_STREAM, _CUDA_PER_THREAD_DEFAULT_STREAM = 1, 2


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (dlpack.h); Ember makes and takes kDLCPU and kDLCUDA.
    Public as torch.utils.dlpack.DLDeviceType."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


DLDeviceType.__module__ = "torch.utils.dlpack"


def dl_device_of(device: Any) -> tuple[DLDeviceType, int]:
    """(DLDeviceType, index) for an Ember device, as Tensor.__dlpack_device__ reports it."""
    if device.type == "cpu":
        return (DLDeviceType.kDLCPU, 0)
    if device.type == "cuda":
        return (DLDeviceType.kDLCUDA, device.index if device.index is not None else 0)
    raise ValueError(f"Unknown device type {device.type} for Dlpack")


def _parse_dl_device(dl_device: Any) -> tuple[int, int] | None:
    if dl_device is None:
        return None
    if not isinstance(dl_device, (tuple, list)):
        raise TypeError(f"_to_dlpack(): argument 'dl_device' must be tuple of ints, not {type(dl_device).__name__}")
    if len(dl_device) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in dl_device):
        raise RuntimeError("dl_device must be either None or a tuple of ints")
    return int(dl_device[0]), int(dl_device[1])


def to_dlpack(data: Any, *, dl_device: Any = None, copy: Any = None, versioned: bool = False) -> Any:
    """torch.utils.dlpack.to_dlpack: a "dltensor" capsule sharing data's memory (copy=True: a copy's)."""
    import torch
    if not isinstance(data, TensorImpl):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not {_type_name(data)}")
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"_to_dlpack(): argument 'copy' must be bool, not {type(copy).__name__}")
    target = _parse_dl_device(dl_device)
    tensor: Any = data
    if target is not None:
        kind, index = target
        if kind == DLDeviceType.kDLCPU:
            device = torch.device("cpu")
        elif kind == DLDeviceType.kDLCUDA:
            device = torch.device("cuda", index)
        else:
            raise BufferError(f"Unsupported device_type: {kind}")
        if device != tensor.device:
            if copy is False:
                raise ValueError(f"cannot move (i.e. copy=False) tensor from {tensor.device} to {device} "
                                 "without copying.")
            tensor = tensor.to(device)
            copy = False          # .to() made the copy
    if copy:
        tensor = tensor.clone()
    return _capsules.to_capsule(tensor, versioned)


def from_capsule(capsule: Any) -> Any:
    """torch._C._from_dlpack: a tensor over the memory of an unconsumed capsule."""
    return _capsules.from_capsule(capsule)


def tensor_dlpack(self: Any, stream: Any, max_version: Any, dl_device: Any, copy: Any) -> Any:
    """Tensor.__dlpack__: PyTorch's checks, then a legacy or a versioned capsule."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    if self.device.type == "cuda" and stream != -1:
        # Ember runs every CUDA kernel on the legacy default stream, so a consumer on it (None or
        # 1) needs nothing; another stream waits for the work queued so far.
        if stream == _CUDA_PER_THREAD_DEFAULT_STREAM:
            raise BufferError("per-thread default stream is not supported.")
        if stream == 0:
            raise AssertionError(f"unsupported stream on CUDA: {stream}.")
        if stream not in (None, _CUDA_LEGACY_DEFAULT_STREAM):
            from c10 import cuda as _cuda
            _cuda.lazy_init().drv.Context.synchronize()
    elif self.device.type == "cpu" and stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    versioned = not (max_version is None or max_version[0] < 1)
    return to_dlpack(self, dl_device=dl_device, copy=copy, versioned=versioned)


def _type_name(value: Any) -> str:
    cls = type(value)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
