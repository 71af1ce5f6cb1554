"""torch.func.vmap: a function of one example run on a batch at once (torch._functorch.batched).

The inputs' batch dimensions (`in_dims`, a prefix of the inputs' pytree) become batched tensors of a new
level; the outputs' batched tensors of that level give their values back with the batch dimension at
`out_dims`. Inputs that require grad enter through an autograd Function, and so do the outputs that
leave, so that differentiating a vmap's results outside it (grad(vmap(f))) works. `chunk_size` runs the
batch in chunks; `randomness` says what random operators do inside (torch._functorch.batch_rules.random)."""
from __future__ import annotations

import functools
from typing import Any, Callable

from aten import dispatcher
from torch._functorch import batch_rules
from torch._functorch.batched import active_levels, enter_level, info, leave_level, new_level
from torch._tensor import Tensor
from torch.utils._pytree import tree_flatten, tree_structure, tree_unflatten

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def _name(func: Any) -> str:
    return func.__name__ if hasattr(func, "__name__") else repr(func)


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable[..., Any]:
    """func vectorised over the dimensions in_dims of its inputs (PyTorch's torch.func.vmap)."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _broadcast_prefix(prefix: Any, tree: Any, count: int) -> list[Any] | None:
    """prefix's leaves, each repeated over the leaves of the subtree of tree it stands for (count: tree's
    leaves); None where prefix is not a prefix of tree's structure."""
    if not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * count
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            return None
        pairs = [(prefix[k], tree[k]) for k in tree]
    else:
        if not isinstance(tree, (tuple, list)) or isinstance(prefix, list) != isinstance(tree, list) \
                or len(prefix) != len(tree):
            return None
        pairs = list(zip(prefix, tree))
    result: list[Any] = []
    for p, t in pairs:
        leaves = _broadcast_prefix(p, t, len(tree_flatten(t)[0]))
        if leaves is None:
            return None
        result += leaves
    return result


def _in_dims(name: str, in_dims: Any, args: tuple[Any, ...], flat: list[Any], spec: Any) -> list[Any]:
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    dims = _broadcast_prefix(in_dims, args, len(flat))
    if dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure "
                         f"of `inputs`. in_dims has structure {tree_structure(in_dims)} but inputs has structure "
                         f"{spec}.")
    for arg, d in zip(flat, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but in_dim "
                             "must be either an integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the input "
                             f"is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as the "
                             "respective in_dim")
        if not -arg.dim() <= d < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but that "
                             f"input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"-{arg.dim()} <= in_dim < {arg.dim()}.")
    return dims


def _batch_size(flat: list[Any], dims: list[Any]) -> int:
    sizes = [int(a.shape[d]) for a, d in zip(flat, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} "
                         "for the mapped dimension")
    return sizes[0]


def _enter(arg: Any, d: Any, level: int) -> Any:
    if d is None:
        return arg
    return enter_level(arg, d % arg.dim(), level)


def _leave(name: str, out: Any, d: Any, level: int, size: int) -> Any:
    if not isinstance(out, Tensor):
        if d is None:
            return out
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(out)}. Did you mean "
                         "to set out_dims= to None for output?")
    found = info(out)
    batched_here = found is not None and found[2] == level
    if d is None:
        if batched_here:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return out
    if not batched_here:
        # the output does not depend on the batch: the same for every example
        shape = list(out.shape)
        expanded = out.unsqueeze(0).expand([size] + shape)
        return expanded.movedim(0, d)
    return leave_level(out, level, d)


def _run(func: Any, name: str, out_dims: Any, randomness: str, args: tuple[Any, ...], kwargs: dict[str, Any],
         flat: list[Any], dims: list[Any], spec: Any, size: int) -> Any:
    entry = new_level(size, randomness)
    levels = active_levels()
    levels.append(entry)
    previous_mode = dispatcher.set_vmap_mode(True)
    try:
        batched = tree_unflatten([_enter(a, d, entry.level) for a, d in zip(flat, dims)], spec)
        out = func(*batched, **kwargs)
    finally:
        dispatcher.set_vmap_mode(previous_mode)
        levels.pop()
    flat_out, out_spec = tree_flatten(out)
    out_dims_flat = _broadcast_prefix(out_dims, out, len(flat_out))
    if out_dims_flat is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_structure(out_dims)} but outputs has "
                         f"structure {out_spec}.")
    return tree_unflatten([_leave(name, o, d, entry.level, size) for o, d in zip(flat_out, out_dims_flat)], out_spec)


def _call(func: Any, in_dims: Any, out_dims: Any, randomness: str, chunk_size: int | None, args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> Any:
    batch_rules.register_all()
    name = _name(func)
    flat, spec = tree_flatten(args)
    dims = _in_dims(name, in_dims, args, flat, spec)
    size = _batch_size(flat, dims)
    if chunk_size is None or chunk_size >= size:
        return _run(func, name, out_dims, randomness, args, kwargs, flat, dims, spec, size)
    return _chunked(func, name, out_dims, randomness, chunk_size, args, kwargs, flat, dims, spec, size)


def _chunked(func: Any, name: str, out_dims: Any, randomness: str, chunk_size: int, args: tuple[Any, ...],
             kwargs: dict[str, Any], flat: list[Any], dims: list[Any], spec: Any, size: int) -> Any:
    """The batch in chunks of chunk_size, the outputs concatenated (randomness="same": every chunk draws the
    same numbers, from the generator state the first one started with)."""
    import torch
    state = torch.get_rng_state() if randomness == "same" else None
    results = []
    for start in range(0, size, chunk_size):
        if state is not None:
            torch.set_rng_state(state)
        length = min(chunk_size, size - start)
        chunk = [a.narrow(d, start, length) if d is not None else a for a, d in zip(flat, dims)]
        results.append(_run(func, name, out_dims, randomness, args, kwargs, chunk, dims, spec, length))
    flat_results = [tree_flatten(r)[0] for r in results]
    out_spec = tree_structure(results[0])
    out_dims_flat = _broadcast_prefix(out_dims, results[0], len(flat_results[0]))
    assert out_dims_flat is not None
    joined = [torch.cat([r[i] for r in flat_results], d) if d is not None else flat_results[0][i]
              for i, d in enumerate(out_dims_flat)]
    return tree_unflatten(joined, out_spec)

