"""The generated batching rule of every operator tagged pointwise (torch/_functorch/_gen_batching.py lists
them, in-place and out= variants included).

Each batched operand's value, batch dimension in front, gains size-1 dimensions after it up to the call's
largest example rank, so that broadcasting lines the examples' dimensions up as in the per-example call;
unbatched operands broadcast over the batch as they are. Type promotion is the per-example one: where a
zero-dim example (promoted as a zero-dim tensor) became a dimensioned value, the operands are cast to the
per-example result type first."""
from __future__ import annotations

from typing import Any

from aten.native.meta.pointwise import result_type_of
from torch._functorch.batched import facts_of, front, inplace_unbatched_error, info, wrap_result, written_argument
from torch._tensor import Tensor


def padded(t: Tensor, level: int, rank: int) -> Any:
    """t's value at `level`, batch dimension in front and size-1 dimensions added up to example rank `rank`;
    t itself when it is not batched at `level`."""
    value = front(t, level)
    if value is None:
        return t
    pad = rank - t.dim()
    if pad > 0:
        shape = tuple(value.shape)
        value = value.view(shape[:1] + (1,) * pad + shape[1:])
    return value


def _promotion_casts(tensors: list[Tensor], values: list[Any]) -> list[Any]:
    """values cast to the per-example result type, where batching would promote differently."""
    logical = result_type_of(*tensors)
    if result_type_of(*values) == logical:
        return values
    return [v.to(logical) if (v is not t and t.dim() == 0 and t.dtype != logical) else v
            for t, v in zip(tensors, values)]


def pointwise_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    facts = facts_of(handle)
    if facts.written:
        target = written_argument(handle, args, kwargs)
        found = info(target)
        if found is None or found[2] != level:
            raise inplace_unbatched_error(handle)
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    keys = [k for k, v in kwargs.items() if isinstance(v, Tensor)]
    tensors = [args[i] for i in positions] + [kwargs[k] for k in keys]
    rank = max(t.dim() for t in tensors)
    values = [padded(t, level, rank) for t in tensors]
    if len({t.dtype for t in tensors}) > 1:
        values = _promotion_casts(tensors, values)
    new_args = list(args)
    for i, v in zip(positions, values):
        new_args[i] = v
    new_kwargs = dict(kwargs)
    for k, v in zip(keys, values[len(positions):]):
        new_kwargs[k] = v
    result = handle(*new_args, **new_kwargs)
    if facts.written:
        return written_argument(handle, args, kwargs)
    return wrap_result(result, level)


def _masked_fill_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """masked_fill with a tensor value: batched, each example's 0-dim value is a where's operand."""
    import torch
    self, mask, value = (args + tuple(kwargs.values()))[:3]
    found = info(value)
    if found is None or found[2] != level:
        return pointwise_rule(handle, level, args, kwargs)
    filled = torch.where(mask, value.to(self.dtype), self)
    if facts_of(handle).written:
        return self.copy_(filled)
    return filled


# Tagged pointwise but not elementwise over all their tensors (the boundaries are a whole sorted sequence), and
# composites that read values in Python (a solver's error check): the per-example loop.
_LOOPED = ("bucketize", "searchsorted", "linalg_inv", "linalg_inv_ex", "inverse", "linalg_solve", "linalg_solve_ex",
           "linalg_matrix_power", "quantile", "nanquantile", "xlogy.Scalar_Other", "linalg_cholesky")


def _looped(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from torch._functorch.batched import fallback
    return fallback(handle, args, kwargs)


def register() -> None:
    from aten import dispatcher
    from torch._functorch import _gen_batching
    from torch._functorch.batched import register_rule
    for name in _gen_batching.POINTWISE:
        register_rule(name, pointwise_rule)
    for name in dispatcher.operator_names():
        if name in _LOOPED or name.split(".")[0] in _LOOPED:
            register_rule(name, _looped)
    for name in ("masked_fill.Tensor", "masked_fill_.Tensor"):
        register_rule(name, _masked_fill_rule)
    # not tagged pointwise upstream, but elementwise all the same
    for name in ("copy_", "fill_.Scalar", "zero_", "masked_fill.Scalar", "masked_fill_.Scalar", "where.self", "clamp.Tensor", "clamp_.Tensor",
                 "_to_copy", "clone", "lerp.Tensor", "lerp.Scalar", "threshold_backward", "gelu_backward",
                 "silu_backward", "sigmoid_backward", "tanh_backward", "hardtanh_backward", "leaky_relu_backward",
                 "elu_backward", "softplus_backward", "relu", "relu_", "gelu", "silu", "sigmoid", "tanh"):
        if _has(name) and name not in _gen_batching.POINTWISE:
            register_rule(name, pointwise_rule)


def _has(name: str) -> bool:
    from aten import dispatcher
    return bool(dispatcher.has_operator(name))


__all__ = ["padded", "pointwise_rule", "register"]
