"""Forward-mode AD's kernels at the ForwardAD dispatch key (the forward half of PyTorch's autograd kernels).

Each differentiable op has a ForwardKernel (torchgen writes them from derivatives.yaml's `result:` formulas,
torch/csrc/autograd/_gen_forward_ad.py): it runs the op for its value below the key, evaluates the formula of the
innermost level its inputs carry, and attaches the tangent to the output. When the inputs, or their tangents, carry
other levels too (jvp of jvp), the inputs are stripped of the innermost level only (aliases keeping the others) and
the op and the formula run through the dispatcher again, so the value gets the outer levels' tangents and the
formula's ops their second-order terms; otherwise the formula runs with the key switched off (its ops compute
values only). In-place ops write their new tangent into self's (a write into a view reaches its base's); ops
without a formula, and out= calls, raise PyTorch's errors."""
from __future__ import annotations

from typing import Any, Callable

from aten.dispatcher import find_operator, without_forward_ad
from c10 import grad_mode
from c10.scalar_type import dtype_from_name
from c10.tensor_impl import TensorImpl
from torch.csrc.autograd.forward_grad import (drop_tangents, levels_in, primal_of, set_tangent, tangent, tangents,
                                              tensors_in, views_of)
from torch.csrc.autograd.graph import requires_grad

__all__ = ["ForwardKernel", "NoForwardFormula", "OutForwardKernel", "NOT_IMPLEMENTED", "install_batched_levels",
           "fw_as_strided_", "fw_detach_", "fw_resize_"]

_zeros_like = find_operator("zeros_like")
_zeros = find_operator("zeros")
_clone = find_operator("clone")
_copy_ = find_operator("copy_")
_as_strided = find_operator("as_strided")
_arange = find_operator("arange")
_view_dtype = find_operator("view.dtype")
_index_copy = find_operator("index_copy")
_INT64 = dtype_from_name("int64")

NOT_IMPLEMENTED = ("Trying to use forward AD with {} that does not support it because it has not been implemented "
                   "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template="
                   "feature-request.yml so that we can prioritize its implementation or submit a PR adding the "
                   "implementation to derivatives.yaml")


def _is_differentiable(t: Any) -> bool:
    return isinstance(t, TensorImpl) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


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
    self's geometry (t_, squeeze_), and `functional` (t, squeeze) makes each of self's tangents the same view."""

    def __init__(self, op: str, names: tuple[str, ...], defaults: tuple[Any, ...], tensors: tuple[int, ...],
                 needs: tuple[int, ...], formula: Callable[[list[Any], list[Any], Any], tuple[Any, ...]], *,
                 inplace: bool = False, reads_self: bool = False, inplace_view: bool = False,
                 functional: str | None = None) -> None:
        self.op = find_operator(op)
        self.names = names
        self.defaults = defaults
        self.tensors = tensors
        self.needs = needs
        self.formula = formula
        self.inplace = inplace
        self.reads_self = reads_self
        self.inplace_view = inplace_view
        self.functional = find_operator(functional) if functional else None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = _bind(args, kwargs, self.names, self.defaults)
        level, nested = levels_in(values, self.tensors)
        if level < 0 or grad_mode.is_inference_mode_enabled():      # inference mode computes values only
            return self.op.call_below_forward_ad(*args, **kwargs)
        if self.inplace_view:
            return self._inplace_view(args, kwargs)
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

    def _inplace_view(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """t_, squeeze_...: self's new geometry, and each of its tangents (every level) the same view of itself."""
        self_ = args[0]
        before = tangents(self_)
        result = self.op.call_below_forward_ad(*args, **kwargs)
        for lvl, old in before.items():
            if self.functional is not None:
                set_tangent(self_, self.functional(old, *args[1:], **kwargs), lvl)
        return result

    def _inplace(self, args: tuple[Any, ...], kwargs: dict[str, Any], values: list[Any], level: int,
                 nested: bool) -> Any:
        self_ = values[0]
        old = tangent(self_, level)
        run: Callable[..., Any] = _call if nested else without_forward_ad
        original = run(_clone, primal_of(self_, level) if nested else self_) if self.reads_self else self_
        tangents_ = self._tangents(values, values, level)
        if old is not None and grad_mode.is_grad_enabled() and (old.requires_grad or requires_grad(values)):
            tangents_[0] = run(_clone, old)      # the formula's graph must not see the write into the old tangent
        if nested:
            p_args, p_kwargs = _map_tensors(lambda t: primal_of(t, level) if tangent(t, level) is not None else t,
                                            args, kwargs)
            self.op(*p_args, **p_kwargs)
        else:
            self.op.call_below_forward_ad(*args, **kwargs)
        primals = list(values)
        primals[0] = original
        new = run(self.formula, primals, tangents_, primal_of(self_, level) if nested else self_)[0]
        if new is None or not _is_differentiable(self_):
            return self_
        if _under_vmap(self_, old, new, level):
            run(_replace_out_of_place, self_, new, level)
            return self_
        target = old if old is not None else _fresh_tangent(self_, level)
        run(_copy_, target, new)
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
    zero, laid out as the base, when the base has none), so a write through the view reaches the base's (never
    under vmap: _under_vmap)."""
    base = t._base
    if base is None:
        value = _zeros_like(t)
        set_tangent(t, value, level)
        _share_with_views(t, value, level)
        return value
    base_t = tangent(base, level)
    if base_t is None:
        storage = _zeros((base.untyped_storage().nbytes() // base.element_size(),), dtype=base.dtype,
                         device=base.device)
        base_t = _as_strided(storage, tuple(base.shape), base.stride(), base.storage_offset())
        set_tangent(base, base_t, level)
        _share_with_views(base, base_t, level)
    if tangent(t, level) is not None:
        return tangent(t, level)
    if t.dtype != base.dtype:         # view_as_real, view(dtype): the view's strides count its own elements
        base_t = _view_dtype(base_t, t.dtype)
    value = _as_strided(base_t, tuple(t.shape), t.stride(), t.storage_offset())
    set_tangent(t, value, level)
    return value


def _share_with_views(base: Any, base_t: Any, level: int) -> None:
    """base just got its tangent: the views taken of it before see the same view of the tangent (PyTorch's views
    find theirs through their base)."""
    for view in views_of(base):
        if tangent(view, level) is None and view.dtype == base.dtype and view.device == base.device:
            set_tangent(view, _as_strided(base_t, tuple(view.shape), view.stride(), view.storage_offset()), level)


def _under_vmap(t: Any, old: Any, new: Any, level: int) -> bool:
    """Whether a write into t's tangent involves vmap's batched tensors (t's, its base's, the old or new tangent):
    batched tangents cannot be viewed as their tensors are (no storage), so the write is made out of place."""
    root = t._base if t._base is not None else t
    root_t = tangent(root, level)
    return bool(root._is_batched() or _batched_levels(new) or (old is not None and _batched_levels(old))
                or (root_t is not None and _batched_levels(root_t)))


def _replace_out_of_place(t: Any, new: Any, level: int) -> None:
    """t's tangent becomes new (broadcast, cast) out of place (under vmap). For a view, its base's tangent is rebuilt
    with the view's elements replaced (index_copy at their positions among the base's elements); every view of the
    base taken while the level was live then gets its elements of the base's new tangent."""
    new = (new if new.dtype == t.dtype else new.to(t.dtype)).expand(tuple(t.shape))
    base = t._base
    root = base if base is not None else t
    if base is not None and base.dtype == t.dtype:
        base_t = tangent(base, level)
        if base_t is None:
            base_t = _zeros_like(base)
        positions = _positions_in(t, base)
        base_t = _index_copy(base_t.reshape(-1), 0, positions.reshape(-1), new.reshape(-1)).reshape(tuple(base.shape))
        set_tangent(base, base_t, level)
    set_tangent(t, new, level)
    root_t = tangent(root, level)
    if root_t is None:
        return
    for view in views_of(root):
        if view is not t and view.dtype == root.dtype:
            set_tangent(view, root_t.reshape(-1)[_positions_in(view, root)], level)


def _positions_in(t: Any, base: Any) -> Any:
    """The position of each of view t's elements among its base's (row-major), shaped as t: its storage positions,
    looked up in a table of which element of the base sits where in the storage."""
    span = 1 + sum((n - 1) * s for n, s in zip(base.shape, base.stride()) if n > 0)
    table = _zeros((max(span, 1),), dtype=_INT64, device=t.device)
    order = _arange(base.numel(), device=t.device).reshape(tuple(base.shape))
    _copy_(_as_strided(table, tuple(base.shape), base.stride(), 0), order)
    storage = _zeros((), dtype=_INT64, device=t.device) + (t.storage_offset() - base.storage_offset())
    for size, stride in zip(t.shape, t.stride()):
        storage = storage.unsqueeze(-1) + _arange(size, device=t.device) * stride
    return table[storage]


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


def _any_dual(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return any(bool(tangents(t)) for v in (*args, *kwargs.values()) for t in tensors_in(v))


class NoForwardFormula:
    """The ForwardAD kernel of an op without a forward formula: a tangent in its inputs raises PyTorch's error
    when the op gives a floating or complex output (one that would need a tangent: argmax's does not); without
    one it runs as usual. always: raise before running (out= variants, which PyTorch refuses outright)."""

    def __init__(self, op: str, message: str, always: bool = False, error: type[Exception] = NotImplementedError
                 ) -> None:
        self.op = find_operator(op)
        self.message = message
        self.always = always
        self.error = error

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        dual = _any_dual(args, kwargs)
        if dual and self.always:
            raise self.error(self.message)
        result = self.op.call_below_forward_ad(*args, **kwargs)
        if dual and any(_is_differentiable(r) for r in tensors_in(result)):
            raise self.error(self.message)
        return result


def OutForwardKernel(op: str, base: str) -> NoForwardFormula:
    """out= variants: PyTorch's kernels refuse tangents in any argument."""
    return NoForwardFormula(op, f"Trying to use forward AD with {base}_out that does not support it because it is an "
                                "out= function", always=True)


class _DetachInPlace:
    """detach_: self leaves reverse mode's graph and forgets its tangents, as PyTorch's."""

    def __call__(self, self_: Any) -> Any:
        result = find_operator("detach_").call_below_forward_ad(self_)
        drop_tangents(self_)
        return result


# Hand-written kernels (torchgen registers them: MANUAL_FORWARD in torchgen/targets/forward_ad.py).
fw_as_strided_ = ForwardKernel("as_strided_", ("self", "size", "stride", "storage_offset"), (None, None, None, None),
                               (0,), (), lambda values, tangents, result: (None,), inplace_view=True,
                               functional="as_strided")
fw_detach_ = _DetachInPlace()
fw_resize_ = NoForwardFormula("resize_", "cannot resize variables that has a forward grad", always=True,
                              error=RuntimeError)
