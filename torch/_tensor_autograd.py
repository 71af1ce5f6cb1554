"""The autograd side of torch.Tensor (PyTorch's python_variable.cpp and torch/_tensor.py):
requires_grad, grad, grad_fn, is_leaf, retain_grad, register_hook, backward.

The state lives on the tensor object (`_requires_grad` for leaves, `_grad_fn` and `_output_nr`
for results of recorded operations, `_grad`, `_leaf_hooks`); torch/csrc/autograd/graph.pyx reads
and writes it."""
from __future__ import annotations

import warnings
from typing import Any

from torch.csrc.autograd import graph
from torch.csrc.autograd.hook_handles import PostAccumulateHook

_NON_LEAF_GRAD = ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                  "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                  "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                  "Tensor by mistake, make sure you access the leaf Tensor instead. See "
                  "github.com/pytorch/pytorch/pull/30531 for more informations.")
_LEAF_ONLY = ("you can only change requires_grad flags of leaf variables. If you want to use a computed variable in "
              "a subgraph that doesn't require differentiation use var_no_grad = var.detach().")


def _get_requires_grad(self: Any) -> bool:
    return bool(self._requires_grad or self._grad_fn is not None)


def _check_differentiable_dtype(self: Any) -> None:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")


def _set_requires_grad(self: Any, value: Any) -> None:
    if not isinstance(value, bool):
        raise RuntimeError("requires_grad must be a bool")
    if self._grad_fn is not None:
        raise RuntimeError(_LEAF_ONLY)
    if value:
        _check_differentiable_dtype(self)
    graph.set_requires_grad_flag(self, value)


def requires_grad_(self: Any, requires_grad: Any = True) -> Any:
    if not isinstance(requires_grad, bool):
        raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                        f"{type(requires_grad).__name__}")
    if self._grad_fn is not None:
        if not requires_grad:
            raise RuntimeError(_LEAF_ONLY)
        return self
    if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")   # PyTorch's wording here
    graph.set_requires_grad_flag(self, requires_grad)
    return self


def _get_grad(self: Any) -> Any:
    if self._grad_fn is not None and not self._retains_grad:
        warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
    return self.__dict__.get("_grad")


def _set_grad(self: Any, value: Any) -> None:
    if value is not None:
        if not hasattr(value, "_grad_fn"):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
        if value.dtype != self.dtype:
            raise RuntimeError("assigned grad has data of a different type")
        if value.device != self.device:
            raise RuntimeError("assigned grad has data located on a different device")
        if value.shape != self.shape:
            raise RuntimeError("assigned grad has data of a different size")
    self.__dict__["_grad"] = value


def _del_grad(self: Any) -> None:
    self.__dict__["_grad"] = None


def retain_grad(self: Any) -> None:
    """Keep the gradient of a non-leaf tensor in .grad after backward (a leaf always does)."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None or self._retains_grad:
        return
    import weakref
    self._grad_fn._register_retain_grad(self._output_nr, weakref.ref(self))
    self._retains_grad = True


def register_hook(self: Any, hook: Any) -> Any:
    """hook(grad) runs when the gradient for this tensor is computed; a returned tensor replaces it."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        return self._grad_fn._register_tensor_hook(self._output_nr, hook)
    return graph.register_leaf_hook(self, hook)


def register_post_accumulate_grad_hook(self: Any, hook: Any) -> Any:
    """hook(tensor) after this leaf's gradient is accumulated into .grad, in every backward."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return graph.register_leaf_hook(self, PostAccumulateHook(hook))


def backward(self: Any, gradient: Any = None, retain_graph: Any = None, create_graph: bool = False,
             inputs: Any = None) -> None:
    """Compute the gradient of this tensor with respect to the leaves (see torch.autograd.backward)."""
    from torch.autograd import backward as run
    run(self, gradient, retain_graph, create_graph, inputs=inputs)


def detach_(self: Any) -> Any:
    graph.clear_history(self)
    if self._has_forward_ad_key():          # and its forward-mode tangents, as PyTorch's
        from torch.csrc.autograd import forward_grad
        forward_grad.drop_tangents(self)
    return self


PROPERTIES: dict[str, property] = {
    "requires_grad": property(_get_requires_grad, _set_requires_grad),
    "grad": property(_get_grad, _set_grad, _del_grad),
    "grad_fn": property(graph.current_grad_fn),
    "is_leaf": property(lambda self: self._grad_fn is None),
    "retains_grad": property(lambda self: bool(self._retains_grad)),
    "output_nr": property(lambda self: self._output_nr),
}
METHODS: dict[str, Any] = {"requires_grad_": requires_grad_, "retain_grad": retain_grad,
                           "register_hook": register_hook, "backward": backward, "detach_": detach_,
                           "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook}
# The defaults every tensor starts with (class attributes; a tensor's own value shadows them).
DEFAULTS: dict[str, Any] = {"_requires_grad": False, "_grad_fn": None, "_output_nr": 0, "_retains_grad": False}

