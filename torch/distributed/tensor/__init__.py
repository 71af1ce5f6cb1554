"""torch.distributed.tensor: DTensor, the tensor sharded over a device mesh. Ember has no distributed
backend yet, so no DTensor can exist: the class is here for the isinstance checks libraries make on
every parameter (accelerate, transformers), and making one raises an error that says what is missing."""
from __future__ import annotations

from typing import Any

from torch import Tensor

__all__ = ["DTensor"]


class DTensor(Tensor):
    """A tensor distributed over a DeviceMesh: not available in Ember (no distributed backend)."""

    __module__ = "torch.distributed.tensor"

    def __new__(cls, *args: Any, **kwargs: Any) -> DTensor:
        raise RuntimeError("torch.distributed.tensor.DTensor needs a distributed backend, which Ember does not "
                           "have yet (torch.distributed.is_available() is False)")
