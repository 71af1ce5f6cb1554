"""PyTorch's storage of distributed checkpoints as safetensors files: not in Ember (see __init__.py)."""
from __future__ import annotations

from typing import Any

from torch.distributed.checkpoint import _missing

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]


class HuggingFaceStorageWriter:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _missing("hf_storage.HuggingFaceStorageWriter")


class HuggingFaceStorageReader:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _missing("hf_storage.HuggingFaceStorageReader")
