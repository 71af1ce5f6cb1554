"""torch.autograd.Function: a user-defined operation with its own backward (PyTorch's
torch/autograd/function.py and python_function.cpp).

`F.apply(*args)` runs `forward` without recording history, then, when an input requires grad
and grad mode is on, makes one backward node, an instance of `FBackward`, which is also the
`ctx` that forward saw. The outputs get it as their grad_fn. The engine later calls
`F.backward(ctx, *grads)`."""
from __future__ import annotations

import functools
from typing import Any, Callable

from aten.dispatcher import find_operator, without_forward_ad
from c10 import grad_mode as _mode
from c10.tensor_impl import TensorImpl
from torch.autograd.grad_mode import no_grad
from torch.csrc.autograd import forward_grad, graph

_zeros = find_operator("zeros")


class FunctionCtx:
    """What forward (or setup_context) receives as ctx: save tensors, mark outputs."""

    needs_input_grad: tuple[bool, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        for t in tensors:
            if t is not None and not hasattr(t, "_grad_fn"):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        """The tensors forward modified in place (they must be among the inputs)."""
        self._dirty = args

    def mark_non_differentiable(self, *args: Any) -> None:
        """Outputs that never get a gradient (indices, masks): they do not require grad."""
        self._non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """False: backward receives None (not zeros) for outputs whose gradient is missing."""
        self._materialize_grads = value

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        if self.__dict__.get("_in_jvp"):         # jvp reads what forward saved for it
            return tuple(self.__dict__.get("saved_for_forward", ()))
        saved = self.__dict__.get("_saved_variables")
        if saved is None:
            return tuple(self.__dict__.get("_to_save", ()))
        return tuple(v.unpack() for v in saved)


class BackwardCFunction(graph.Node, FunctionCtx):
    """The backward node of one Function.apply call (subclassed per Function as <Name>Backward)."""

    _forward_cls: Any = None

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: Any) -> tuple[Any, ...]:
        cls = self._forward_cls
        grads = list(grads)
        if self.__dict__.get("_materialize_grads", True):
            for i, g in enumerate(grads):
                meta = self._input_metadata[i] if i < len(self._input_metadata) else None
                if g is None and meta is not None:
                    grads[i] = _zeros(meta[0], dtype=meta[1], device=meta[2])
        result = cls.backward(self, *grads)
        result = tuple(result) if isinstance(result, tuple) else (result,)
        expected = len(self.next_edges)
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {expected}, got {len(result)})")
        tensor_inputs = self.__dict__.get("_tensor_inputs", ())
        for i, g in enumerate(result):
            if g is not None and i < len(tensor_inputs) and not tensor_inputs[i]:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
        return result

    def release_variables(self) -> None:
        graph.Node.release_variables(self)
        for v in self.__dict__.get("_saved_variables") or ():
            v.release()


class FunctionMeta(type):
    """Gives each Function subclass its backward node class, <Name>Backward."""

    def __init__(cls, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls,
                                                                           "__module__": cls.__module__})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Subclass with static `forward(ctx, *args)` (or `forward(*args)` plus `setup_context(ctx,
    inputs, output)`) and `backward(ctx, *grad_outputs)`; call it as `MyFunction.apply(...)`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                           "autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        node = cls._backward_cls()
        is_tensor = tuple(isinstance(a, TensorImpl) for a in args)
        node.needs_input_grad = tuple(t and a.requires_grad for t, a in zip(is_tensor, args))
        node._tensor_inputs = is_tensor
        record = _mode.is_grad_enabled() and any(node.needs_input_grad)
        level = forward_grad.innermost_level(args)
        # forward sees its inputs' values only: their tangents go to jvp
        run: Callable[..., Any] = without_forward_ad if level >= 0 else _call
        with no_grad():
            if cls.setup_context is not Function.setup_context:
                output = run(cls.forward, *args, **kwargs)
                cls.setup_context(node, args, output)
            else:
                output = run(cls.forward, node, *args, **kwargs)
        if record:
            graph.set_next_edges(node, [graph.gradient_edge(a) if t and a.requires_grad else graph.Edge(None, 0)
                                        for t, a in zip(is_tensor, args)])
            output = _wrap_outputs(node, args, output)
        elif level >= 0:        # an input returned as is gets its tangent on an alias, never on the input
            inputs = {id(a) for a in args}
            dirty = {id(t) for t in node.__dict__.get("_dirty", ())}
            output = _map_outputs(output, lambda o: o.detach() if id(o) in inputs and id(o) not in dirty else o)
        if level >= 0:
            _forward_tangents(cls, node, args, output, level)
        return output


def _is_tensor(value: Any) -> bool:
    return isinstance(value, TensorImpl)


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def _map_outputs(output: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(output, tuple):
        return tuple(fn(o) if _is_tensor(o) else o for o in output)
    return fn(output) if _is_tensor(output) else output


def _forward_tangents(cls: Any, node: Any, args: tuple[Any, ...], output: Any, level: int) -> None:
    """The outputs' tangents at level from cls.jvp(ctx, *input tangents) (zeros for a floating tensor input without
    one, None for the other arguments), as PyTorch's custom functions get them."""
    tangents = [_input_tangent(a, level) for a in args]
    node._in_jvp = True
    try:
        result = without_forward_ad(cls.jvp, node, *tangents)
    finally:
        node._in_jvp = False
    outputs = output if isinstance(output, tuple) else (output,)
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outputs)} "
                           f"but got {len(results)})")
    non_differentiable = {id(t) for t in node.__dict__.get("_non_differentiable", ())}
    for i, (out, t) in enumerate(zip(outputs, results)):
        if t is None:
            continue
        if not _is_tensor(out) or id(out) in non_differentiable or not (out.dtype.is_floating_point
                                                                       or out.dtype.is_complex):
            raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the corresponding forward "
                               "output is not a differentiable Tensor.You should return None at that position "
                               "instead.")
        if forward_grad.tangent(out, level) is not t:      # a dirty input's tangent, updated in place, stays
            forward_grad.set_tangent(out, t, level)


def _input_tangent(a: Any, level: int) -> Any:
    """What jvp receives for one input: its tangent, zeros for a floating tensor without one, None otherwise."""
    if not _is_tensor(a) or not (a.dtype.is_floating_point or a.dtype.is_complex):
        return None
    found = forward_grad.tangent(a, level)
    return a.new_zeros(a.shape) if found is None else found


def _wrap_outputs(node: Any, args: tuple[Any, ...], output: Any) -> Any:
    """Give the outputs their grad_fn (an input returned as is becomes an alias; one marked dirty
    gets its history rebased) and save what forward asked to save."""
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    dirty = {id(t) for t in node.__dict__.get("_dirty", ())}
    non_diff = {id(t) for t in node.__dict__.get("_non_differentiable", ())}
    inputs = {id(a) for a in args}
    wrapped: list[Any] = []
    metadata: list[Any] = []
    for i, out in enumerate(outputs):
        if not _is_tensor(out):
            wrapped.append(out)
            metadata.append(None)
            continue
        if id(out) in dirty:
            if out.is_leaf and out.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            out._bump_version()          # as PyTorch: rebasing a dirty tensor's history counts as a write
        elif id(out) in inputs:
            out = out.detach()           # an input returned as is: a new alias carries the history
        if id(out) in non_diff or not (out.dtype.is_floating_point or out.dtype.is_complex):
            graph.set_requires_grad_flag(out, False)
        else:
            graph.set_history(out, node, i)
        wrapped.append(out)
        metadata.append((out.shape, out.dtype, out.device))
    node._input_metadata = metadata
    to_save = node.__dict__.pop("_to_save", None)
    if to_save is not None:
        outputs_by_id = {id(o) for o in wrapped if isinstance(o, TensorImpl)}
        node._saved_variables = tuple(graph.SavedVariable(t, id(t) in outputs_by_id, node) for t in to_save)
    return wrapped[0] if single else tuple(wrapped)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A backward that is not itself differentiable: it runs without recording history."""
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            return fn(ctx, *args)
    return wrapper
