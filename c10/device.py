"""Device: where a tensor's bytes live ("cpu", "cuda:0"), parsed as torch.device parses it."""
from __future__ import annotations

import re
from enum import IntEnum
from typing import Any


class DeviceType(IntEnum):
    CPU = 0
    CUDA = 1


# PyTorch's list, so a mistyped device gets the same message (c10/core/DeviceType.cpp).
KNOWN_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_SUPPORTED = {"cpu": DeviceType.CPU, "cuda": DeviceType.CUDA}
_DEVICE_RE = re.compile(r"([a-zA-Z_]+)(?::([0-9]+))?")


class device:
    """torch.device: a device type and an optional index."""

    __slots__ = ("type", "index", "_device_type")
    type: str
    index: int | None
    _device_type: DeviceType | None     # None: a device type Ember names but holds no tensors on

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002 (PyTorch's name)
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device object cannot be combined with an index")
            self._set(type.type, type.index)
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # torch.device(0) means cuda:0.
            self._set("cuda", type)
            return
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({_tname(type)}), "
                            "but expected one of: (str type, int index = None)")
        m = _DEVICE_RE.fullmatch(type)
        if m is None:
            if ":" in type and type.split(":", 1)[0] in KNOWN_TYPES:
                raise RuntimeError(f"Invalid device string: '{type}'")
            raise RuntimeError(f"Expected one of {', '.join(KNOWN_TYPES)} device type at start of device string: {type}")
        name, idx = m.group(1), m.group(2)
        if name not in KNOWN_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(KNOWN_TYPES)} device type at start of device string: {type}")
        if idx is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            index = int(idx)
        self._set(name, index)

    def _set(self, name: str, index: int | None) -> None:
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"device(): index must be an int, got {_tname(index)}")
            if index < 0:
                raise RuntimeError(f"Device index must not be negative, got {index}")
            if name == "cpu" and index != 0:
                raise RuntimeError(f"CPU device index must be -1 or zero, got {index}")
        object.__setattr__(self, "type", name)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "_device_type", _SUPPORTED.get(name))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("torch.device is immutable")

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, TypeError):
                return False
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (self.type, self.index))


def _tname(obj: object) -> str:
    return type(obj).__name__


CPU = device("cpu")


_CANONICAL: dict[Any, device] = {}      # by name, and by device (equal devices hash alike): a few entries


def canonical(dev: Any) -> device:
    """The device a tensor is placed on: 'cuda' means the current CUDA device (index 0 here). Devices
    Ember only names (meta, mps, xpu ...) are refused here, where a tensor would be placed."""
    found = _CANONICAL.get(dev) if isinstance(dev, (str, device)) else None
    if found is not None:
        return found
    found = _canonical(dev)
    if len(_CANONICAL) < 64:
        _CANONICAL[dev] = found
    return found


def _canonical(dev: Any) -> device:
    d = dev if isinstance(dev, device) else device(dev)
    if d._device_type is None:
        raise RuntimeError(f"Ember is not built with support for {d.type} devices (only cpu and cuda)")
    if d.type == "cuda" and d.index is None:
        return device("cuda", 0)
    if d.type == "cpu" and d.index is not None:
        return CPU
    return d
