"""torch.backends.openmp: Ember's CPU kernels are compiled and linked with OpenMP (-fopenmp)."""
from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    return True
