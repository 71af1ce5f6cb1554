"""torch.onnx: importable, as programs import it at setup; exporting is not supported yet."""
from __future__ import annotations

from typing import Any

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is tracing the caller: never here."""
    return False


def export(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("torch.onnx.export is not supported by Ember yet: there is no ONNX exporter")
