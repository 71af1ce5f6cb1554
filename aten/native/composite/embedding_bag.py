"""embedding_bag: the rows of weight each bag of indices picks, summed, averaged or maxed per bag,
composed of index_select and index_add / scatter_reduce, with PyTorch's checks, its handling of
padding_idx (not counted), empty bags (zeros), per_sample_weights (mode "sum") and
scale_grad_by_freq, and its four results (output, offset2bag, bag_size, max_indices)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import dtype_from_name

_zeros = find_operator("zeros")
_arange = find_operator("arange")
_searchsorted = find_operator("searchsorted.Tensor")
_full = find_operator("full")
_where = find_operator("where.self")
_ones_like = find_operator("ones_like")
_zeros_like = find_operator("zeros_like")
_value_check = find_operator("_ember_embedding_bag_check")
_INT64 = dtype_from_name("int64")
_SUM, _MEAN, _MAX = 0, 1, 2


def _check(weight: Any, indices: Any, offsets: Any, mode: int, per_sample_weights: Any) -> None:
    for name, t in (("indices", indices), ("offsets", offsets)):
        if t.dtype.name not in ("int64", "int32"):
            raise RuntimeError(f"Expected tensor for argument #1 '{name}' to have one of the following scalar types: "
                               f"Long, Int; but got torch.{t.dtype.type_name}Tensor instead (while checking "
                               "arguments for embedding_bag)")
    _value_check(weight, indices, offsets)
    if per_sample_weights is not None:
        if mode != _SUM:
            raise NotImplementedError("embedding_bag: per_sample_weights only supported with mode='sum'")
        if per_sample_weights.shape != indices.shape:
            raise RuntimeError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) is not "
                               f"None, then it must have the same shape as the input ({list(indices.shape)})")


def _ember_embedding_bag_check(weight: Any, indices: Any, offsets: Any) -> None:
    """The checks on the values of indices and offsets (an operator of its own: a compiled graph keeps it)."""
    if indices.numel():
        low, high = int(indices.min()), int(indices.max())
        if low < 0 or high >= weight.shape[0]:
            position = int(((indices < 0) | (indices >= weight.shape[0])).long().argmax())
            raise RuntimeError(f"Index {position} of input takes value {int(indices[position])} which is not in the "
                               f"valid range [0, {weight.shape[0]})")
    if not offsets.numel():
        return
    if int(offsets[0]) != 0:
        # PyTorch prints offsets[0] as a tensor, in its legacy format
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(offsets[0])}\n[ torch.{offsets.dtype.type_name}Tensor{{}} ]")
    if int(offsets[-1]) > indices.numel():
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {indices.numel()} but got "
                           f"offsets[-1] of {int(offsets[-1])}")
    if int(offsets.min()) < 0:
        raise IndexError("index out of range in self")      # (PyTorch's, from the index_select it makes)
    decreasing = offsets[1:] < offsets[:-1]
    if bool(decreasing.any()):
        at = int(decreasing.long().argmax())
        raise RuntimeError(f"embedding_bag: offsets must not decrease, but offsets[{at}] = {int(offsets[at])} is "
                           f"greater than offsets[{at + 1}] = {int(offsets[at + 1])}")


def _freq_scaled(rows: Any, indices: Any, weight: Any) -> Any:
    """rows unchanged, their gradient divided by how often each index occurs (scale_grad_by_freq)."""
    counts = _zeros((weight.shape[0],), dtype=rows.dtype, device=rows.device)
    counts = counts.index_add(0, indices, _ones_like(indices, dtype=rows.dtype))
    scale = (1 / counts.index_select(0, indices)).unsqueeze(1)
    frozen = rows.detach()
    return frozen + (rows - frozen) * scale


def embedding_bag_padding_idx(weight: Any, indices: Any, offsets: Any, scale_grad_by_freq: bool, mode: int,
                              sparse: bool, per_sample_weights: Any, include_last_offset: bool,
                              padding_idx: Any) -> Any:
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported by Ember")
    _check(weight, indices, offsets, mode, per_sample_weights)
    indices, offsets = indices.long(), offsets.long()
    bags = offsets.numel() - 1 if include_last_offset else offsets.numel()
    count = indices.numel()
    dim = weight.shape[1]
    positions = _arange(count, dtype=_INT64, device=indices.device)
    starts = offsets[:bags] if include_last_offset else offsets
    offset2bag = _searchsorted(starts, positions, right=True) - 1 if bags else positions * 0
    kept = indices != padding_idx if padding_idx is not None else _ones_like(indices, dtype=dtype_from_name("bool"))
    if include_last_offset and bags:
        kept = kept & (positions < offsets[bags])
    rows = weight.index_select(0, indices)
    if scale_grad_by_freq:
        rows = _freq_scaled(rows, indices, weight)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    sizes = _zeros((bags,), dtype=_INT64, device=weight.device).index_add(0, offset2bag, kept.long())
    mask = kept.unsqueeze(1).to(rows.dtype)
    if mode == _MAX:
        return _bag_max(rows, kept, offset2bag, sizes, indices, bags)
    summed = _zeros((bags, dim), dtype=rows.dtype, device=rows.device).index_add(0, offset2bag, rows * mask)
    if mode == _MEAN:
        return summed / sizes.clamp_min(1).unsqueeze(1).to(rows.dtype), offset2bag, sizes, sizes.clone()
    zeros = sizes * 0
    return summed, offset2bag, zeros, zeros.clone()


def _bag_max(rows: Any, kept: Any, offset2bag: Any, sizes: Any, indices: Any, bags: int) -> tuple[Any, ...]:
    """Each bag's elementwise maximum (0 for an empty bag) and, per element, the row index of the first
    entry of the bag that holds it."""
    count, dim = rows.shape[0], rows.shape[1]
    if count == 0:
        return (_zeros((bags, dim), dtype=rows.dtype, device=rows.device), offset2bag, sizes,
                _zeros((bags, dim), dtype=_INT64, device=rows.device))
    targets = offset2bag.unsqueeze(1).expand(count, dim)
    candidates = _where(kept.unsqueeze(1), rows, _full((count, dim), float("-inf"), dtype=rows.dtype,
                                                          device=rows.device))
    out = _full((bags, dim), float("-inf"), dtype=rows.dtype, device=rows.device)
    out = out.scatter_reduce(0, targets, candidates, "amax")
    out = _where((sizes == 0).unsqueeze(1), _zeros_like(out), out)    # empty bags are 0, not -inf
    holds = kept.unsqueeze(1) & (rows.detach() == out.detach().index_select(0, offset2bag))
    positions = _arange(count, dtype=_INT64, device=rows.device).unsqueeze(1).expand(count, dim)
    first = _where(holds, positions, positions * 0 + count)
    at = _full((bags, dim), count, dtype=_INT64, device=rows.device).scatter_reduce(0, targets, first, "amin")
    picked = indices.index_select(0, at.clamp_max(count - 1).flatten()).reshape(bags, dim)
    return out, offset2bag, sizes, _where(at < count, picked, picked * 0)


def embedding_bag(weight: Any, indices: Any, offsets: Any, scale_grad_by_freq: bool = False, mode: int = 0,
                  sparse: bool = False, per_sample_weights: Any = None, include_last_offset: bool = False) -> Any:
    return embedding_bag_padding_idx(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                     include_last_offset, None)
