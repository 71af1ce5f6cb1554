"""torch.distributed's errors, as PyTorch names them (each a RuntimeError, as programs catch them)."""
from __future__ import annotations

__all__ = ["DistBackendError", "DistError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """An error of torch.distributed."""

    __module__ = "torch.distributed"


class DistBackendError(DistError):
    """The engine failed: a collective timed out, a peer is gone."""

    __module__ = "torch.distributed"


class DistStoreError(DistError):
    """A store's operation failed or timed out."""

    __module__ = "torch.distributed"


class DistNetworkError(DistError):
    """A connection (a store's) could not be made or broke."""

    __module__ = "torch.distributed"
