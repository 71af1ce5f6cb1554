"""The CTC loss's argument checks, shared by its CPU kernel and its device-neutral composite, with
PyTorch's messages (ctc_loss_allocate_outputs in LossCTC.cpp). One check is Ember's own: a target
label outside [0, num_labels) is refused, where PyTorch reads past the end of log_probs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


@dataclass(frozen=True)
class CtcGeometry:
    """What the kernels need once the arguments passed: the sizes, each sample's first target
    element and the step between its elements in `targets` (as element offsets)."""
    max_input_length: int
    batch_size: int
    num_labels: int
    max_target_length: int
    target_offsets: tuple[int, ...]
    target_stride: int


def check_ctc_arguments(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
                        blank: int) -> CtcGeometry:
    """Validate `_ctc_loss`'s arguments (log_probs (T, N, C), targets (N, S) or concatenated)."""
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if targets.dtype.name not in ("int64", "int32"):
        device = "cuda." if targets.is_cuda else ""
        raise RuntimeError(f"Expected tensor for argument #2 'targets' to have scalar type Int; but got "
                           f"torch.{device}{targets.dtype.type_name}Tensor instead{_WHERE}")
    if log_probs.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for "
                           f"argument #1 'log_probs'{_WHERE}")
    if not 1 <= targets.dim() < 3:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for argument "
                           f"#2 'targets'{_WHERE}")
    max_input_length, batch_size, num_labels = (int(s) for s in log_probs.shape)
    if not 0 <= blank < num_labels:
        raise RuntimeError("blank must be in label range")
    input_lengths, target_lengths = [int(v) for v in input_lengths], [int(v) for v in target_lengths]
    if len(input_lengths) != batch_size:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch_size:
        raise RuntimeError("target_lengths must be of size batch_size")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {length}{_WHERE}")
    max_target_length = max(target_lengths, default=0)
    if targets.dim() == 1:
        offsets, position = [], 0
        for length in target_lengths:
            offsets.append(position)
            position += length
        stride = int(targets.stride(0))
        offsets = [o * stride for o in offsets]
        if int(targets.size(0)) != position:
            raise RuntimeError(f"Expected tensor to have size {position} at dimension 0, but got size "
                               f"{int(targets.size(0))} for argument #2 'targets'{_WHERE}")
    else:
        offsets = [b * int(targets.stride(0)) for b in range(batch_size)]
        stride = int(targets.stride(1))
        if int(targets.size(0)) != batch_size:
            raise RuntimeError(f"Expected tensor to have size {batch_size} at dimension 0, but got size "
                               f"{int(targets.size(0))} for argument #2 'targets'{_WHERE}")
        if int(targets.size(1)) < max_target_length:
            raise RuntimeError(f"Expected tensor to have size at least {max_target_length} at dimension 1, but got "
                               f"size {int(targets.size(1))} for argument #2 'targets'{_WHERE}")
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {length}{_WHERE}")
        if length > max_input_length:
            raise RuntimeError(f"Expected input_lengths to have value at most {max_input_length}, but got value "
                               f"{length}{_WHERE}")
    return CtcGeometry(max_input_length, batch_size, num_labels, max_target_length, tuple(offsets), stride)


def check_target_labels(used_min: int, used_max: int, num_labels: int) -> None:
    """The smallest and largest label the samples use (within their target lengths) must index
    log_probs' last dimension."""
    if used_min < 0 or used_max >= num_labels:
        bad = used_min if used_min < 0 else used_max
        raise IndexError(f"ctc_loss: target label {bad} is out of bounds for {num_labels} labels")


def check_lengths_integral(input_lengths: Any, target_lengths: Any) -> None:
    """The Tensor overloads' lengths must be integral tensors (bool excluded)."""
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if lengths.dtype.is_floating_point or lengths.dtype.name == "bool":
            raise RuntimeError(f"{name} must be integral")
