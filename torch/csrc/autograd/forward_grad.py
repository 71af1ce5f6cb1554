"""Forward-mode AD's state (PyTorch's ForwardGrad and ForwardADLevel): levels and the tangents tensors carry.

A tangent lives on its tensor, per level: `tensor.__dict__["_fw_grads"]` maps a level to the tangent, and the
tensor's ForwardAD dispatch key is set while that map is not empty, so only such tensors' calls reach the kernels
of torch/csrc/autograd/forward_kernels.py. A tangent is laid out as its tensor (strides), as PyTorch's: views of
the tensor and of its tangent then match element for element. Levels nest (torch.func.jvp of jvp), innermost
last; leaving a level removes its tangents from every tensor that got one (each level keeps weak references to
them, dropped as the tensors die)."""
from __future__ import annotations

import weakref
from typing import Any, Callable, Iterator

from aten.dispatcher import find_operator, without_forward_ad
from c10.tensor_impl import TensorImpl, set_view_recorder

__all__ = ["current_level", "enter_level", "exit_level", "exit_levels_above", "copy_tangents", "drop_tangents",
           "grads", "has_tangent", "innermost_level", "install_before_first_level", "make_dual", "primal_of",
           "set_tangent", "tangent", "tangents", "tensors_in", "levels_in", "check_level", "views_of"]

_GRADS = "_fw_grads"
# One dict per live level, innermost last: weak references to the tensors that hold a tangent at it, by id (a
# reference removes itself when its tensor dies, so a long level does not accumulate them).
_levels: list[dict[int, weakref.ref[Any]]] = []
_alias = find_operator("alias")
_empty_strided = find_operator("empty_strided")
_copy_ = find_operator("copy_")


def current_level() -> int:
    """The innermost live level, -1 when none."""
    return len(_levels) - 1


# Called before a level is first entered (torch/__init__.py installs it: indexing a dual tensor must go through
# the dispatcher, torch._indexing_dispatched, which sits above this module).
_before_first_level: Callable[[], None] | None = None


def install_before_first_level(hook: Callable[[], None]) -> None:
    global _before_first_level
    _before_first_level = hook


def enter_level() -> int:
    global _before_first_level
    if _before_first_level is not None:
        hook, _before_first_level = _before_first_level, None
        hook()
    if not _levels:
        set_view_recorder(_record_view)
    _levels.append({})
    return len(_levels) - 1


_VIEWS = "_fw_views"


def _record_view(base: Any, view: Any) -> None:
    """A view of base made while a level is live (c10's make_view calls this)."""
    state = getattr(base, "__dict__", None)
    if state is not None:
        views = state.get(_VIEWS)
        if views is None:
            views = state[_VIEWS] = weakref.WeakSet()
        views.add(view)


def views_of(base: Any) -> list[Any]:
    """The live views of base made while a level was live."""
    state = getattr(base, "__dict__", None)
    return list(state.get(_VIEWS, ())) if state is not None else []


def exit_level(level: int) -> None:
    """Leave the innermost level: its tangents are dropped from every tensor that holds one."""
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != len(_levels) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is not "
                           "supported.")
    for ref in list(_levels.pop().values()):
        t = ref()
        if t is not None:
            _drop(t, level)
    if not _levels:
        set_view_recorder(None)


def exit_levels_above(level: int) -> None:
    """Leave every level inside `level` (what an exception left entered), innermost first."""
    while len(_levels) - 1 > level:
        exit_level(len(_levels) - 1)


def check_level(level: int, api: str) -> None:
    if not 0 <= level < len(_levels):
        raise RuntimeError(f"Invalid level given to {api}")


def _drop(t: Any, level: int) -> None:
    grads = t.__dict__.get(_GRADS)
    if grads is None:
        return
    grads.pop(level, None)
    if not grads:
        del t.__dict__[_GRADS]
        t._set_forward_ad_key(False)


def grads(t: Any) -> dict[int, Any] | None:
    """t's tangents by level (its own map: do not change it), or None."""
    if isinstance(t, TensorImpl) and t._has_forward_ad_key():
        return t.__dict__.get(_GRADS)
    return None


def tangent(t: Any, level: int) -> Any:
    """t's tangent at level, or None."""
    found = grads(t)
    return found.get(level) if found else None


def tangents(t: Any) -> dict[int, Any]:
    """t's tangents by level (a copy; empty for a tensor without any)."""
    found = grads(t)
    return dict(found) if found else {}


def has_tangent(t: Any) -> bool:
    return bool(grads(t))


def set_tangent(t: Any, value: Any, level: int) -> None:
    """Make value t's tangent at level: as is when laid out as t (views of it stay views of it), else a copy laid
    out as t (PyTorch's has_same_meta rule)."""
    if tuple(value.shape) != tuple(t.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(t.shape)} while the given forward "
                           f"gradient is of size {list(value.shape)}.")
    if not _same_layout(value, t) and not value._is_batched() and not t._is_batched():
        laid_out = without_forward_ad(_empty_strided, tuple(t.shape), t.stride(), dtype=value.dtype,
                                      device=value.device)
        value = _copy_(laid_out, value)
    found = t.__dict__.get(_GRADS)
    if found is None:
        found = t.__dict__[_GRADS] = {}
    if level not in found:
        _levels[level][id(t)] = weakref.ref(t, _forget(_levels[level], id(t)))
    found[level] = value
    t._set_forward_ad_key(True)


def _forget(registry: dict[int, weakref.ref[Any]], key: int) -> Callable[[weakref.ref[Any]], None]:
    """The callback of a level's reference to a tensor: the entry goes when the tensor dies."""
    def forget(_: weakref.ref[Any]) -> None:
        registry.pop(key, None)
    return forget


def _same_layout(a: Any, b: Any) -> bool:
    """Whether a's elements sit as b's do (strides along the dimensions longer than 1)."""
    return all(n <= 1 or sa == sb for n, sa, sb in zip(a.shape, a.stride(), b.stride()))


def drop_tangents(t: Any) -> None:
    """t forgets its tangents at every level (detach_)."""
    for level in list(tangents(t)):
        _drop(t, level)
        _levels[level].pop(id(t), None)


def copy_tangents(source: Any, target: Any, clone: bool = False) -> None:
    """target gets source's tangents at every level (a transform's detached copy of a dual tensor), or copies of
    them (a saved copy of a tensor about to be written in place, whose tangent is then written too)."""
    for level, value in tangents(source).items():
        set_tangent(target, without_forward_ad(value.clone) if clone else value, level)


def primal_of(t: Any, level: int) -> Any:
    """An alias of t (a differentiable view, for reverse mode) without its tangent at level, keeping the others'."""
    out = _alias.call_below_forward_ad(t)
    for other, value in tangents(t).items():
        if other != level:
            set_tangent(out, value, other)
    return out


def make_dual(primal: Any, value: Any, level: int) -> Any:
    if tangent(primal, level) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    dual = primal_of(primal, level)
    set_tangent(dual, value, level)
    return dual


def tensors_in(value: Any) -> Iterator[Any]:
    """The tensors of an argument: itself, or those of a list or tuple."""
    if isinstance(value, TensorImpl):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, TensorImpl):
                yield v


def levels_in(values: list[Any], positions: tuple[int, ...]) -> tuple[int, bool]:
    """The innermost level the tensor arguments (or their tangents) carry, -1 for none, and whether any other
    level is carried too (the nested case)."""
    levels: set[int] = set()
    for i in positions:
        for t in tensors_in(values[i]):
            found = grads(t)
            if found:
                levels.update(found)
                for value in found.values():
                    inner = grads(value)
                    if inner:
                        levels.update(inner)
    if not levels:
        return -1, False
    return max(levels), len(levels) > 1


def innermost_level(values: Any) -> int:
    """The innermost level the tensors among values (and in lists there) carry a tangent at, -1 for none."""
    values = list(values)
    return levels_in(values, tuple(range(len(values))))[0]
