"""Random operators inside vmap (the FuncTorchVmapMode key, which every call gains inside vmap): the operators
tagged nondeterministic_seeded follow the innermost vmap's `randomness`.

- "error": they raise PyTorch's error.
- "same": one draw shared by every example (an in-place one on a batched tensor draws one example's worth
  and writes it to all).
- "different": a draw per example: a factory draws the batch's worth (its size with the batch in front), an
  operator on batched tensors runs through their batching rules, an in-place one on an unbatched tensor is
  refused as in PyTorch."""
from __future__ import annotations

from typing import Any

from aten import dispatcher
from torch._functorch.batch_rules._call import Call
from torch._functorch.batched import active_levels, current_level, info, make_batched, register_rule
from torch._tensor import Tensor

_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
          "'different' randomness flags on vmap or perform the randomness operation out of vmap")
_DIFFERENT_INPLACE = ("vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear like "
                      "same randomness. If this is necessary for your usage, please file an issue with functorch.")


def _below(handle: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    previous = dispatcher.set_vmap_mode(False)
    try:
        return handle(*args, **kwargs)
    finally:
        dispatcher.set_vmap_mode(previous)


def _batched_here(value: Any, level: int) -> bool:
    found = info(value)
    return found is not None and found[2] == level


def random_rule(handle: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    entry = current_level()
    if entry is None:
        return _below(handle, args, kwargs)
    if any(lv.randomness == "error" for lv in active_levels()):
        raise RuntimeError(_ERROR)
    c = Call(handle, entry.level, args, kwargs)
    batched = c.tensors_batched()
    if c.facts.written:
        target_name = c.facts.written[0]
        target = c.get(target_name)
        if entry.randomness == "different":
            if not _batched_here(target, entry.level):
                raise RuntimeError(_DIFFERENT_INPLACE)
            return _below(handle, args, kwargs)
        if _batched_here(target, entry.level):
            # one example's draw, written to every example
            value, bdim, _ = info(target)  # type: ignore[misc]
            one = value.select(bdim, 0)
            c.set(target_name, one.new_empty(one.shape))
            drawn = _below(handle, tuple(c.args), c.kwargs)
            target.copy_(drawn)
            return target
        return _below(handle, args, kwargs)
    if entry.randomness == "same":
        if batched:
            if handle.name.split(".")[0] in ("rand_like", "randn_like", "randint_like"):
                c.set(c.facts.names[0], _one_example(c.get(c.facts.names[0])))
                return _below(handle, tuple(c.args), c.kwargs)
            raise RuntimeError(f"vmap: randomness='same' is not supported by Ember for {handle.name} with inputs "
                               "batched by this vmap; use randomness='different' or draw outside vmap")
        return _below(handle, args, kwargs)
    # different: a draw per example of every enclosing vmap that asks for different randomness
    if batched:
        return _below(handle, args, kwargs)
    drawing = [lv for lv in active_levels() if lv.randomness == "different"]
    sizes = [lv.size for lv in drawing]
    if "size" in c.facts.names:
        c.set("size", sizes + list(c.get("size")))
    elif isinstance(c.get(c.facts.names[0]), Tensor):
        first = c.get(c.facts.names[0])
        c.set(c.facts.names[0], first.view((1,) * len(sizes) + tuple(first.shape)).expand(sizes + list(first.shape)))
    else:
        raise RuntimeError(f"vmap: randomness='different' is not supported by Ember for {handle.name}")
    drawn = _below(handle, tuple(c.args), c.kwargs)
    for lv in drawing:              # outermost first: each wraps the dims the inner ones have not taken
        drawn = make_batched(drawn, 0, lv.level)
    return drawn


def _dropout_rule(handle: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """dropout and its feature and alpha forms (composites that draw into a tensor of their own): run on the
    value, the vmap's batch joined to the batch of samples (a feature dropout's masks stay per example)."""
    entry = current_level()
    c = Call(handle, entry.level if entry is not None else 0, args, kwargs)
    x = c.get("input")
    if entry is None or not c.get("train") or c.get("p") == 0:
        return _below(handle, args, kwargs)
    if entry.randomness == "error":
        raise RuntimeError(_ERROR)
    here = _batched_here(x, entry.level)
    if entry.randomness == "same":
        if not here:
            return _below(handle, args, kwargs)
        c.set("input", _one_example(x).new_ones(x.shape))
        mask = _below(handle, tuple(c.args), c.kwargs)
        return x * mask
    # an input the same for every example (not batched here) still gets a mask of its own per example
    value = c.expanded("input") if here else x.unsqueeze(0).expand((entry.size,) + tuple(x.shape))
    shape = tuple(value.shape)
    feature = "feature" in handle.name and x.dim() >= 2
    c.set("input", value.reshape((shape[0] * shape[1],) + shape[2:]) if feature else value)
    return make_batched(_below(handle, tuple(c.args), c.kwargs).view(shape), 0, entry.level)


def _one_example(t: Tensor) -> Tensor:
    value, bdim, _ = info(t)  # type: ignore[misc]
    return value.select(bdim, 0)


class _VmapModeKernel:
    __slots__ = ("handle",)

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return random_rule(self.handle, args, kwargs)


class _DropoutKernel(_VmapModeKernel):
    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _dropout_rule(self.handle, args, kwargs)


def register() -> None:
    from c10.dispatch_key import DispatchKey
    from torch._functorch import _gen_batching
    for name in _gen_batching.RANDOM:
        handle = dispatcher.find_operator(name)
        if handle.has_kernel(DispatchKey.FuncTorchVmapMode):
            continue
        if "dropout" in name and name != "native_dropout":
            handle.register(DispatchKey.FuncTorchVmapMode, _DropoutKernel(handle))
        elif not handle.has_kernel(DispatchKey.CompositeImplicitAutograd):
            # (a composite decomposes into random operators that are registered themselves)
            handle.register(DispatchKey.FuncTorchVmapMode, _VmapModeKernel(handle))
    # draws on batched tensors ('different'): on the value, one per element and so per example
    from torch._functorch.batch_rules.pointwise import pointwise_rule
    for name in ("bernoulli", "bernoulli.p", "normal.Tensor_float", "normal.float_Tensor", "normal.Tensor_Tensor",
                 "native_dropout"):
        if dispatcher.has_operator(name):
            register_rule(name, pointwise_rule)
    for name in _gen_batching.RANDOM:
        handle = dispatcher.find_operator(name)
        if "!" in handle.schema.split(") -> ")[0] and not handle.has_kernel(DispatchKey.FuncTorchBatched):
            register_rule(name, _inplace_draw_rule)


def _inplace_draw_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    c = Call(handle, level, args, kwargs)
    written = c.facts.written[0]
    if c.tensors_batched() != [written]:
        from torch._functorch.batched import fallback
        return fallback(handle, args, kwargs)
    c.set(written, c.value(written))
    c.run()
    return c.finish(None)
