"""torch.distributed.checkpoint (DCP): saving and loading state dicts sharded over ranks is not in Ember (each
rank's piece of a sharded tensor is a DTensor's, which Ember does not have): save and load raise an error that
says so. state_dict.py's helpers, for models that are not sharded, work as PyTorch's."""
from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["load", "save"]


def _missing(what: str) -> NoReturn:
    raise RuntimeError(f"torch.distributed.checkpoint.{what}: distributed checkpoints are not in Ember; save the "
                       "state dict from rank 0 with torch.save (or safetensors) instead")


def save(state_dict: Any, *args: Any, **kwargs: Any) -> NoReturn:
    _missing("save")


def load(state_dict: Any, *args: Any, **kwargs: Any) -> NoReturn:
    _missing("load")
