"""Advanced indexing, gather, scatter and nonzero on CUDA: kernels/index.cu's take/put kernels, one
thread per element of the indexing result, each finding its self offset from its coordinates and
the index tensors (read through their strides, so masks' nonzero columns need no copies).

Here the indexing is planned (PyTorch's rules: masks become their nonzero coordinates, index
tensors broadcast together, the indexed block sits where the indexed dims were when they are
adjacent, else first); the checks and messages are the CPU kernels' (PyTorch's). An index out of
range is found on the device and raised here, as the CPU raises it.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from aten.native.cuda.copy import copy_cuda
from aten.native.cuda.runtime import device_checks
from aten.native.cuda.runtime.compiler import kernel_function, launch_kernel
from aten.native.cuda.runtime.launch import device_meta, grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda, to_device
from aten.native.meta import context
from aten.native.meta.errors import device_mismatch_error
from aten.native.meta.scatter_checks import check_gather, check_scatter, scatter_identity, scatter_reduce_op
from aten.native.meta.views import as_strided
from c10 import cuda as c10_cuda
from c10 import scalar_type, tensor_impl

_INT64 = scalar_type.dtype_from_name("int64")
_BOOL = scalar_type.dtype_from_name("bool")
_ACCUMULATING = ("float32", "float64", "int32", "int64")
_CHUNK = 256          # mask elements one nonzero thread scans
_MAX_DIMS = 32        # index.cu's EMBER_MAX_INDEX_DIMS


def _sizes_str(shape: Any) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _on_device(t: Any) -> Any:
    """An index tensor as int64 on like's device (CPU index tensors are allowed, as PyTorch's)."""
    return to_device(t, _INT64) if t.dtype is not _INT64 or not t.is_cuda else t


def _launch(kernel: str, n: int, meta: list[int], *pointers: Any, on_error: Callable[[list[int]], Exception],
            extra: tuple[Any, ...] = ()) -> None:
    """One take/put launch over n result elements (extra: arguments after the error slot); an index
    out of range sets the slot to [1 + e, value, k], which on_error turns into the exception
    raised at the next synchronisation (device_checks)."""
    grid, block = grid_for(n)
    launch_kernel("kernels/index.cu", kernel, grid, block, np.int64(n), np.uintp(int(device_meta(meta))),
                  *[np.uintp(p) for p in pointers], np.uintp(device_checks.slot(on_error)), *extra)


class _Plan:
    """Where each element of an indexing result comes from: the result's sizes, self's stride
    along each result dim (0 along the indexed block), and per index tensor its strides over the
    result dims, the stride and size of the self dim it indexes."""

    def __init__(self, shape: list[int], self_strides: list[int], allow_negative: bool) -> None:
        self.shape = shape
        self.self_strides = self_strides
        self.allow_negative = allow_negative
        self.blocks: list[tuple[Any, int, int, list[int]]] = []

    def add_index(self, index: Any, dim_stride: int, dim_size: int, strides: list[int]) -> None:
        self.blocks.append((index, dim_stride, dim_size, strides))

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def meta(self, value_strides: list[int]) -> list[int]:
        if len(self.shape) > _MAX_DIMS:
            raise RuntimeError(f"indexing: results of more than {_MAX_DIMS} dimensions are not supported "
                               f"(got {len(self.shape)})")
        assert len(value_strides) == len(self.shape) == len(self.self_strides)
        meta = [len(self.shape), len(self.blocks), int(self.allow_negative), *self.shape, *self.self_strides,
                *value_strides]
        for index, dim_stride, dim_size, strides in self.blocks:
            meta += [index.data_ptr(), dim_stride, dim_size, *strides]
        return meta


def _broadcast_strides(t: Any, shape: list[int]) -> list[int] | None:
    """t's strides over `shape` (aligned to its end), 0 where t broadcasts; None when it cannot."""
    if t.dim() > len(shape):
        return None
    strides = [0] * len(shape)
    for i, (size, stride) in enumerate(zip(t.shape, t.stride())):
        d = len(shape) - t.dim() + i
        if size == shape[d]:
            strides[d] = stride if size != 1 else 0
        elif size != 1:
            return None
    return strides


def nonzero_cuda(self: Any) -> Any:
    """(count, dim) int64 coordinates of the nonzero elements in order (the count is read back to
    the host, as PyTorch's nonzero synchronises)."""
    state = c10_cuda.lazy_init()
    mask = contiguous_cuda(self)
    n, nd = mask.numel(), self.dim()
    if n == 0:
        return tensor_impl.empty((0, nd), _INT64, self.device)
    chunks = (n + _CHUNK - 1) // _CHUNK
    counts = tensor_impl.empty((chunks,), _INT64, self.device)
    grid, block = grid_for(chunks)
    kernel_function("kernels/index.cu", f"count_nonzero_chunks_{self.dtype.name}")(
        np.int64(n), np.int64(_CHUNK), np.uintp(mask.data_ptr()), np.uintp(counts.data_ptr()), grid=grid, block=block)
    host = np.empty(chunks, dtype=np.int64)
    state.drv.memcpy_dtoh(host, counts.data_ptr())
    starts = np.concatenate([[0], np.cumsum(host)[:-1]]).astype(np.int64)
    out = tensor_impl.empty((int(host.sum()), nd), _INT64, self.device)
    if out.numel():
        kernel_function("kernels/index.cu", f"write_nonzero_chunks_{self.dtype.name}")(
            np.int64(n), np.int64(_CHUNK), np.uintp(mask.data_ptr()), state.drv.In(starts),
            state.drv.In(np.asarray([nd, *self.shape], dtype=np.int64)), np.uintp(out.data_ptr()),
            grid=grid, block=block)
    return out


def _indexing_plan(self: Any, indices: Any) -> tuple[_Plan, list[int]]:
    """The plan of self[indices] and, per index tensor, the dim it indexes (-1: a 0-dim mask)."""
    indices = list(indices)
    if len(indices) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})")
    for t in indices:
        if t is not None and t.dtype.name not in ("int64", "int32", "uint8", "bool"):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    dims: list[int] = []
    tensors: list[Any] = []
    positions: list[int] = []
    src = 0
    for t in indices:
        if t is None:
            src += 1
            continue
        if t.dtype.name in ("uint8", "bool"):
            if t.dtype.name == "uint8":
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                              "instead.", UserWarning, stacklevel=4)
            if src + t.dim() > self.dim():
                raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {src + t.dim()})")
            for j in range(t.dim()):
                if t.shape[j] != self.shape[src + j]:
                    raise IndexError(f"The shape of the mask {_sizes_str(t.shape)} at index {j} does not match the "
                                     f"shape of the indexed tensor {_sizes_str(self.shape)} at index {src + j}")
            coordinates = nonzero_cuda(t if t.is_cuda else to_device(t, t.dtype))
            if t.dim() == 0:       # adds a dim of size 1 (True) or 0 (False), indexing none, as NumPy
                dims.append(-1)
                tensors.append(tensor_impl.empty((coordinates.shape[0],), _INT64, self.device).fill_(0))
                positions.append(src)
            for j in range(t.dim()):
                dims.append(src + j)
                tensors.append(as_strided(coordinates, (coordinates.shape[0],), (t.dim(),), j))
                positions.append(src + j)
            src += t.dim()
        else:
            dims.append(src)
            tensors.append(_on_device(t))
            positions.append(src)
            src += 1
    block_shape: list[int] = []
    for t in tensors:
        block_shape = [1] * (t.dim() - len(block_shape)) + block_shape
        for i, s in enumerate(t.shape):
            d = len(block_shape) - t.dim() + i
            if block_shape[d] == 1:
                block_shape[d] = s
            elif s not in (1, block_shape[d]):
                raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " +
                                 ", ".join(_sizes_str(o.shape) for o in tensors))
    for k, d in enumerate(dims):
        if d >= 0 and self.shape[d] == 0 and tensors[k].numel() > 0:
            raise IndexError("index is out of bounds for dimension with size 0")
    real = [d for d in dims if d >= 0]
    adjacent = all(b == a + 1 for a, b in zip(real, real[1:]))
    first = (real[0] if real else positions[0]) if adjacent else 0
    pre = [d for d in range(self.dim()) if d not in real and adjacent and d < first]
    post = [d for d in range(self.dim()) if d not in real and d not in pre]
    shape = [self.shape[d] for d in pre] + block_shape + [self.shape[d] for d in post]
    strides = [self.stride(d) for d in pre] + [0] * len(block_shape) + [self.stride(d) for d in post]
    plan = _Plan(shape, strides, True)
    for t, d in zip(tensors, dims):
        index_strides = [0] * len(shape)
        for i, (size, stride) in enumerate(zip(t.shape, t.stride())):
            if size != 1:
                index_strides[len(pre) + len(block_shape) - t.dim() + i] = stride
        plan.add_index(t, self.stride(d) if d >= 0 else 0, self.shape[d] if d >= 0 else 1, index_strides)
    return plan, dims


def _out_of_range(plan: _Plan, dims: list[int] | None,
                  gather_dim: int | None = None) -> Callable[[list[int]], Exception]:
    """What an error slot [1 + e, value, k] of a launch over plan means: PyTorch's error for it."""
    def error(bad: list[int]) -> Exception:
        value, k = bad[1], bad[2]
        size = plan.blocks[k][2]
        if gather_dim is not None:
            return RuntimeError(f"index {value} is out of bounds for dimension {gather_dim} with size {size}")
        position = sum(1 for d in (dims or [])[:k] if d >= 0)      # PyTorch names the index tensor's place
        return IndexError(f"index {value} is out of bounds for dimension {position} with size {size}")
    return error


def index_cuda(self: Any, indices: Any) -> Any:
    plan, dims = _indexing_plan(self, indices)
    out = tensor_impl.empty(tuple(plan.shape), self.dtype, self.device)
    if out.numel():
        _launch(f"take_{self.element_size()}", out.numel(), plan.meta([0] * len(plan.shape)),
                self.data_ptr(), out.data_ptr(), on_error=_out_of_range(plan, dims))
    return out


def _put(self: Any, plan: _Plan, values: Any, accumulate: bool, dims: list[int] | None,
         gather_dim: int | None = None) -> None:
    """self[plan] = values (or += with accumulate), values broadcast to the plan's shape."""
    value_strides = _broadcast_strides(values, plan.shape)
    if value_strides is None:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_sizes_str(values.shape)} cannot be broadcast "
                           f"to indexing result of shape {_sizes_str(plan.shape)}")
    if plan.numel() == 0:
        return
    if accumulate:
        if self.dtype.name not in _ACCUMULATING:
            raise NotImplementedError(f'"index_put_with_accumulate_cuda" not implemented for '
                                      f"'{self.dtype.type_name}'")
        if self.is_floating_point():     # floating atomics: the order of the additions varies
            context.alert_not_deterministic("index_put_with_accumulate_cuda")
        kernel = f"put_add_{self.dtype.name}"
    else:
        kernel = f"put_{self.element_size()}"
    _launch(kernel, plan.numel(), plan.meta(value_strides), self.data_ptr(), values.data_ptr(),
            on_error=_out_of_range(plan, dims, gather_dim))
    self._bump_version()


def index_put__cuda(self: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    indices = tuple(indices)
    if len(indices) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})")
    if not indices:
        raise IndexError("at least one index must be provided")
    if not values.is_cuda and values.dim() != 0:
        raise device_mismatch_error(self.device, "cpu")
    plan, dims = _indexing_plan(self, indices)
    if self.dtype is not values.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{self.dtype.type_name} for the destination and {values.dtype.type_name} for the source.")
    _put(self, plan, to_device(values, values.dtype), accumulate, dims)
    return self


def index_put_cuda(self: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    return index_put__cuda(_clone(self), indices, values, accumulate)


def _clone(self: Any) -> Any:
    out = tensor_impl.empty(tuple(self.shape), self.dtype, self.device)
    return copy_cuda(out, self)


def _one_dim(t: Any) -> Any:
    """A 0-dim tensor as a (1,) view (gather and scatter treat it so, as PyTorch's)."""
    return t if t.dim() else as_strided(t, (1,), (1,), t.storage_offset())


def _dim_plan(self: Any, d: int, index: Any) -> _Plan:
    """gather/scatter: result element at coordinates c reads self at c with c[d] = index[c]
    (self and index of one dimensionality, 0-dim ones seen as (1,))."""
    self, index = _one_dim(self), _one_dim(index)
    strides = [self.stride(i) if i != d else 0 for i in range(self.dim())]
    plan = _Plan(list(index.shape), strides, False)
    plan.add_index(index, self.stride(d), self.shape[d], list(index.stride()))
    return plan


def gather_cuda(self: Any, dim: int, index: Any, sparse_grad: bool = False) -> Any:
    d = self._wrap_dim(dim)
    check_gather(self, d, index)
    index = _on_device(index)
    out = tensor_impl.empty(tuple(index.shape), self.dtype, self.device)
    if out.numel():
        plan = _dim_plan(self, d, index)
        _launch(f"take_{self.element_size()}", out.numel(), plan.meta([0] * len(plan.shape)),
                self.data_ptr(), out.data_ptr(), on_error=_out_of_range(plan, None, d))
    return out


def _scatter(self: Any, dim: int, index: Any, src: Any, accumulate: bool, is_value: bool = False,
             combine: int | None = None) -> Any:
    """self, with src's elements written (or added, or combined by put_reduce's op) at index along
    dim; a value is a 0-dim src."""
    d = self._wrap_dim(dim)
    check_scatter(self, d, index, None if is_value else src)
    if index.numel() == 0:
        return self
    index = _on_device(index)
    plan = _dim_plan(self, d, index)
    if not src.is_cuda:
        src = to_device(src, src.dtype)
    values_strides = [0] * len(plan.shape) if is_value else list(_one_dim(src).stride())
    extra: tuple[Any, ...] = ()
    if self.is_floating_point() and (accumulate or combine == 0):     # atomic sums and products of floats
        context.alert_not_deterministic("scatter_add_cuda_" if accumulate else "scatter_reduce_cuda_prod")
    if combine is not None:
        kernel, extra = f"put_reduce_{self.dtype.name}", (np.int32(combine),)
    else:
        kernel = f"put_add_{self.dtype.name}" if accumulate else f"put_{self.element_size()}"
    _launch(kernel, plan.numel(), plan.meta(values_strides), self.data_ptr(), src.data_ptr(),
            on_error=_out_of_range(plan, None, d), extra=extra)
    self._bump_version()
    return self


def _value(self: Any, value: Any) -> Any:
    """value as a 0-dim tensor of self's dtype on self's device (scatter's broadcast source)."""
    return tensor_impl.empty((), self.dtype, self.device).fill_(value)


def scatter__src_cuda(self: Any, dim: int, index: Any, src: Any) -> Any:
    return _scatter(self, dim, index, src, False)


def scatter_src_cuda(self: Any, dim: int, index: Any, src: Any) -> Any:
    check_scatter(self, self._wrap_dim(dim), index, src)
    return _scatter(_clone(self), dim, index, src, False)


def scatter__value_cuda(self: Any, dim: int, index: Any, value: Any) -> Any:
    return _scatter(self, dim, index, _value(self, value), False, True)


def scatter_value_cuda(self: Any, dim: int, index: Any, value: Any) -> Any:
    check_scatter(self, self._wrap_dim(dim), index, None)
    return _scatter(_clone(self), dim, index, _value(self, value), False, True)


def scatter_add__cuda(self: Any, dim: int, index: Any, src: Any) -> Any:
    if self.dtype.name not in _ACCUMULATING:
        raise NotImplementedError(f"\"scatter_add_cuda_\" not implemented for '{self.dtype.type_name}'")
    return _scatter(self, dim, index, src, True)


def scatter_add_cuda(self: Any, dim: int, index: Any, src: Any) -> Any:
    check_scatter(self, self._wrap_dim(dim), index, src)
    return scatter_add__cuda(_clone(self), dim, index, src)


# ---- scatter with a reduction ---------------------------------------------------------------------

_COMBINE = {"prod": 0, "multiply": 0, "amax": 1, "amin": 2}     # index.cu put_reduce's op
# dtypes index.cu's atomics do not cover reduce in a wider one and round (or wrap) back once
_WIDER = {"float16": "float32", "bfloat16": "float32", "int16": "int32", "int8": "int32", "uint8": "int32",
          "bool": "int32"}


def _in_wider(self: Any, src: Any, reduce_into: Any) -> Any:
    """reduce_into(wide_self, wide_src) on copies in the wider dtype, the result copied back."""
    wide = scalar_type.dtype_from_name(_WIDER[self.dtype.name])
    work = to_device(contiguous_cuda(self), wide)      # a new tensor: the dtypes differ
    reduce_into(work, to_device(src, wide))
    copy_cuda(self, work)
    self._bump_version()
    return self


def _scatter_reducing(self: Any, d: int, index: Any, src: Any, reduce: str, is_value: bool) -> Any:
    if reduce in ("sum", "add", "mean"):
        return _scatter(self, d, index, src, True, is_value)
    return _scatter(self, d, index, src, False, is_value, _COMBINE[reduce])


def scatter_reduce__two_cuda(self: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool = True) -> Any:
    """sum and mean add with atomics (mean then divides by each position's count, itself included
    unless include_self is False); prod, amax and amin combine by compare-and-swap."""
    d = self._wrap_dim(dim)
    check_scatter(self, d, index, src)
    scatter_reduce_op(reduce, True)
    if reduce == "mean" and self.dtype is _BOOL:
        raise NotImplementedError("\"scatter_gather_tensor_cuda_reduce_mean\" not implemented for 'Bool'")
    if index.numel() == 0:
        return self
    if self.dtype.name in _WIDER:
        return _in_wider(self, src, lambda wide, wide_src: scatter_reduce__two_cuda(wide, d, index, wide_src, reduce,
                                                                                    include_self))
    target = self if self.is_contiguous() else contiguous_cuda(self)
    if not include_self:
        identity = scatter_identity(reduce, self.dtype.scalar_type)
        _scatter(target, d, index, _value(target, identity), False, True)
    _scatter_reducing(target, d, index, src, reduce, False)
    if reduce == "mean":
        counts = tensor_impl.empty(tuple(self.shape), _INT64, self.device).fill_(1 if include_self else 0)
        _scatter(counts, d, index, _value(counts, 1), True, True)
        grid, block = grid_for(target.numel())
        kernel_function("kernels/index.cu", f"divide_by_counts_{self.dtype.name}")(
            np.int64(target.numel()), np.uintp(target.data_ptr()), np.uintp(counts.data_ptr()), grid=grid, block=block)
    if target is not self:
        copy_cuda(self, target)
    self._bump_version()
    return self


def scatter_reduce_two_cuda(self: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool = True) -> Any:
    check_scatter(self, self._wrap_dim(dim), index, src)
    scatter_reduce_op(reduce, True)
    return scatter_reduce__two_cuda(_clone(self), dim, index, src, reduce, include_self)


def scatter__reduce_cuda(self: Any, dim: int, index: Any, src: Any, reduce: str) -> Any:
    """The legacy reduce= ('add' or 'multiply') of scatter_, with PyTorch's deprecation warning."""
    d = self._wrap_dim(dim)
    check_scatter(self, d, index, src)
    scatter_reduce_op(reduce, False)
    warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                  "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                  UserWarning, stacklevel=3)
    if self.dtype.name in _WIDER and index.numel():
        return _in_wider(self, src, lambda wide, wide_src: _scatter_reducing(wide, d, index, wide_src, reduce, False))
    return _scatter_reducing(self, d, index, src, reduce, False)


def scatter_reduce_cuda(self: Any, dim: int, index: Any, src: Any, reduce: str) -> Any:
    check_scatter(self, self._wrap_dim(dim), index, src)
    return scatter__reduce_cuda(_clone(self), dim, index, src, reduce)


def scatter__value_reduce_cuda(self: Any, dim: int, index: Any, value: Any, reduce: str) -> Any:
    d = self._wrap_dim(dim)
    check_scatter(self, d, index, None)
    scatter_reduce_op(reduce, False)
    if self.dtype.name in _WIDER and index.numel():
        return _in_wider(self, _value(self, value),
                         lambda wide, wide_src: _scatter_reducing(wide, d, index, wide_src, reduce, True))
    return _scatter_reducing(self, d, index, _value(self, value), reduce, True)


def scatter_value_reduce_cuda(self: Any, dim: int, index: Any, value: Any, reduce: str) -> Any:
    check_scatter(self, self._wrap_dim(dim), index, None)
    return scatter__value_reduce_cuda(_clone(self), dim, index, value, reduce)
