"""Forward-mode AD's runtime (PyTorch's ForwardGrad and ForwardADLevel, and the forward half of its autograd
kernels).

A tangent lives on its tensor, per level: `tensor.__dict__["_fw_grads"]` maps a level to the tangent, and the
tensor's ForwardAD dispatch key is set while that map is not empty. Each differentiable op has a ForwardKernel at
that key (torchgen writes them from derivatives.yaml's `result:` formulas): it runs the op for its value below the
key, evaluates the formula of the innermost level its inputs carry, and attaches the tangent to the output.

Levels nest (torch.func.jvp of jvp): when the inputs, or their tangents, carry other levels too, the inputs are
stripped of the innermost level only (aliases keeping the others) and the op and the formula run through the
dispatcher again, so the value gets the outer levels' tangents and the formula's ops their second-order terms.
Otherwise the formula runs with the key switched off (its ops compute values only). Leaving a level removes its
tangents from every tensor that got one: each level keeps weak references to them."""
from __future__ import annotations

import weakref
from typing import Any, Callable, Iterator

from aten.dispatcher import find_operator, without_forward_ad
from c10.tensor_impl import TensorImpl

__all__ = ["ForwardKernel", "NoForwardFormula", "OutForwardKernel", "current_level", "enter_level", "exit_level",
           "copy_tangents", "has_tangent", "innermost_level", "install_batched_levels", "install_before_first_level",
           "make_dual", "primal_of", "set_tangent", "tangent", "tangents", "NOT_IMPLEMENTED"]

_GRADS = "_fw_grads"
# One list per live level, innermost last: weak references to the tensors that hold a tangent at it.
_levels: list[list[weakref.ref[Any]]] = []
_alias = find_operator("alias")
_zeros_like = find_operator("zeros_like")
_zeros = find_operator("zeros")
_clone = find_operator("clone")
_copy_ = find_operator("copy_")
_as_strided = find_operator("as_strided")

NOT_IMPLEMENTED = ("Trying to use forward AD with {} that does not support it because it has not been implemented "
                   "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template="
                   "feature-request.yml so that we can prioritize its implementation or submit a PR adding the "
                   "implementation to derivatives.yaml")


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
    _levels.append([])
    return len(_levels) - 1


def exit_level(level: int) -> None:
    """Leave the innermost level: its tangents are dropped from every tensor that holds one."""
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != len(_levels) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is not "
                           "supported.")
    for ref in _levels.pop():
        t = ref()
        if t is not None:
            _drop(t, level)


def _drop(t: Any, level: int) -> None:
    grads = t.__dict__.get(_GRADS)
    if grads is None:
        return
    grads.pop(level, None)
    if not grads:
        del t.__dict__[_GRADS]
        t._set_forward_ad_key(False)


def _grads(t: Any) -> dict[int, Any] | None:
    if isinstance(t, TensorImpl) and t._has_forward_ad_key():
        return t.__dict__.get(_GRADS)
    return None


def tangent(t: Any, level: int) -> Any:
    """t's tangent at level, or None."""
    grads = _grads(t)
    return grads.get(level) if grads else None


def tangents(t: Any) -> dict[int, Any]:
    """t's tangents by level (a copy; empty for a tensor without any)."""
    grads = _grads(t)
    return dict(grads) if grads else {}


def has_tangent(t: Any) -> bool:
    return bool(_grads(t))


def set_tangent(t: Any, value: Any, level: int) -> None:
    """Make value t's tangent at level (as is: views of it stay views of it)."""
    if tuple(value.shape) != tuple(t.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(t.shape)} while the given forward "
                           f"gradient is of size {list(value.shape)}.")
    grads = t.__dict__.get(_GRADS)
    if grads is None:
        grads = t.__dict__[_GRADS] = {}
    if level not in grads:
        _levels[level].append(weakref.ref(t))
    grads[level] = value
    t._set_forward_ad_key(True)


def copy_tangents(source: Any, target: Any) -> None:
    """target gets source's tangents at every level (a transform's detached copy of a dual tensor)."""
    grads = _grads(source)
    if grads:
        for level, value in grads.items():
            set_tangent(target, value, level)


def primal_of(t: Any, level: int) -> Any:
    """An alias of t (a differentiable view, for reverse mode) without its tangent at level, keeping the others'."""
    out = _alias.call_below_forward_ad(t)
    grads = _grads(t)
    if grads:
        for other, value in grads.items():
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


def _tensors(value: Any) -> Iterator[Any]:
    if isinstance(value, TensorImpl):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, TensorImpl):
                yield v


def _innermost(values: list[Any], positions: tuple[int, ...]) -> tuple[int, bool]:
    """The innermost level the tensor arguments (or their tangents) carry, -1 for none, and whether any other
    level is carried too (the nested case)."""
    levels: set[int] = set()
    for i in positions:
        for t in _tensors(values[i]):
            grads = _grads(t)
            if grads:
                levels.update(grads)
                for value in grads.values():
                    inner = _grads(value)
                    if inner:
                        levels.update(inner)
    if not levels:
        return -1, False
    return max(levels), len(levels) > 1


def innermost_level(values: Any) -> int:
    """The innermost level the tensors among values (and in lists there) carry a tangent at, -1 for none."""
    values = list(values)
    return _innermost(values, tuple(range(len(values))))[0]


def _is_differentiable(t: Any) -> bool:
    return isinstance(t, TensorImpl) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


def _bind(args: tuple[Any, ...], kwargs: dict[str, Any], names: tuple[str, ...], defaults: tuple[Any, ...]
          ) -> list[Any]:
    values = list(args)
    if len(values) < len(defaults):
        values.extend(defaults[len(values):])
    for key, value in kwargs.items():
        values[names.index(key)] = value
    return values


def _map_tensors(fn: Callable[[Any], Any], args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    def one(v: Any) -> Any:
        if isinstance(v, TensorImpl):
            return fn(v)
        if isinstance(v, (list, tuple)) and any(isinstance(e, TensorImpl) for e in v):
            return type(v)(fn(e) if isinstance(e, TensorImpl) else e for e in v)
        return v
    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


class ForwardKernel:
    """The ForwardAD kernel of one op (or of an in-place variant): the op's value, then its tangents.

    tensors: the positions of the tensor arguments (tensor, optional tensor or tensor list); needs: those whose
    tangent the formula reads (zeros stand in for a missing one). formula(values, tangents, result) returns one
    tangent (or None) per output. inplace: the op writes its first argument, whose tangent gets the formula's
    result, reads_self: the formula reads self as it was before the write; inplace_view: the op only changes
    self's geometry (t_, squeeze_): the same op changes the tangent's."""

    def __init__(self, op: str, names: tuple[str, ...], defaults: tuple[Any, ...], tensors: tuple[int, ...],
                 needs: tuple[int, ...], formula: Callable[[list[Any], list[Any], Any], tuple[Any, ...]], *,
                 inplace: bool = False, reads_self: bool = False, inplace_view: bool = False) -> None:
        self.op = find_operator(op)
        self.names = names
        self.defaults = defaults
        self.tensors = tensors
        self.needs = needs
        self.formula = formula
        self.inplace = inplace
        self.reads_self = reads_self
        self.inplace_view = inplace_view

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = _bind(args, kwargs, self.names, self.defaults)
        level, nested = _innermost(values, self.tensors)
        if level < 0:
            return self.op.call_below_forward_ad(*args, **kwargs)
        if self.inplace:
            return self._inplace(args, kwargs, values, level, nested)
        if nested:
            def strip(t: Any) -> Any:
                return primal_of(t, level) if tangent(t, level) is not None else t
            p_args, p_kwargs = _map_tensors(strip, args, kwargs)
            result = self.op(*p_args, **p_kwargs)
            primals = _bind(p_args, p_kwargs, self.names, self.defaults)
            outputs = self.formula(primals, self._tangents(primals, values, level), result)
        else:
            result = self.op.call_below_forward_ad(*args, **kwargs)
            outputs = without_forward_ad(self.formula, values, self._tangents(values, values, level), result)
        _attach(result, outputs, level)
        return result

    def _tangents(self, primals: list[Any], values: list[Any], level: int) -> list[Any]:
        """The tangents in schema order (None where the formula reads none), zeros for a needed missing one."""
        out: list[Any] = [None] * len(values)
        for i in self.tensors:
            v = values[i]
            if isinstance(v, (list, tuple)):
                out[i] = [self._one(p, t, level, i) for p, t in zip(primals[i], v)]
            elif v is not None:
                out[i] = self._one(primals[i], v, level, i)
        return out

    def _one(self, primal: Any, value: Any, level: int, i: int) -> Any:
        t = tangent(value, level) if isinstance(value, TensorImpl) else None
        if t is None and i in self.needs and isinstance(primal, TensorImpl):
            return _zeros_like(primal)
        return t

    def _inplace(self, args: tuple[Any, ...], kwargs: dict[str, Any], values: list[Any], level: int,
                 nested: bool) -> Any:
        self_ = values[0]
        old = tangent(self_, level)
        if self.inplace_view:
            result = self.op.call_below_forward_ad(*args, **kwargs)
            if old is not None:        # the same geometry change, on the tangent
                t_args = (old,) + tuple(args[1:])
                without_forward_ad(self.op, *t_args, **kwargs)
            return result
        run: Callable[..., Any] = _call if nested else without_forward_ad
        original = run(_clone, primal_of(self_, level) if nested else self_) if self.reads_self else self_
        tangents = self._tangents(values, values, level)
        if nested:
            p_args, p_kwargs = _map_tensors(lambda t: primal_of(t, level) if tangent(t, level) is not None else t,
                                            args, kwargs)
            self.op(*p_args, **p_kwargs)
        else:
            self.op.call_below_forward_ad(*args, **kwargs)
        primals = list(values)
        primals[0] = original
        new = run(self.formula, primals, tangents, primal_of(self_, level) if nested else self_)[0]
        if new is not None and _is_differentiable(self_):
            target = old if old is not None else _fresh_tangent(self_, level)
            if _batched_levels(new) <= _batched_levels(target):
                run(_copy_, target, new)
            else:       # a tangent batched where self's is not (jacfwd of jacfwd): it cannot be written in place
                set_tangent(self_, new if new.dtype == self_.dtype else new.to(self_.dtype), level)
        return self_


def _no_levels(t: Any) -> set[int]:
    return set()


# The vmap levels a tensor is batched at (torch._functorch.batched installs the reader: it sits above this module).
_batched_levels: Callable[[Any], set[int]] = _no_levels


def install_batched_levels(reader: Callable[[Any], set[int]]) -> None:
    global _batched_levels
    _batched_levels = reader


def _fresh_tangent(t: Any, level: int) -> Any:
    """A zero tangent for t at level, set on t. For a view, it is the same view of its base's tangent (made
    zero, laid out as the base, when the base has none), so a write through the view reaches the base's."""
    base = t._base
    if base is None:
        value = _zeros_like(t)
        set_tangent(t, value, level)
        return value
    base_t = tangent(base, level)
    if base_t is None:
        storage = _zeros((base.untyped_storage().nbytes() // base.element_size(),), dtype=base.dtype,
                         device=base.device)
        base_t = _as_strided(storage, tuple(base.shape), base.stride(), base.storage_offset())
        set_tangent(base, base_t, level)
    value = _as_strided(base_t, tuple(t.shape), t.stride(), t.storage_offset())
    set_tangent(t, value, level)
    return value


def _attach(result: Any, outputs: tuple[Any, ...], level: int) -> None:
    if isinstance(result, TensorImpl):
        if outputs[0] is not None and _is_differentiable(result):
            set_tangent(result, outputs[0], level)
        return
    if len(outputs) == 1 and isinstance(outputs[0], (list, tuple)):
        outputs = tuple(outputs[0])          # a Tensor[] output (split, unbind): one tangent per tensor
    for r, t in zip(result, outputs):
        if t is not None and _is_differentiable(r):
            set_tangent(r, t, level)


class NoForwardFormula:
    """The ForwardAD kernel of an op without a forward formula: a tangent in its inputs raises PyTorch's error
    when the op gives a floating or complex output (one that would need a tangent: argmax's does not); without
    one it runs as usual. always: raise before running (out= variants, which PyTorch refuses outright)."""

    def __init__(self, op: str, message: str, always: bool = False) -> None:
        self.op = find_operator(op)
        self.message = message
        self.always = always

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        dual = any(has_tangent(t) for v in (*args, *kwargs.values()) for t in _tensors(v))
        if dual and self.always:
            raise NotImplementedError(self.message)
        result = self.op.call_below_forward_ad(*args, **kwargs)
        if dual and any(_is_differentiable(r) for r in _tensors(result)):
            raise NotImplementedError(self.message)
        return result


def OutForwardKernel(op: str, base: str) -> NoForwardFormula:
    """out= variants: PyTorch's kernels refuse tangents in any argument."""
    return NoForwardFormula(op, f"Trying to use forward AD with {base}_out that does not support it because it is an "
                                "out= function", always=True)
