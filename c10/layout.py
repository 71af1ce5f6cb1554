"""Layout and MemoryFormat values (torch.strided, torch.contiguous_format ...)."""
from __future__ import annotations


class _NamedConstant:
    """A singleton value shown and pickled as torch.<name>."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self) -> str:
        return self.name


class layout(_NamedConstant):
    """torch.layout: how a tensor's elements are arranged (Ember has strided tensors only)."""

    __slots__ = ()


class memory_format(_NamedConstant):
    """torch.memory_format: the stride order a new tensor gets."""

    __slots__ = ()


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
