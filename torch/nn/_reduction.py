"""Loss reduction names and the deprecated size_average/reduce pair (PyTorch's torch.nn._reduction)."""
from __future__ import annotations

import warnings


def get_enum(reduction: str) -> int:
    """'none' -> 0, 'mean' -> 1, 'sum' -> 2 (the aten reduction codes)."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=2)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> str:
    """The reduction name the deprecated (size_average, reduce) pair means (None counts as True)."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=2)
    return ret


def legacy_get_enum(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
