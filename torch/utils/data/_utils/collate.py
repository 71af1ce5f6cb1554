"""default_collate and default_convert: samples to batches, as PyTorch 2.13's _utils/collate.py.

Tensors are stacked on a new first dimension; Python ints, floats and bools become int64,
float64 and bool tensors; numpy arrays and scalars become tensors; mappings collate per key,
namedtuples per field, other sequences are transposed; strings and bytes stay lists.
`collate(batch, collate_fn_map=...)` is the extensible core: a map from types to functions.

NB: numpy is recognised by type module name and its types taken from sys.modules (torch loads
numpy itself), so this package does not own a numpy dependency.
"""
from __future__ import annotations

import collections.abc
import copy
import re
import sys
from collections.abc import Callable
from typing import Any

import torch

__all__ = [
    "collate",
    "collate_float_fn",
    "collate_int_fn",
    "collate_numpy_array_fn",
    "collate_numpy_scalar_fn",
    "collate_str_fn",
    "collate_tensor_fn",
    "default_collate",
    "default_collate_fn_map",
    "default_convert",
]

CollateFnMap = dict[type | tuple[type, ...], Callable[..., Any]]

# numpy dtypes of strings and objects ('S', 'a', 'U', 'O') have no tensor counterpart.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_numpy_value(data: Any) -> bool:
    kind = type(data)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def default_convert(data: Any) -> Any:
    """Convert numpy arrays and scalars (also inside containers) to tensors; keep everything else."""
    if isinstance(data, torch.Tensor):
        return data
    elem_type = type(data)
    if _is_numpy_value(data):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return torch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)  # keeps the mapping's type and extra attributes
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:  # the mapping type cannot be built from a dict
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                seq_clone = copy.copy(data)
                for i, d in enumerate(data):
                    seq_clone[i] = default_convert(d)
                return seq_clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Collate a list of samples: the first sample's type picks the function from collate_fn_map.

    Raises:
        RuntimeError: sequences of unequal length in one batch.
        TypeError: a sample type default_collate does not handle.
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(collated)
                return clone
            return elem_type(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        elem_size = len(elem)
        if not all(len(sample) == elem_size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                seq_clone = copy.copy(elem)
                for i, column in enumerate(columns):
                    seq_clone[i] = column
                return seq_clone
            return elem_type(columns)
        except TypeError:
            return columns
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> torch.Tensor:
    """Stack tensors on a new first dimension (torch.stack's error for unequal sizes)."""
    elem = batch[0]
    if getattr(elem, "is_nested", False):
        raise RuntimeError(
            "Batches of nested tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately."
        )
    if getattr(elem, "is_sparse", False):
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately."
        )
    # PyTorch stacks into shared memory inside workers; here batches travel back pickled.
    return torch.stack(list(batch), 0)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> torch.Tensor:
    return torch.as_tensor(batch)


def collate_float_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> torch.Tensor:
    return torch.tensor(batch, dtype=torch.float64)


def collate_int_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> torch.Tensor:
    # bool is an int: a batch of bools infers torch.bool, a batch of ints torch.int64.
    return torch.tensor(batch)


def collate_str_fn(batch: Any, *, collate_fn_map: CollateFnMap | None = None) -> Any:
    return batch


default_collate_fn_map: CollateFnMap = {torch.Tensor: collate_tensor_fn}
_numpy = sys.modules.get("numpy")
if _numpy is not None:
    default_collate_fn_map[_numpy.ndarray] = collate_numpy_array_fn
    default_collate_fn_map[(_numpy.bool_, _numpy.number, _numpy.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch: Any) -> Any:
    """Collate samples into a batch with default_collate_fn_map (see the module docstring)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
