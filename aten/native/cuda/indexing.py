"""index_select, index_add(_), embedding and cat on CUDA: kernels/index.cu over the tensors seen
as (outer, size, inner) around the indexed dimension, and strided copies into slices for cat.
Checks and messages are the CPU kernels' (PyTorch's); an index out of range is found on the
device and raised here."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from aten.native.cuda.copy import copy_cuda
from aten.native.cuda.linalg import _same_device
from aten.native.cuda.runtime import device_checks
from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda, strided_copy, to_device
from aten.native.meta import context
from aten.native.meta.pointwise import result_type_of
from c10 import scalar_type, tensor_impl

_INT64 = scalar_type.dtype_from_name("int64")
_TYPES = ("float32", "float64", "int32", "int64")


def _wrap_dim(dim: int, nd: int) -> int:
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _around(shape: tuple[int, ...], dim: int) -> tuple[int, int, int]:
    outer = inner = 1
    for s in shape[:dim]:
        outer *= s
    for s in shape[dim + 1:]:
        inner *= s
    return outer, (shape[dim] if shape else 1), inner


def _index_vector(index: Any, op: str) -> Any:
    if index.dim() > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if index.dtype.name not in ("int32", "int64"):
        raise RuntimeError(f"{op}(): Expected dtype int32 or int64 for index")
    return to_device(contiguous_cuda(index), _INT64)


def _run(kernel: str, total: int, on_error: Callable[[list[int]], Exception], *args: Any) -> None:
    """Launch kernel over total elements with a device error slot (device_checks) that on_error
    turns into the exception, raised at the next synchronisation."""
    if total:
        grid, block = grid_for(total)
        launch_kernel("kernels/index.cu", kernel, grid, block, *args, np.uintp(device_checks.slot(on_error)))


def index_select_cuda(self: Any, dim: int, index: Any) -> Any:
    _same_device(self, index)
    idx = _index_vector(index, "index_select")
    d = _wrap_dim(dim, self.dim())
    shape = tuple(self.shape) or (1,)
    outer, size, inner = _around(shape, d)
    n = idx.numel()
    out_shape = tuple(n if i == d else s for i, s in enumerate(self.shape)) if self.dim() else ((n,) if n != 1 else ())
    out = tensor_impl.empty(out_shape, self.dtype, self.device)
    source = contiguous_cuda(self)
    _run(f"index_select_{self.element_size()}", outer * n * inner, lambda bad: IndexError("index out of range in self"),
         np.int64(outer), np.int64(size), np.int64(inner), np.int64(n), np.uintp(source.data_ptr()),
         np.uintp(idx.data_ptr()), np.uintp(out.data_ptr()))
    return out


def index_add__cuda(self: Any, dim: int, index: Any, source: Any, alpha: Any = 1) -> Any:
    _same_device(self, index, source)
    idx = _index_vector(index, "index_add_")
    d = _wrap_dim(dim, self.dim())
    n = idx.numel()
    src_size = source.shape[d] if source.dim() else 1
    if n != src_size:
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({src_size}), for dim: {dim}")
    if self.dtype.name not in _TYPES:
        raise NotImplementedError(f'"index_add_cuda" not implemented for \'{self.dtype.type_name}\'')
    if self.is_floating_point():     # floating atomics: the order of the additions varies
        context.alert_not_deterministic("index_add_cuda_")
    shape = tuple(self.shape) or (1,)
    outer, size, inner = _around(shape, d)
    target = contiguous_cuda(self)
    src = to_device(contiguous_cuda(source.expand(tuple(n if i == d else s for i, s in enumerate(self.shape)))
                                    if self.dim() else source), self.dtype)
    def out_of_bounds(bad: list[int]) -> Exception:
        return RuntimeError(f"index {bad[1]} is out of bounds for dimension {d} with size {size}")

    _run(f"index_add_{self.dtype.name}", outer * n * inner, out_of_bounds, np.int64(outer), np.int64(size),
         np.int64(inner), np.int64(n), np.uintp(target.data_ptr()), np.uintp(idx.data_ptr()), np.uintp(src.data_ptr()),
         self.dtype.numpy_dtype.type(alpha))
    if target is not self:
        strided_copy(self, target)
    self._bump_version()
    return self


def index_add_cuda(self: Any, dim: int, index: Any, source: Any, alpha: Any = 1) -> Any:
    out = tensor_impl.empty(tuple(self.shape), self.dtype, self.device)
    strided_copy(out, self)
    return index_add__cuda(out, dim, index, source, alpha)


def embedding_cuda(weight: Any, indices: Any, padding_idx: int = -1, scale_grad_by_freq: bool = False,
                   sparse: bool = False) -> Any:
    """Rows of weight at indices: index_select on the flattened indices, shaped indices + (D,)."""
    if indices.dtype.name not in ("int32", "int64"):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.dtype.type_name} instead (while checking arguments for "
                           "embedding)")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    rows = index_select_cuda(weight, 0, contiguous_cuda(indices).reshape(-1))
    return rows.reshape(tuple(indices.shape) + (weight.shape[1],))


def cat_cuda(tensors: Any, dim: int = 0) -> Any:
    """Each tensor copied into its slice of the result (strided copies; dtypes promoted)."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    _same_device(*tensors)
    for i, t in enumerate(tensors):
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # PyTorch's legacy rule: 1-D empty tensors are skipped whatever the others' shape
    parts = [t for t in tensors if not (t.dim() == 1 and t.numel() == 0)] or tensors[:1]
    ref = parts[0]
    d = _wrap_dim(dim, ref.dim())
    kept = {id(t) for t in parts}
    for i, t in enumerate(tensors):
        if id(t) not in kept:
            continue
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} and {t.dim()}")
        for k in range(ref.dim()):
            if k != d and t.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref.shape[k]} but got size {t.shape[k]} for tensor number {i} in the list.")
    dtype = result_type_of(*tensors)
    shape = list(ref.shape)
    shape[d] = sum(t.shape[d] for t in parts)
    out = tensor_impl.empty(tuple(shape), dtype, ref.device)
    offset = 0
    for t in parts:
        size = t.shape[d]
        if size:
            copy_cuda(out.narrow(d, offset, size), t)
        offset += size
    return out
