"""torch.backends.mha: whether nn.MultiheadAttention / TransformerEncoderLayer may take PyTorch's
fused inference fast path. Ember has no fused path, so the switch is only kept."""
from __future__ import annotations

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_fastpath = True


def get_fastpath_enabled() -> bool:
    return _fastpath


def set_fastpath_enabled(value: bool) -> None:
    global _fastpath
    _fastpath = bool(value)
