"""Operators that the composites in linalg.py and nn.py call but other sections of the operator
library define (views, eq, masked_fill, tril, _to_copy).

`op(name)` is the dispatcher's operator when the schema defines it. Until it does, a CPU-only
stand-in takes its place so that these composites work (and are tested) meanwhile. The
stand-ins work on the array that c10's TensorImpl._numpy_view() returns (this layer imports no
NumPy itself): views share memory as the views they stand for do, but not the version
counter, and nothing here makes CUDA tensors. Delete a stand-in once its operator exists.
"""
from __future__ import annotations

from typing import Any, Callable

from aten import dispatcher
from c10.tensor_impl import from_numpy


def _arr(t: Any) -> Any:
    return t._numpy_view()


def _wrap(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if dim < -n or dim >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _strided(t: Any, sizes: tuple, strides: tuple) -> Any:
    """A view of t's storage (as_strided, strides in elements)."""
    a = _arr(t)
    if t.numel() == 0 or 0 in sizes:
        return from_numpy(type(a)(sizes, a.dtype))
    item = a.itemsize
    return from_numpy(type(a)(sizes, a.dtype, buffer=t._untyped_storage, offset=t.storage_offset() * item,
                              strides=tuple(s * item for s in strides)))


def _reshape(t: Any, shape: Any) -> Any:
    return from_numpy(_arr(t).reshape(tuple(shape)))


def _expand(t: Any, size: Any, implicit: bool = False) -> Any:
    sizes, strides = t._sizes(), t.stride()
    lead = len(size) - len(sizes)
    new_sizes, new_strides = [], []
    for i, s in enumerate(size):
        j = i - lead
        if j < 0:
            new_sizes.append(s)
            new_strides.append(0)
        elif s == -1 or s == sizes[j]:
            new_sizes.append(sizes[j])
            new_strides.append(strides[j])
        elif sizes[j] == 1:
            new_sizes.append(s)
            new_strides.append(0)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({sizes[j]}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: "
                               f"{list(sizes)}")
    return _strided(t, tuple(new_sizes), tuple(new_strides))


def _unsqueeze(t: Any, dim: int) -> Any:
    d = _wrap(dim, t.dim() + 1)
    return from_numpy(_arr(t)[(slice(None),) * d + (None,)])


def _squeeze_dim(t: Any, dim: int) -> Any:
    a = _arr(t)
    if a.ndim == 0:
        return from_numpy(a)
    d = _wrap(dim, a.ndim)
    return from_numpy(a.squeeze(d) if a.shape[d] == 1 else a)


def _transpose(t: Any, dim0: int, dim1: int) -> Any:
    a = _arr(t)
    return from_numpy(a.swapaxes(_wrap(dim0, a.ndim), _wrap(dim1, a.ndim)) if a.ndim else a)


def _permute(t: Any, dims: Any) -> Any:
    return from_numpy(_arr(t).transpose(tuple(dims)))


def _t(t: Any) -> Any:
    if t.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {t.dim()}D")
    return from_numpy(_arr(t).T)


def _contiguous(t: Any, memory_format: Any = None) -> Any:
    return t if t.is_contiguous() else from_numpy(_arr(t).copy(order="C"))


def _masked_fill(t: Any, mask: Any, value: Any) -> Any:
    result = _arr(t).copy(order="C")
    result[_arr(_expand(mask, t._sizes()))] = value
    return from_numpy(result)


def _eq_scalar(t: Any, other: Any) -> Any:
    return from_numpy((_arr(t) == other).copy(order="C"))


def _tril(t: Any, diagonal: int = 0) -> Any:
    result = _arr(t).copy(order="C")
    for i in range(result.shape[-2]):
        result[..., i, max(i + diagonal + 1, 0):] = 0
    return from_numpy(result)


def _to_copy(t: Any, dtype: Any = None, **_: Any) -> Any:
    a = _arr(t)
    return from_numpy(a.astype(a.dtype if dtype is None else dtype.numpy_dtype, order="C", copy=True))


_STAND_INS: dict[str, Callable[..., Any]] = {
    "reshape": _reshape, "view": _reshape, "_unsafe_view": _reshape, "expand": _expand,
    "unsqueeze": _unsqueeze, "squeeze.dim": _squeeze_dim, "transpose.int": _transpose, "permute": _permute,
    "t": _t, "contiguous": _contiguous, "masked_fill.Scalar": _masked_fill, "eq.Scalar": _eq_scalar,
    "tril": _tril, "_to_copy": _to_copy,
}


def op(name: str) -> Callable[..., Any]:
    """The operator aten::name, or its stand-in while the schema lacks it."""
    if dispatcher.has_operator(name):
        return dispatcher.find_operator(name)
    return _STAND_INS[name]


__all__ = ["op"]
