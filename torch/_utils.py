"""Tensor pickling: the rebuild functions PyTorch's pickles name (`torch._utils._rebuild_tensor_v2`,
`_rebuild_parameter`), so that a pickle or checkpoint made by Ember loads in PyTorch and the reverse.

A tensor pickles as `_rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
backward_hooks)`, its storage as a `torch.storage.TypedStorage`: inside `torch.save` the storage
becomes a persistent id (one record per storage, so views keep sharing memory); in a plain pickle it
reduces to `torch.storage._load_from_bytes(<a torch.save archive>)`.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

import torch
from c10.dtype_table import DTYPES as DTYPE_ROWS

__all__: list[str] = []

_WITH_STORAGE_CLASS = frozenset(str(row["name"]) for row in DTYPE_ROWS if row["legacy_storage"])


def _rebuild_tensor(storage: Any, storage_offset: int, size: Any, stride: Any) -> Any:
    """A tensor over `storage` (a TypedStorage) with the given geometry, sharing its memory."""
    size, stride = tuple(size), tuple(stride)
    numel = storage._size()
    if (len(size) != len(stride) or any(type(s) is not int or s < 0 for s in (*size, *stride))
            or type(storage_offset) is not int or storage_offset < 0):
        raise RuntimeError(f"invalid tensor geometry in pickle: size {size}, stride {stride}, "
                           f"storage offset {storage_offset}")
    extent = storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if all(n > 0 for n in size) and extent > numel:
        raise RuntimeError(f"invalid tensor geometry in pickle: size {list(size)}, stride {list(stride)} and "
                           f"storage offset {storage_offset} need {extent} elements, but the storage has {numel}")
    # A view of the storage's 1-D tensor, detached: a plain tensor (not a view) over the same memory.
    return torch.as_strided(storage._tensor, size, stride, storage_offset).detach()


def _rebuild_tensor_v2(storage: Any, storage_offset: int, size: Any, stride: Any, requires_grad: bool,
                       backward_hooks: Any, metadata: Any = None) -> Any:
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    if metadata:
        # PyTorch records the conj/neg bits of complex views here; Ember has no complex dtypes.
        raise RuntimeError(f"Ember cannot load tensor metadata {metadata!r} (conjugate or negative views)")
    if requires_grad:
        tensor.requires_grad_(True)
    # backward_hooks: always an empty OrderedDict in PyTorch's pickles (hooks are not serialized).
    return tensor


def _rebuild_tensor_v3(storage: Any, storage_offset: int, size: Any, stride: Any, requires_grad: bool,
                       backward_hooks: Any, dtype: Any, metadata: Any = None) -> Any:
    """A tensor of a dtype PyTorch saves without a typed storage class (float8): its storage comes
    as bytes, viewed here as dtype (sharing the memory, so views saved together still share)."""
    from torch.storage import TypedStorage
    if storage.dtype is not dtype:
        storage = TypedStorage._wrap(storage._tensor.view(dtype))
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _parameter_type() -> Any:
    """torch.nn.Parameter, or None while torch.nn is not importable (reached through torch's lazy
    attributes: torch.nn sits above this module)."""
    nn = getattr(torch, "nn", None)
    return getattr(nn, "Parameter", None) if nn is not None else None


def _rebuild_parameter(data: Any, requires_grad: bool, backward_hooks: Any) -> Any:
    parameter = _parameter_type()
    if parameter is None:   # before torch.nn exists: the data as a tensor that requires grad
        return data.detach().requires_grad_(requires_grad)
    return parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Any, requires_grad: bool, backward_hooks: Any, state: Any) -> Any:
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    dict_state, slots_state = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
    for attrs in (dict_state, slots_state):
        for key, value in (attrs or {}).items():
            setattr(param, key, value)
    return param


def _is_parameter(tensor: Any) -> bool:
    """A check by name, so that Ember's torch.nn.Parameter pickles as PyTorch's without importing nn."""
    cls = type(tensor)
    return any(c.__name__ == "Parameter" and c.__module__.startswith("torch.nn") for c in cls.__mro__)


def _tensor_reduce(tensor: Any) -> tuple[Any, tuple[Any, ...]]:
    """Tensor.__reduce_ex__: PyTorch's (rebuild function, arguments) pair."""
    from torch.storage import TypedStorage
    if _is_parameter(tensor):
        return _rebuild_parameter, (tensor.detach(), bool(tensor.requires_grad), OrderedDict())
    args: tuple[Any, ...] = (TypedStorage._from_tensor(tensor), int(tensor.storage_offset()), tuple(tensor.size()),
            tuple(tensor.stride()), bool(tensor.requires_grad), OrderedDict())
    if not _has_storage_class(tensor.dtype):
        return _rebuild_tensor_v3, (*args, tensor.dtype)
    return _rebuild_tensor_v2, args


def _has_storage_class(dtype: Any) -> bool:
    """Whether PyTorch names the dtype's storages by a class (FloatStorage); float8 it saves as bytes."""
    return dtype.name in _WITH_STORAGE_CLASS


def _tensor_deepcopy(tensor: Any, memo: dict[int, Any]) -> Any:
    """Tensor.__deepcopy__ as PyTorch's: leaves only; the storage is copied once per deepcopy (memo),
    so views keep sharing; requires_grad and a deep copy of .grad carry over."""
    import copy
    if not tensor.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                           "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                           "because of a torch.nn.utils.weight_norm usage, see "
                           "https://github.com/pytorch/pytorch/pull/103001")
    if id(tensor) in memo:
        return memo[id(tensor)]
    from torch.storage import TypedStorage
    with torch.no_grad():
        storage = TypedStorage._from_tensor(tensor)
        key = id(tensor._untyped_storage)
        copied = memo.get(key)
        if copied is None or copied.dtype != tensor.dtype:
            copied = TypedStorage._wrap(storage._tensor.clone())
            memo[key] = copied
            memo.setdefault(id(memo), []).append(tensor._untyped_storage)   # keep the id valid (copy's rule)
        result = _rebuild_tensor(copied, int(tensor.storage_offset()), tuple(tensor.size()), tuple(tensor.stride()))
    if _is_parameter(tensor):
        result = type(tensor)(result, bool(tensor.requires_grad))
    elif tensor.requires_grad:
        result.requires_grad_(True)
    if tensor.grad is not None:
        result.grad = copy.deepcopy(tensor.grad, memo)
    memo[id(tensor)] = result
    return result
