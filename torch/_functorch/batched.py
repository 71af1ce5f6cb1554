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

def make_batched(value: Tensor, bdim: int, level: int) -> Tensor:
    """The batched tensor over value's dimension bdim for vmap `level`."""
    shell = batched_shell(value, bdim)
    shell.__dict__[_INFO] = (value, bdim, level)
    return shell


def info(t: Any) -> tuple[Tensor, int, int] | None:
    """(value, bdim, level) of a batched tensor, None for anything else."""
    if isinstance(t, Tensor) and t._is_batched():
        return t.__dict__[_INFO]
    return None


def level_of(t: Any) -> int:
    found = info(t)
    return found[2] if found is not None else 0


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


def wrap_result(result: Any, level: int) -> Any:
    """An operator's result on values (batch dimension in front) as batched tensors of `level`."""
    if isinstance(result, Tensor):
        return make_batched(result, 0, level)
    if isinstance(result, tuple):
        wrapped = [wrap_result(r, level) for r in result]
        return type(result)(*wrapped) if hasattr(result, "_fields") else tuple(wrapped)
    if isinstance(result, list):
        return [wrap_result(r, level) for r in result]
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
        depth += ch in "[(" and 1 or 0
        depth -= ch in "])" and 1 or 0
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
    if facts.written:
        target = written_argument(handle, args, kwargs)
        if info(target) is None or info(target)[2] != level:  # type: ignore[index]
            raise inplace_unbatched_error(handle)
    results = []
    for b in range(size):
        results.append(handle(*[_example(a, level, b) for a in args],
                              **{k: _example(v, level, b) for k, v in kwargs.items()}))
    if facts.written:
        return written_argument(handle, args, kwargs)
    return _stack(results, level, handle)


def reduce_finished_levels(grad: Tensor) -> Tensor:
    """A gradient batched over vmaps that have returned, summed over their examples (see the module docstring)."""
    found = info(grad)
    while found is not None and not is_active(found[2]):
        value, bdim, _ = found
        grad = value.sum(bdim)
        found = info(grad)
    return grad


def _install() -> None:
    from torch.csrc.autograd import accumulate_grad
    import torch._indexing_dispatched  # noqa: F401  (indexing of batched tensors reaches the rules as operator calls)
    dispatcher.set_batched_fallback(fallback)
    accumulate_grad.install_batched_reducer(reduce_finished_levels)


_install()
