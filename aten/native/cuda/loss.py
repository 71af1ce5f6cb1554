"""nll_loss_forward on CUDA (cross_entropy is log_softmax + nll_loss): kernels/nll_loss.cu, with
the CPU kernel's checks and messages; an out-of-range target is found on the device and raised as
PyTorch's IndexError at the next synchronisation (runtime/device_checks)."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.linalg import _same_device
from aten.native.cuda.runtime import device_checks
from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda, to_device
from c10 import scalar_type, tensor_impl

_INT64 = scalar_type.dtype_from_name("int64")


def nll_loss_forward_cuda(self: Any, target: Any, weight: Any, reduction: int, ignore_index: int) -> Any:
    if self.dim() < 1 or self.dim() > 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch = self.dim() == 1 and target.dim() == 0
    if not no_batch and (target.dim() == 0 or self.shape[0] != target.shape[0]):
        raise RuntimeError(f"size mismatch (got input: {list(self.shape)}, target: {list(target.shape)})")
    _same_device(self, target, *([weight] if weight is not None else []))
    if self.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f'"nll_loss_forward_out_cuda" not implemented for \'{self.dtype.type_name}\'')
    if target.dtype != _INT64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.type_name}")
    n = 1 if self.dim() == 1 else self.shape[0]
    c = self.shape[-1]
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got weight "
                           f"tensor of shape: {list(weight.shape)}")
    source, labels = contiguous_cuda(self), contiguous_cuda(target)
    w = to_device(contiguous_cuda(weight), self.dtype) if weight is not None else None
    out = tensor_impl.empty((n,) if reduction == 0 and self.dim() == 2 else (), self.dtype, self.device)
    total_weight = tensor_impl.empty((), self.dtype, self.device)
    def out_of_bounds(bad: list[int]) -> Exception:
        return IndexError(f"Target {bad[1]} is out of bounds.")      # the kernel keeps the value

    launch_kernel("kernels/nll_loss.cu", f"nll_forward_{self.dtype.name}", (1, 1, 1), (256, 1, 1), np.int64(n),
                  np.int64(c), np.uintp(source.data_ptr()), np.uintp(labels.data_ptr()),
                  np.uintp(w.data_ptr() if w is not None else 0), np.int64(ignore_index), np.int32(reduction),
                  np.uintp(out.data_ptr()), np.uintp(total_weight.data_ptr()),
                  np.uintp(device_checks.slot(out_of_bounds)))
    return out, total_weight


def nll_loss_backward_cuda(grad_output: Any, self: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                           total_weight: Any) -> Any:
    """The gradient on self in one launch, for the forward kernel's inputs ((N, C) or (C,) float32 or
    float64, int64 targets), with upstream's checks."""
    if self.dim() < 1 or self.dim() > 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if self.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f'"nll_loss_backward_out_cuda" not implemented for \'{self.dtype.type_name}\'')
    if target.dtype != _INT64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.type_name}")
    for name, t in (("grad_output", grad_output), ("total_weight", total_weight), ("weight", weight)):
        if t is not None and t.dtype is not self.dtype:
            raise RuntimeError(f"expected {name} to have dtype {self.dtype.type_name}, got {t.dtype.type_name}")
    _same_device(self, target, grad_output, total_weight, *([weight] if weight is not None else []))
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    n = 1 if self.dim() == 1 else self.shape[0]
    c = self.shape[-1]
    if target.numel() != n:
        raise RuntimeError(f"size mismatch (got input: {list(self.shape)}, target: {list(target.shape)})")
    if total_weight.numel() != 1:
        raise RuntimeError(f"expected total_weight to be a single element tensor, got: {list(total_weight.shape)} "
                           f"({total_weight.numel()} elements)")
    if weight is not None and weight.numel() != c:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == 0 and self.dim() == 2 and (grad_output.dim() != 1 or grad_output.shape[0] != n):
        size = grad_output.shape[0] if grad_output.dim() else 1
        raise RuntimeError(f"Expected a tensor of dimension 1 and tensor.size[0] == {n} but got: dimension "
                           f"{grad_output.dim()} and tensor.size[0] == {size}")
    if (reduction != 0 or self.dim() == 1) and grad_output.numel() != 1:
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {list(grad_output.shape)}")
    out = tensor_impl.empty(tuple(self.shape), self.dtype, self.device)
    if n * c == 0:
        return out
    grad, labels = contiguous_cuda(grad_output), contiguous_cuda(target)
    w = contiguous_cuda(weight) if weight is not None else None
    grid, block = grid_for(n * c)
    launch_kernel("kernels/nll_loss.cu", f"nll_backward_{self.dtype.name}", grid, block, np.int64(n), np.int64(c),
                  np.uintp(grad.data_ptr()), np.uintp(labels.data_ptr()),
                  np.uintp(w.data_ptr() if w is not None else 0), np.int64(ignore_index), np.int32(reduction),
                  np.uintp(total_weight.data_ptr()), np.uintp(out.data_ptr()))
    return out
