"""Batching rules of the nn operators: losses (per example: computed unreduced, then reduced over each
example), embedding, layer norm and pooling (the vmap's batch joins the batch dims they already have)."""
from __future__ import annotations

from typing import Any

from torch._functorch.batch_rules._call import Call, on_value
from torch._functorch.batched import fallback, front, make_batched, per_example, register_rule

_NONE, _MEAN, _SUM = 0, 1, 2


def _folded(c: Call) -> tuple[Any, Any, int, int]:
    """The call's input (N, C, d...) or (C,) and target with the vmap's batch folded into N, and the batch size
    and N (1 for an example of one sample)."""
    size = c.size()
    value, target = c.expanded("self"), c.expanded("target")
    if c.get("self").dim() == 1:
        return value, target, size, 1
    n = int(value.shape[1])
    return (value.reshape((size * n,) + tuple(value.shape[2:])), target.reshape((size * n,) + tuple(target.shape[2:])),
            size, n)


def _denominator(c: Call, targets: Any, losses: Any) -> Any:
    """Each example's total target weight: the mean's denominator (weights of the targets not ignored; with class
    probabilities as targets, the number of samples)."""
    dtype = losses.dtype
    if targets.is_floating_point():
        return losses.new_full((int(losses.shape[0]),), float(losses.shape[1]))
    weight = c.get("weight")
    valid = targets != c.get("ignore_index", -100)
    if weight is None:
        return valid.sum(1).to(dtype)
    return (weight[targets.clamp(0, int(weight.shape[0]) - 1)] * valid).sum(1)


def _class_losses(c: Call) -> tuple[Any, Any, int, tuple[int, ...]]:
    """Unreduced losses and targets of every example, shaped (batch, samples), the batch size, and the shape of
    an example's unreduced losses."""
    one_sample = c.get("self").dim() == 1
    flat_x, flat_t, size, n = _folded(c)
    c.set("self", flat_x)
    c.set("target", flat_t)
    c.set("reduction", _NONE)
    result = c.run()
    losses = result[0] if isinstance(result, tuple) else result
    per_example = tuple(losses.shape[1:]) if one_sample else (n,) + tuple(losses.shape[1:])
    return losses.reshape(size, -1), flat_t.reshape(size, -1), size, per_example


def _class_loss_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """cross_entropy_loss, nll_loss and nll_loss_forward: input (N, C, d...) or (C,), target (N, d...) or ();
    the batch folded into N, unreduced, then each example reduced as the loss would (a weighted mean divides by
    its targets' weights)."""
    c = Call(handle, level, args, kwargs)
    smoothing = handle.name.startswith("cross_entropy") and c.get("label_smoothing", 0.0)
    if not set(c.tensors_batched()) <= {"self", "target"} or (smoothing and c.get("weight") is not None):
        return fallback(handle, args, kwargs)
    reduction = c.get("reduction", _MEAN)
    losses, targets, size, per_example = _class_losses(c)
    denominator = _denominator(c, targets, losses)
    if reduction == _NONE:
        loss = losses.view((size,) + per_example)
    elif reduction == _SUM:
        loss = losses.sum(1)
    else:
        loss = losses.sum(1) / denominator
    if handle.name.startswith("nll_loss_forward"):
        return make_batched(loss, 0, level), make_batched(denominator, 0, level)
    return make_batched(loss, 0, level)


def _nll_backward_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """nll_loss_backward: each sample's incoming gradient (the example's, over its total weight for a mean),
    then the unreduced backward over the folded batch."""
    import torch
    c = Call(handle, level, args, kwargs)
    if not set(c.tensors_batched()) <= {"grad_output", "self", "target", "total_weight"}:
        return fallback(handle, args, kwargs)
    value_shape = tuple(c.expanded("self").shape)
    flat_x, flat_t, size, n = _folded(c)
    grad = c.expanded("grad_output")
    reduction = c.get("reduction", _MEAN)
    if reduction == _MEAN:
        # an example whose targets are all ignored has total weight 0 and a zero gradient, as the loop's
        total = c.expanded("total_weight")
        grad = (grad / total).where(total != 0, grad.new_zeros(()))
    if reduction != _NONE:
        grad = grad.reshape(size, 1).expand(size, flat_t.numel() // max(size, 1))
    c.set("grad_output", grad.reshape(flat_t.shape))
    c.set("self", flat_x)
    c.set("target", flat_t)
    c.set("reduction", _NONE)
    c.set("total_weight", torch.ones((), dtype=flat_x.dtype, device=flat_x.device))
    return make_batched(c.run().view(value_shape), 0, level)


def _mse_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    c = Call(handle, level, args, kwargs)
    size = c.size()
    rank = max(c.get("self").dim(), c.get("target").dim())
    from torch._functorch.batch_rules.pointwise import padded
    diff = padded(c.get("self"), level, rank) - padded(c.get("target"), level, rank)
    squared = diff * diff
    reduction = c.get("reduction", _MEAN)
    if reduction == _NONE:
        return make_batched(squared, 0, level)
    flat = squared.expand((size,) + tuple(squared.shape[1:])).reshape(size, -1)
    return make_batched(flat.sum(1) if reduction == _SUM else flat.mean(1), 0, level)


def _pool_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Pooling with only the input batched: the batch folded into the leading dims the pooling keeps."""
    c = Call(handle, level, args, kwargs)
    if c.tensors_batched() != ["self"]:
        return fallback(handle, args, kwargs)
    value = front(c.get("self"), level)
    shape = tuple(value.shape)
    c.set("self", value.reshape((shape[0] * shape[1],) + shape[2:]))
    result = c.run()
    parts = result if isinstance(result, tuple) else (result,)
    unfolded = tuple(make_batched(p.view(shape[:2] + tuple(p.shape[1:])), 0, level) for p in parts)
    return unfolded if isinstance(result, tuple) else unfolded[0]


def _check_each_example(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A check of values that returns nothing (embedding_bag's): each example's values checked in turn; there is
    no result to batch, so no per-example fallback (nor its warning naming an operator of Ember's own)."""
    per_example(handle, level, args, kwargs)


def register() -> None:
    from aten import dispatcher
    for name in ("cross_entropy_loss", "nll_loss", "nll_loss_forward"):
        register_rule(name, _class_loss_rule)
    register_rule("nll_loss_backward", _nll_backward_rule)
    register_rule("mse_loss", _mse_rule)
    register_rule("embedding", on_value("indices"))
    register_rule("_ember_embedding_bag_check", _check_each_example)
    register_rule("native_layer_norm", on_value("input"))   # normalises trailing dims: the batch leads
    for name in ("max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "_adaptive_avg_pool2d"):
        if dispatcher.has_operator(name):
            register_rule(name, _pool_rule)
