"""Batching rules of reductions, scans and softmax: the dimension arguments moved past the batch dimension
(every example dimension where the call reduces over all), whole-tensor reductions over the flattened
example."""
from __future__ import annotations

from typing import Any

from c10.dispatch_key import DispatchKey
from torch._functorch.batch_rules._call import Call
from torch._functorch.batch_rules.shape import dims_rule
from torch._functorch.batched import fallback, front, make_batched, register_rule

# operator -> its dimension arguments; reductions whose absent dimension means "all of them"
_OVER_DIMS = {
    "sum.dim_IntList": ("dim",), "mean.dim": ("dim",), "amax": ("dim",), "amin": ("dim",), "nansum": ("dim",),
    "std.correction": ("dim",), "var.correction": ("dim",), "std_mean.correction": ("dim",),
    "var_mean.correction": ("dim",), "logsumexp": ("dim",), "linalg_vector_norm": ("dim",),
    "count_nonzero.dim_IntList": ("dim",), "all.dims": ("dim",), "any.dims": ("dim",),
}
_ALONG_DIM = {
    "max.dim": ("dim",), "min.dim": ("dim",), "prod.dim_int": ("dim",), "all.dim": ("dim",), "any.dim": ("dim",),
    "cumsum": ("dim",), "cumprod": ("dim",), "cummax": ("dim",), "cummin": ("dim",), "logcumsumexp": ("dim",),
    "_softmax": ("dim",), "_log_softmax": ("dim",), "sort": ("dim",), "sort.stable": ("dim",),
    "argsort": ("dim",), "argsort.stable": ("dim",), "topk": ("dim",), "kthvalue": ("dim",), "median.dim": ("dim",),
    "nanmedian.dim": ("dim",), "softmax.int": ("dim",), "log_softmax.int": ("dim",),
}
_SOFTMAX_BACKWARD = ("_softmax_backward_data", "_log_softmax_backward_data")


def _optional_dim_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """argmax/argmin: a dimension, or none (over the flattened example)."""
    c = Call(handle, level, args, kwargs)
    if c.tensors_batched() != ["self"]:
        return fallback(handle, args, kwargs)
    self = c.get("self")
    if c.get("dim") is None:
        value = front(self, level)
        c.set("self", value.reshape(int(value.shape[0]), -1))
        c.set("dim", 1)
        result = c.run()
        if c.get("keepdim", False):
            result = result.view((int(value.shape[0]),) + (1,) * self.dim())
        return make_batched(result, 0, level)
    return dims_rule(("dim",))(handle, level, args, kwargs)


def _whole_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """sum, mean, prod, max, min, all, any, std, var over the whole example: the dim form over the flattened one."""
    import torch
    c = Call(handle, level, args, kwargs)
    if c.tensors_batched() != ["self"]:
        return fallback(handle, args, kwargs)
    self = c.get("self")
    value = front(self, level)
    base = handle.name.split(".")[0]
    dims = list(range(1, self.dim() + 1))
    if dims and base in ("sum", "mean", "max", "min"):     # over the example's dims, as PyTorch's rules record
        dtype = c.get("dtype") if "dtype" in c.facts.names else None
        if base in ("max", "min"):
            result = (value.amax if base == "max" else value.amin)(dims)
        else:
            result = getattr(torch, base)(value, dims, dtype=dtype)
        return make_batched(result, 0, level)
    flat = value.reshape(int(value.shape[0]), -1)
    extra = {k: v for k, v in c.kwargs.items() if k != "self"}
    extra.update({name: c.args[i] for i, name in enumerate(c.facts.names) if 0 < i < len(c.args)})
    if base in ("max", "min"):
        result = (flat.amax if base == "max" else flat.amin)(1)
    elif base in ("std", "var"):
        extra.pop("dim", None)
        correction = extra.pop("correction", None)
        unbiased = extra.pop("unbiased", True)
        if correction is None:
            correction = 1 if unbiased else 0
        result = getattr(torch, base)(flat, 1, correction=correction)
    else:
        result = getattr(torch, base)(flat, 1, **extra)
    return make_batched(result, 0, level)


def register() -> None:
    from aten import dispatcher
    for name, dims in _OVER_DIMS.items():
        if dispatcher.has_operator(name):
            register_rule(name, dims_rule(dims, none_is_all=True))
    for name, dims in _ALONG_DIM.items():
        if dispatcher.has_operator(name):
            register_rule(name, dims_rule(dims))
    for name in _SOFTMAX_BACKWARD:
        if dispatcher.has_operator(name):
            register_rule(name, dims_rule(("dim",), batch_others=("output",)))
    for name in ("argmax", "argmin"):
        register_rule(name, _optional_dim_rule)
    for name in ("sum", "mean", "prod", "max", "min", "all", "any", "std", "var"):
        if dispatcher.has_operator(name) and not dispatcher.find_operator(name).has_kernel(
                DispatchKey.CompositeImplicitAutograd):
            register_rule(name, _whole_rule)
