"""torch.autograd.graph: the engine's graph (Node and the rest, torch/csrc/autograd/graph.pyx, read
through this module) and the saved-tensor hooks: saved_tensors_hooks(pack, unpack) stores each tensor
that autograd saves for backward as pack(tensor) and gives backward unpack(packed) instead;
save_on_cpu is the pair that keeps them in CPU memory."""
from __future__ import annotations

from typing import Any, Callable

from torch.csrc.autograd import graph as _engine
from torch.csrc.autograd.graph import Node

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


def __getattr__(name: str) -> Any:
    """The engine's other names (torch.autograd.graph was the engine module itself before)."""
    return getattr(_engine, name)


_disabled_message: list[str | None] = [None]


class saved_tensors_hooks:
    """`with saved_tensors_hooks(pack, unpack):` tensors saved for backward inside are stored as
    pack(tensor) and unpacked with unpack(packed) when backward needs them."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _disabled_message[0] is not None:
            raise RuntimeError(_disabled_message[0])
        _engine.push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc: Any) -> None:
        _engine.pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are copied to the CPU (pinned when pin_memory=True) and moved back to their
    device for backward."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor: Any) -> tuple[Any, Any]:
            if pin_memory:
                raise RuntimeError("save_on_cpu(pin_memory=True): Ember has no pinned host memory yet")
            return tensor.device, tensor.to("cpu", copy=True)

        def unpack(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Inside, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self.previous = _disabled_message[0]
        _disabled_message[0] = self.error_message

    def __exit__(self, *exc: Any) -> None:
        _disabled_message[0] = self.previous
