"""vmap's batched tensors and the FuncTorchBatched key's kernels (PyTorch's BatchedTensorImpl, its batching
rules and the per-example fallback, in Ember's dispatcher).

A batched tensor is what a vmapped function sees of one input: one example's geometry
(c10.tensor_impl.batched_shell) carrying the FuncTorchBatched key, and the whole batch in `value` (a tensor,
itself batched when vmaps nest) at dimension `bdim`, for the vmap of number `level`. Every operator call
with one reaches the key's kernel: a batching rule, which runs the operator once on the values with their
batch dimensions in front, or, for operators without a rule, the loop over examples with PyTorch's
performance warning.

The key sits below autograd: autograd records the per-example program on batched tensors and its backward
formulas run through the same rules, which is how grad composes with vmap in either order. A gradient that
is still batched over a vmap that has returned, when it reaches a tensor outside it (a leaf, or an input of
autograd.grad), is the sum over that vmap's examples (reduce_finished_levels)."""
from __future__ import annotations

import functools
import itertools
import re
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Callable

from aten import dispatcher
from c10.dispatch_key import DispatchKey
from c10.tensor_impl import batched_shell
from torch._tensor import Tensor
from torch.autograd.function import Function
from torch.autograd.grad_mode import is_grad_enabled
from torch.csrc.autograd import forward_grad, forward_kernels

_INFO = "_vmap_batched"     # a batched tensor's (value, bdim, level), in its __dict__


@dataclass
class VmapLevel:
    """One running vmap: its level number, batch size and randomness setting."""
    level: int
    size: int
    randomness: str


class _Active(threading.local):
    def __init__(self) -> None:
        self.levels: list[VmapLevel] = []


_active = _Active()
_numbers = itertools.count(1)


def new_level(size: int, randomness: str) -> VmapLevel:
    return VmapLevel(next(_numbers), size, randomness)


def active_levels() -> list[VmapLevel]:
    """This thread's running vmaps, outermost first."""
    return _active.levels


def current_level() -> VmapLevel | None:
    return _active.levels[-1] if _active.levels else None


def is_active(level: int) -> bool:
    return any(entry.level == level for entry in _active.levels)


# -- batched tensors ------------------------------------------------------------------------------------

def make_batched(value: Tensor, bdim: int, level: int, base: Tensor | None = None) -> Tensor:
    """The batched tensor over value's dimension bdim for vmap `level`. Levels nest inner over outer (the
    outermost wrapper has the highest level): a value batched at a higher level keeps that wrapper outside, the
    new batch dimension going into its value (a gradient of an inner vmap entering an outer one's program).
    base: the batched tensor this one is a view of (a view operator's input)."""
    found = info(value)
    if found is not None and found[2] > level:
        inner_value, inner_bdim, inner_level = found
        position = bdim if bdim < inner_bdim else bdim + 1       # bdim among inner_value's dims
        inner = make_batched(inner_value, position, level)
        return make_batched(inner, inner_bdim if inner_bdim < position else inner_bdim - 1, inner_level, base)
    shell = batched_shell(value, bdim, base)
    shell.__dict__[_INFO] = (value, bdim, level)
    # A dual value's tangents are the batched tensor's, batched alike: a forward-AD kernel then works on batched
    # tensors (its formula through the batching rules), never on the values underneath.
    for fw_level, tangent in forward_grad.tangents(value).items():
        if level_of_any(tangent, level):
            # the tangent is batched at this vmap already (a rule that expanded its input over the batch, then
            # drew per example, dropout's): example i's tangent is the tangent's example i, at row i of bdim
            per_example = take_out(tangent, level, 0)
            tangent = per_example.diagonal(0, 0, bdim + 1).movedim(-1, bdim)
        forward_grad.set_tangent(shell, make_batched(tangent, bdim, level), fw_level)
    return shell


def take_out(t: Tensor, level: int, out_dim: int) -> Tensor:
    """t without vmap `level`'s batching, that batch dimension placed at out_dim among t's dims (wherever the
    level sits among t's wrappers)."""
    found = info(t)
    if found is None or found[2] < level:
        raise RuntimeError(f"vmap: the tensor is not batched at level {level}")
    value, bdim, own_level = found
    tangents = forward_grad.tangents(t)
    if own_level == level:
        out = value if bdim == out_dim % value.dim() else value.movedim(bdim, out_dim)
    else:
        position = out_dim if out_dim <= bdim else out_dim + 1      # out_dim among value's dims
        out = make_batched(take_out(value, level, position), bdim if position > bdim else bdim + 1, own_level)
    for fw_level, tangent in tangents.items():      # the batched tensor's tangents leave the level with it
        forward_grad.set_tangent(out, take_tangent_out(tangent, level, out_dim, out), fw_level)
    return out


def take_tangent_out(tangent: Tensor, level: int, out_dim: int, like: Tensor) -> Tensor:
    """take_out of a tangent, which may not be batched at level (a zero tangent): then the same for every example."""
    if level_of_any(tangent, level):
        return take_out(tangent, level, out_dim)
    return tangent.unsqueeze(out_dim % like.dim()).expand(tuple(like.shape))


def info(t: Any) -> tuple[Tensor, int, int] | None:
    """(value, bdim, level) of a batched tensor, None for anything else."""
    if isinstance(t, Tensor) and t._is_batched():
        return t.__dict__[_INFO]
    return None


def front(t: Any, level: int) -> Any:
    """t's value with the batch dimension of `level` moved to the front, or None when t is not batched at it."""
    found = info(t)
    if found is None or found[2] != level:
        return None
    value, bdim, _ = found
    return value if bdim == 0 else value.movedim(bdim, 0)


def call_level(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """The level a call's batching rule works at: the innermost among its batched tensors (lists included)."""
    level = 0
    for a in itertools.chain(args, kwargs.values()):
        if isinstance(a, Tensor):
            if a._is_batched():
                level = max(level, a.__dict__[_INFO][2])
        elif isinstance(a, (list, tuple)):
            for e in a:
                if isinstance(e, Tensor) and e._is_batched():
                    level = max(level, e.__dict__[_INFO][2])
    return level


def batch_size_at(args: tuple[Any, ...], kwargs: dict[str, Any], level: int) -> int:
    for a in itertools.chain(args, kwargs.values()):
        for e in (a if isinstance(a, (list, tuple)) else (a,)):
            found = info(e)
            if found is not None and found[2] == level:
                return int(found[0].shape[found[1]])
    raise RuntimeError("vmap: no tensor of the call is batched at its level")


def wrap_result(result: Any, level: int, base: Tensor | None = None) -> Any:
    """An operator's result on values (batch dimension in front) as batched tensors of `level` (views of base, a
    view operator's batched input, when given)."""
    if isinstance(result, Tensor):
        return make_batched(result, 0, level, base)
    if isinstance(result, tuple):
        wrapped = [wrap_result(r, level, base) for r in result]
        return type(result)(*wrapped) if hasattr(result, "_fields") else tuple(wrapped)
    if isinstance(result, list):
        return [wrap_result(r, level, base) for r in result]
    return result


# -- operator schemas, as the rules read them -----------------------------------------------------------

@dataclass(frozen=True)
class SchemaFacts:
    """What a rule needs from an operator's schema: its argument names in order, the ones it writes, and
    whether its result aliases an input (a view)."""
    names: tuple[str, ...]
    written: tuple[str, ...]
    view: bool
    out: bool
    defaults: dict[str, Any]


@functools.lru_cache(maxsize=None)
def schema_facts(schema: str) -> SchemaFacts:
    params_text = schema[schema.index("(") + 1:schema.rindex(") -> ")]
    returns = schema[schema.rindex(") -> ") + 5:]
    names: list[str] = []
    written: list[str] = []
    defaults: dict[str, Any] = {}
    depth, part, parts = 0, "", []
    for ch in params_text:          # split on commas outside brackets (int[2] stride=[1, 1])
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += ch
    parts.append(part)
    for p in (p.strip() for p in parts):
        if not p or p == "*":
            continue
        type_text, name = p.split("=", 1)[0].rsplit(" ", 1)
        names.append(name)
        if "=" in p:
            defaults[name] = _default_value(p.split("=", 1)[1].strip())
        if "!" in type_text:
            written.append(name)
    view = re.search(r"Tensor\(\w\)", returns) is not None and "!" not in returns
    return SchemaFacts(tuple(names), tuple(written), view, "out" in written, defaults)


def _default_value(text: str) -> Any:
    """A schema default as the rules read it: ints, floats, bools, None and int lists; other text as is."""
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    if text.startswith("["):
        return [int(x) for x in text.strip("[]").split(",") if x.strip()]
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def facts_of(handle: Any) -> SchemaFacts:
    return schema_facts(handle.schema)


def qualified(handle: Any) -> str:
    return handle.name if "::" in handle.name else "aten::" + handle.name


def written_argument(handle: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The argument an in-place or out= call writes and returns (the first written one)."""
    facts = facts_of(handle)
    name = facts.written[0]
    position = facts.names.index(name)
    return args[position] if position < len(args) else kwargs[name]


# -- the key's kernels -----------------------------------------------------------------------------------

class BatchRule:
    """A FuncTorchBatched kernel: rule(handle, level, args, kwargs) at the call's innermost level."""
    __slots__ = ("handle", "rule")

    def __init__(self, handle: Any, rule: Callable[..., Any]) -> None:
        self.handle = handle
        self.rule = rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.rule(self.handle, call_level(args, kwargs), args, kwargs)

    def __repr__(self) -> str:
        return f"<batching rule {getattr(self.rule, '__name__', self.rule)} of {qualified(self.handle)}>"


def register_rule(name: str, rule: Callable[..., Any]) -> None:
    """rule as operator `name`'s batching rule (replacing any earlier one: the rule modules own the key)."""
    handle = dispatcher.find_operator(name)
    handle.register(DispatchKey.FuncTorchBatched, BatchRule(handle, rule), override=True)


def dynamic_shape_error(handle: Any) -> RuntimeError:
    return RuntimeError("vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap "
                        f"over {qualified(handle)}. Please file an issue at https://github.com/pytorch/pytorch/issues "
                        "if you need this feature.")


def inplace_unbatched_error(handle: Any) -> RuntimeError:
    name = qualified(handle)
    return RuntimeError(f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `other` in "
                        "extra_args that has more elements than `self`. This happened due to `other` being vmapped over "
                        f"but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead "
                        f"of {name}. If said operator is being called inside the PyTorch framework, please file a bug "
                        "report instead.")


def _example(value: Any, level: int, b: int) -> Any:
    found = info(value)
    if found is not None and found[2] == level:
        return found[0].select(found[1], b)
    if isinstance(value, (list, tuple)) and any(info(e) is not None for e in value):
        return type(value)(_example(e, level, b) for e in value)
    return value


def _stack(results: list[Any], level: int, handle: Any) -> Any:
    import torch
    first = results[0]
    if isinstance(first, Tensor):
        return make_batched(torch.stack(results), 0, level)
    if isinstance(first, (tuple, list)):
        columns = [_stack([r[i] for r in results], level, handle) for i in range(len(first))]
        return type(first)(*columns) if hasattr(first, "_fields") else type(first)(columns)
    if first is None or all(r == first for r in results):
        return first
    raise RuntimeError(f"vmap: {qualified(handle)} returned a different {type(first).__name__} for each example, "
                       "which vmap cannot batch")


def per_example(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The operator's result for each example of level's batch, called on that example's slices."""
    return [handle(*[_example(a, level, b) for a in args], **{k: _example(v, level, b) for k, v in kwargs.items()})
            for b in range(batch_size_at(args, kwargs, level))]


def fallback(handle: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The per-example loop for an operator without a batching rule, as PyTorch's batchedTensorForLoopFallback:
    the operator once per example on that example's slices, the results stacked (in-place ones write the
    slices of the written tensor's value)."""
    from torch._functorch import _gen_batching
    facts = facts_of(handle)
    if handle.name in _gen_batching.DYNAMIC_SHAPE:
        raise dynamic_shape_error(handle)
    if facts.view or facts.out:
        raise RuntimeError(f"Batching rule not implemented for {qualified(handle)}; the fallback path doesn't work on "
                           "out= or view ops.")
    warnings.warn(f"There is a performance drop because we have not yet implemented the batching rule for "
                  f"{qualified(handle)}. Please file us an issue on GitHub so that we can prioritize its "
                  "implementation.", UserWarning, stacklevel=2)
    level = call_level(args, kwargs)
    size = batch_size_at(args, kwargs, level)
    if size == 0:
        raise RuntimeError(f"vmap: Ember cannot run {qualified(handle)} over an empty batch (it has no batching rule, "
                           "and its per-example loop would have no example to take the result's shape from)")
    if facts.written:
        found = info(written_argument(handle, args, kwargs))
        if found is None or found[2] != level:
            raise inplace_unbatched_error(handle)
    results = per_example(handle, level, args, kwargs)
    if facts.written:
        return written_argument(handle, args, kwargs)
    return _stack(results, level, handle)


# -- crossing a level, differentiably ---------------------------------------------------------------------
# A batched tensor's autograd history is its own, not its value's: moving between a value and its batched
# tensor is an autograd Function each way (each the other's backward), so gradients and their own gradients
# (create_graph: hessian = jacfwd(jacrev(f))) flow through vmap's borders.

class _EnterLevel(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor, bdim: int, level: int) -> Tensor:
        ctx.bdim, ctx.level, ctx.shape = bdim, level, tuple(x.shape)
        return make_batched(x, bdim, level)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        if level_of_any(grad, ctx.level):
            return leave_level(grad, ctx.level, ctx.bdim), None, None
        return grad.unsqueeze(ctx.bdim).expand(ctx.shape), None, None

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor, bdim: Any, level: Any) -> Tensor:
        return make_batched(tangent, ctx.bdim, ctx.level)


class _LeaveLevel(Function):
    @staticmethod
    def forward(ctx: Any, y: Tensor, level: int, out_dim: int) -> Tensor:
        ctx.level, ctx.out_dim = level, out_dim
        return take_out(y, level, out_dim)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        return enter_level(grad, ctx.out_dim % grad.dim(), ctx.level), None, None

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor, level: Any, out_dim: Any) -> Tensor:
        return take_out(tangent, ctx.level, ctx.out_dim)


class _SumOverLevel(Function):
    @staticmethod
    def forward(ctx: Any, g: Tensor, level: int) -> Tensor:
        taken = take_out(g, level, 0)
        ctx.level, ctx.size = level, int(taken.shape[0])
        return taken.sum(0)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        spread = grad.unsqueeze(0).expand((ctx.size,) + tuple(grad.shape))
        return enter_level(spread, 0, ctx.level), None

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor, level: Any) -> Tensor:
        return take_out(tangent, ctx.level, 0).sum(0)


def _differentiable(t: Tensor) -> bool:
    return bool(t.requires_grad) and is_grad_enabled()


def enter_level(x: Tensor, bdim: int, level: int) -> Tensor:
    """x's batched tensor at level over its dim bdim, differentiable."""
    return _EnterLevel.apply(x, bdim, level) if _differentiable(x) else make_batched(x, bdim, level)


def leave_level(y: Tensor, level: int, out_dim: int) -> Tensor:
    """y without level's batching, the batch at out_dim, differentiable."""
    return _LeaveLevel.apply(y, level, out_dim) if _differentiable(y) else take_out(y, level, out_dim)


def level_of_any(t: Any, level: int) -> bool:
    """Whether t is batched at level, among any of its wrappers."""
    return level in _levels_of(t)


def reduce_finished_levels(grad: Tensor) -> Tensor:
    """A gradient batched over vmaps that have returned, summed over their examples (see the module docstring)."""
    for level in [lv for lv in _levels_of(grad) if not is_active(lv)]:
        grad = _sum_over(grad, level)
    return grad


def merge(a: Tensor, b: Tensor) -> Tensor:
    """a + b for two gradients of one tensor, one batched over a finished vmap the other is not batched over (a
    path through that vmap and one around it): the per-example ones are summed first, as the tensor is not batched
    by that vmap. (Two gradients batched alike are added as they are: the tensor is batched alike.)"""
    levels_a, levels_b = _levels_of(a), _levels_of(b)
    if levels_a != levels_b:
        for level in [lv for lv in levels_a if lv not in levels_b and not is_active(lv)]:
            a = _sum_over(a, level)
        for level in [lv for lv in levels_b if lv not in levels_a and not is_active(lv)]:
            b = _sum_over(b, level)
    return a + b


def _sum_over(grad: Tensor, level: int) -> Tensor:
    return _SumOverLevel.apply(grad, level) if _differentiable(grad) else take_out(grad, level, 0).sum(0)


def _levels_of(t: Any) -> list[int]:
    """The levels t is batched at, outermost wrapper first."""
    levels = []
    found = info(t)
    while found is not None:
        levels.append(found[2])
        found = info(found[0])
    return levels


forward_kernels.install_batched_levels(lambda t: set(_levels_of(t)))


def batched_repr(t: Tensor) -> str:
    """A batched tensor as PyTorch prints it: its level (the vmap's depth while it runs), batch dim and value."""
    from torch._tensor_str import tensor_repr
    value, bdim, level = t.__dict__[_INFO]
    depths = [entry.level for entry in active_levels()]
    shown = depths.index(level) + 1 if level in depths else level
    inner = tensor_repr(value).replace("\n", "\n    ")
    return f"BatchedTensor(lvl={shown}, bdim={bdim}, value=\n    {inner}\n)"


def _install() -> None:
    from torch.csrc.autograd import accumulate_grad
    import torch._indexing_dispatched  # noqa: F401  (indexing of batched tensors reaches the rules as operator calls)
    dispatcher.set_batched_fallback(fallback)
    accumulate_grad.install_batched_reducer(reduce_finished_levels, merge)
    from torch import _tensor_str
    _tensor_str.set_batched_repr(batched_repr)


_install()
