"""torch.utils.dlpack: exchange tensors with other libraries (NumPy, CuPy, JAX ...) without copying.

`from_dlpack(x)` wraps the memory of any object with `__dlpack__`/`__dlpack_device__` (or a raw
"dltensor" capsule); `to_dlpack(t)` makes the legacy capsule. Tensors themselves implement the
protocol (Tensor.__dlpack__), so `numpy.from_dlpack(t)` shares t's memory.
"""
from __future__ import annotations

from typing import Any

from torch._dlpack import DLDeviceType
from torch._dlpack import dl_device_of as _dl_device_of
from torch._dlpack import from_capsule as _from_capsule
from torch._dlpack import to_dlpack as _to_dlpack

__all__ = ["DLDeviceType", "from_dlpack"]


def to_dlpack(data: Any, *, dl_device: Any = None, copy: Any = None) -> Any:
    """to_dlpack(tensor) -> PyCapsule

    A legacy "dltensor" capsule sharing the tensor's memory, for `from_dlpack` of any library.
    Consume it once. Unlike `Tensor.__dlpack__`, it does not refuse tensors that require grad.
    """
    return _to_dlpack(data, dl_device=dl_device, copy=copy)




def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Any:
    """from_dlpack(ext_tensor) -> Tensor

    A tensor sharing memory with `ext_tensor`: an object with `__dlpack__` and `__dlpack_device__`
    (a NumPy array, a tensor of another library, an Ember tensor), or a DLPack capsule. Writes
    through either are seen by both. `device` and `copy` are the array API's: a copy is made
    when asked (copy=True) or when the device differs; copy=False refuses to copy.
    """
    import torch
    if not hasattr(ext_tensor, "__dlpack__"):
        if device is not None or copy is not None:
            raise AssertionError("device and copy kwargs not supported when ext_tensor is already a DLPack capsule.")
        return _from_capsule(ext_tensor)

    kwargs: dict[str, Any] = {"max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    ext_device = ext_tensor.__dlpack_device__()
    cross_device = False
    if device is not None:
        if isinstance(device, str):
            device = torch.device(device)
        if not isinstance(device, torch.device):
            raise AssertionError(f"from_dlpack: unsupported device type: {type(device)}")
        target = _dl_device_of(device)
        cross_device = tuple(ext_device) != target
        if not cross_device:
            kwargs["dl_device"] = target
        elif copy is False:
            raise ValueError(f"cannot move DLPack tensor from device {tuple(ext_device)} to {target} "
                             "without copying. Set copy=None or copy=True.")
    if ext_device[0] == DLDeviceType.kDLCUDA:
        kwargs["stream"] = 1        # Ember works on CUDA's legacy default stream

    # Producers implement different versions of the protocol: drop the newer keywords one at a
    # time while the producer refuses them with a TypeError.
    capsule = None
    producer_copied = True
    for drop in ("max_version", "copy", "dl_device"):
        try:
            capsule = ext_tensor.__dlpack__(**kwargs)
            break
        except TypeError:
            kwargs.pop(drop, None)
            if drop == "copy":
                producer_copied = False
    if capsule is None:
        capsule = ext_tensor.__dlpack__(**kwargs)
    tensor = _from_capsule(capsule)
    if cross_device:
        return tensor.to(device)
    if copy is True and not producer_copied:
        return tensor.clone()
    return tensor
