"""Batching rules of views, shape operators, joins, indexing and the *_like factories: the operator once on
the values, with its dimension and size arguments moved past the batch dimension."""
from __future__ import annotations

from typing import Any, Callable

from torch._functorch.batch_rules._call import Call, on_value, physical_dim
from torch._functorch.batched import fallback, front, info, make_batched, register_rule
from torch._tensor import Tensor

Rule = Callable[[Any, int, tuple[Any, ...], dict[str, Any]], Any]


def dims_rule(dim_names: tuple[str, ...], extra_rank: int = 0, none_is_all: bool = False,
              batch_others: tuple[str, ...] = ()) -> Rule:
    """The rule of an operator on its first argument along dimension arguments dim_names (ints or lists; None
    or an empty list meaning every dimension when none_is_all). batch_others: tensor arguments of the same
    rank that must carry the batch too (an unbatched one is expanded)."""

    def rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        c = Call(handle, level, args, kwargs)
        first = c.facts.names[0]
        self = c.get(first)
        batched = set(c.tensors_batched())
        if not (batched <= {first, *batch_others}) or (first not in batched and not batch_others):
            return fallback(handle, args, kwargs)
        rank = self.dim() + extra_rank
        # a zero-dim example's dim 0 (or -1) is its only one: the value gains it as a size-1 dim, dropped after
        scalar = rank == 0
        for name in dim_names:
            if name not in c.facts.names:
                continue
            d = c.get(name)
            if d is None or (isinstance(d, (list, tuple)) and not d):
                if none_is_all:
                    c.set(name, list(range(1, max(self.dim(), 1) + 1)))
                elif handle.name.startswith("repeat_interleave"):
                    c.set(first, c.expanded(first).reshape(c.size(), -1))     # over the flattened example
                    c.set(name, 1)
                    return c.finish(c.run())
                continue
            c.set(name, [physical_dim(x, rank) for x in d] if isinstance(d, (list, tuple)) else physical_dim(d, rank))
        c.set(first, c.expanded(first).unsqueeze(1) if scalar else c.expanded(first))
        for name in batch_others:
            other = c.get(name)
            if isinstance(other, Tensor):
                value = c.expanded(name)
                c.set(name, value.unsqueeze(1) if scalar and other.dim() == 0 else value)
        result = c.run()
        if scalar and not c.facts.written:
            result = _drop_dim_one(result)
        return c.finish(result)

    return rule


def _drop_dim_one(result: Any) -> Any:
    if isinstance(result, Tensor):
        return result.squeeze(1) if result.dim() > 1 else result
    if isinstance(result, tuple):
        parts = [_drop_dim_one(r) for r in result]
        return type(result)(*parts) if hasattr(result, "_fields") else tuple(parts)
    return result


def _view_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """view, reshape, _unsafe_view, expand: the batch size in front of the size argument."""
    c = Call(handle, level, args, kwargs)
    if c.tensors_batched() != [c.facts.names[0]]:
        return fallback(handle, args, kwargs)
    value = c.value(c.facts.names[0])
    size_name = c.facts.names[1]
    size = list(c.get(size_name))
    if handle.name.startswith("expand"):
        # new leading dims of the example come after the batch: the value gains size-1 dims to match
        self = c.get(c.facts.names[0])
        pad = len(size) - self.dim()
        if pad > 0:
            shape = tuple(value.shape)
            value = value.view(shape[:1] + (1,) * pad + shape[1:])
    c.set(c.facts.names[0], value)
    c.set(size_name, [int(value.shape[0])] + size)
    return c.finish(c.run())


def _permute_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    c = Call(handle, level, args, kwargs)
    self = c.get("self")
    dims = c.get("dims")
    c.set("self", c.value("self"))
    c.set("dims", [0] + [physical_dim(d, self.dim()) for d in dims])
    return c.finish(c.run())


def _t_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    c = Call(handle, level, args, kwargs)
    self = c.get("self")
    value = c.value("self")
    if self.dim() < 2:
        return make_batched(value, 0, level, self)
    return make_batched(value.transpose(1, 2), 0, level, self)


def _alias_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """detach, alias: the same on the value, batched as it was."""
    value, bdim, lvl = info(args[0])  # type: ignore[misc]
    return make_batched(handle(value), bdim, lvl)


def _squeeze_all_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    self = args[0]
    value = front(self, level)
    dims = [d + 1 for d in range(self.dim()) if self.shape[d] == 1]
    return make_batched(value.squeeze(dims) if dims else value.view(value.shape), 0, level, self)


def _join_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """cat and stack: every tensor with the batch in front (unbatched ones expanded), the dimension moved."""
    c = Call(handle, level, args, kwargs)
    tensors = list(c.get("tensors"))
    size = c.size()
    reference = next((t for t in tensors if t.dim() > 1 or t.shape != (0,)), tensors[0])
    rank = reference.dim() + (1 if handle.name.startswith("stack") else 0)
    values = []
    for t in tensors:
        v = front(t, level)
        if v is None:
            v = t.unsqueeze(0).expand((size,) + tuple(t.shape))
        values.append(v)
    c.set("tensors", values)
    c.set("dim", physical_dim(c.get("dim", 0), rank))
    return c.finish(c.run())


def _index_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """index.Tensor: with only self batched, the indices apply past the batch dimension (non-adjacent
    indices put their dims first, in the value as in the example: the batch then follows them); with
    batched indices, the batch is one more index (an arange) in front."""
    import torch
    c = Call(handle, level, args, kwargs)
    self = c.get("self")
    indices = list(c.get("indices"))
    value = c.expanded("self")
    size = int(value.shape[0])
    positions = [i for i, t in enumerate(indices) if t is not None]
    adjacent = positions == list(range(positions[0], positions[-1] + 1)) if positions else True
    if not any(c.batched(t) for t in indices if t is not None):
        result = handle(value, [None] + indices)
        if adjacent:
            return make_batched(result, 0, level)
        broadcast = torch.broadcast_shapes(*[tuple(indices[i].shape) if indices[i].dtype not in (torch.bool, torch.uint8)
                                             else (int(indices[i].sum()),) for i in positions])
        return make_batched(result, len(broadcast), level)
    if any(t is not None and t.dtype in (torch.bool, torch.uint8) for t in indices):
        return fallback(handle, args, kwargs)
    # every index carries the batch: the batch's arange joins them, all adjacent from dim 0 of the value
    rank = max(t.dim() for t in indices if t is not None)
    batch_index = torch.arange(size, device=value.device).view((size,) + (1,) * rank)
    values: list[Any] = []
    for t in indices:
        if t is None:
            values.append(None)
            continue
        v = front(t, level)
        if v is None:
            v = t
        else:
            pad = rank - t.dim()
            if pad > 0:
                shape = tuple(v.shape)
                v = v.view(shape[:1] + (1,) * pad + shape[1:])
        values.append(v)
    if adjacent and positions[0] > 0:
        # the indexed dims moved to the front, next to the batch index; their result dims moved back after
        # the dims that preceded them, where the example's result has them
        before = positions[0]
        order = positions + [d for d in range(self.dim()) if d not in positions]
        value = value.permute([0] + [d + 1 for d in order])
        result = handle(value, [batch_index] + [values[i] for i in positions])
        return make_batched(result.movedim(list(range(1, 1 + rank)), list(range(1 + before, 1 + before + rank))),
                            0, level)
    result = handle(value, [batch_index] + values)
    return make_batched(result, 0, level)


_GEOMETRY_IN_PLACE = ("t_", "transpose_", "unsqueeze_", "squeeze_", "resize_", "resize_as_", "as_strided_",
                      "swapdims_", "swapaxes_", "set_")


def _geometry_in_place_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    name = handle.name.split(".")[0]
    raise RuntimeError(f"vmap: Ember does not support aten::{name} on a batched tensor (it changes the tensor's "
                       f"shape in place); use the out-of-place {name.rstrip('_')}")


def _index_fold_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """index_add, index_copy and index_fill with batched arguments: the batch folded into the indexed dim, each
    example's indices offset into its own block (a batched fill value runs the per-example loop)."""
    import torch
    c = Call(handle, level, args, kwargs)
    filling = "source" not in c.facts.names
    if c.facts.written or (filling and c.batched(c.get("value"))):
        return fallback(handle, args, kwargs)
    self = c.get("self")
    size = c.size()
    d = physical_dim(c.get("dim"), self.dim()) if self.dim() else 1
    value = c.expanded("self")
    if self.dim() == 0:
        value = value.unsqueeze(1)
    moved = value.movedim(d, 1)
    n = int(moved.shape[1])
    rest = tuple(moved.shape[2:])
    index = c.expanded("index").reshape(size, -1)
    k = int(index.shape[1])
    offsets = torch.arange(size, device=index.device).mul_(n).view(size, 1)
    flat_index = (index + offsets).reshape(-1)
    if filling:
        result = handle(moved.reshape((size * n,) + rest), 0, flat_index, c.get("value"))
    else:
        source = c.expanded("source")
        if source.dim() == 1:
            source = source.unsqueeze(1)
        source = source.movedim(d, 1).reshape((size * k,) + rest)
        extra = {"alpha": c.get("alpha", 1)} if "alpha" in c.facts.names else {}
        result = handle(moved.reshape((size * n,) + rest), 0, flat_index, source, **extra)
    result = result.view((size, n) + rest).movedim(1, d)
    return make_batched(result.squeeze(1) if self.dim() == 0 else result, 0, level)


def register() -> None:
    from aten import dispatcher
    table: dict[str, Rule] = {
        "view": _view_rule, "reshape": _view_rule, "_unsafe_view": _view_rule, "expand": _view_rule,
        "permute": _permute_rule, "t": _t_rule,
        "detach": _alias_rule, "alias": _alias_rule,
        "squeeze": _squeeze_all_rule,
        "cat": _join_rule, "stack": _join_rule,
        "index.Tensor": _index_rule, "index_add": _index_fold_rule, "index_copy": _index_fold_rule,
        "index_fill.int_Scalar": _index_fold_rule, "index_fill.int_Tensor": _index_fold_rule,
        "select.int": dims_rule(("dim",)), "slice.Tensor": dims_rule(("dim",)),
        "transpose.int": dims_rule(("dim0", "dim1")), "unsqueeze": dims_rule(("dim",), extra_rank=1),
        "squeeze.dim": dims_rule(("dim",)), "squeeze.dims": dims_rule(("dim",)),
        "diagonal": dims_rule(("dim1", "dim2")), "narrow": dims_rule(("dim",)),
        "split.Tensor": dims_rule(("dim",)), "split_with_sizes": dims_rule(("dim",)), "unbind.int": dims_rule(("dim",)),
        "chunk": dims_rule(("dim",)), "flip": dims_rule(("dims",)), "unfold": dims_rule(("dimension",)),
        "index_select": dims_rule(("dim",)),
        "gather": dims_rule(("dim",), batch_others=("index",)),
        "scatter.src": dims_rule(("dim",), batch_others=("index", "src")),
        "scatter.value": dims_rule(("dim",), batch_others=("index",)),
        "scatter_add": dims_rule(("dim",), batch_others=("index", "src")),
        "tril": dims_rule(()), "triu": dims_rule(()),
        "repeat_interleave.self_int": dims_rule(("dim",)),
    }
    for name in ("zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like"):
        table[name] = on_value()
    for name in ("new_zeros", "new_ones", "new_empty", "new_full", "new_empty_strided"):
        table[name] = on_value(batched_result=False)
    # in-place changes of a tensor's geometry: a batched tensor's geometry is its examples', kept apart from its
    # value's, so these are refused rather than left half done
    for name in dispatcher.operator_names():
        if name.split(".")[0] in _GEOMETRY_IN_PLACE:
            table[name] = _geometry_in_place_rule
    for name, rule in table.items():
        if dispatcher.has_operator(name):
            register_rule(name, rule)
