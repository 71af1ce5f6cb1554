"""torch.distributed: importable, as programs import it at setup. Ember has no distributed backend
yet, so is_available() answers False, as a PyTorch built without distributed support does (and,
like that build, nothing else is defined here)."""
from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether distributed collectives can be used in this build: not yet in Ember."""
    return False
