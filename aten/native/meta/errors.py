"""PyTorch's errors and warnings about outputs and devices, built in one place for every backend;
each builder returns the exception (the caller raises it, so tracebacks point at the caller)."""
from __future__ import annotations

import os
import sys
import warnings
from types import FrameType
from typing import Any

# Frames in these directories are Ember's own: a warning is attributed to the first frame outside them,
# the user's line, as PyTorch attributes the warnings its C++ raises.
_PROJECT = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__)))), d) + os.sep
                 for d in ("torch", "aten", "c10"))


def _user_stacklevel() -> int:
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PROJECT):
        frame, level = frame.f_back, level + 1
    return level


def output_shape_error(output_shape: Any, broadcast_shape: Any) -> RuntimeError:
    """PyTorch's error for an in-place or out= output whose shape is not the broadcast shape of
    the result (TensorIterator's check); raise what it returns."""
    return RuntimeError(f"output with shape {list(output_shape)} doesn't match the broadcast shape "
                        f"{list(broadcast_shape)}")


def output_cast_error(result_type_name: str, output_type_name: str) -> RuntimeError:
    """PyTorch's error for an out= or in-place output of a dtype the result type can't be cast to
    (c10::canCast failing); takes the dtypes' type names (Float, Long...); raise what it returns."""
    return RuntimeError(f"result type {result_type_name} can't be cast to the desired output type "
                        f"{output_type_name}")


def warn_resized(old_shape: Any, new_shape: Any) -> None:
    """PyTorch's warning when an out= tensor that held elements is resized (Resize.cpp)."""
    warnings.warn(f"An output with one or more elements was resized since it had shape {list(old_shape)}, "
                  f"which does not match the required output shape {list(new_shape)}. "
                  "This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
                  "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                  "inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=_user_stacklevel())


def device_mismatch_error(first: Any, second: Any) -> RuntimeError:
    """PyTorch's error for operands on two devices (TensorIterator's and the kernels' device checks);
    `first` and `second` are the devices (or their names) in the order PyTorch reports them."""
    return RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                        f"{first} and {second}!")
