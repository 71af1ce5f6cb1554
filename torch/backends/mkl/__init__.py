"""torch.backends.mkl: Intel MKL, which Ember does not link (its BLAS is NumPy's)."""
from __future__ import annotations

from torch.backends import NoVerbose

__all__ = ["is_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    return False


class verbose(NoVerbose):
    """MKL's verbose mode for a block: without MKL there is nothing to report."""
