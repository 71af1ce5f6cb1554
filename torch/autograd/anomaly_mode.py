"""Anomaly detection (PyTorch's torch/autograd/anomaly_mode.py): nodes remember the forward
stack that made them, and a backward that returns NaN raises, after a warning with that stack."""
from __future__ import annotations

import warnings
from typing import Any

from torch.autograd.grad_mode import _DecoratorContextManager
from torch.csrc.autograd import graph

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled() -> bool:
    return graph.anomaly_mode()[0]


def is_anomaly_check_nan_enabled() -> bool:
    return graph.anomaly_mode()[1]


class detect_anomaly(_DecoratorContextManager):
    """Anomaly detection inside the block (or decorated function)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = graph.anomaly_mode()
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        graph.set_anomaly_mode(True, self.check_nan)

    def __exit__(self, *exc: Any) -> None:
        graph.set_anomaly_mode(*self.prev)

    def clone(self) -> detect_anomaly:
        return self.__class__(self.check_nan)


class set_detect_anomaly:
    """Anomaly detection on or off at once; as a context manager the previous mode comes back."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = graph.anomaly_mode()
        graph.set_anomaly_mode(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        graph.set_anomaly_mode(*self.prev)
