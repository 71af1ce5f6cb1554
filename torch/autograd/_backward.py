"""backward() and grad(), the two ways into the engine (torch/csrc/autograd/graph.pyx): check the
arguments, make the gradients to start from, run the graph backward. torch.autograd exports them
(PyTorch defines them in torch/autograd/__init__.py); they live here so that the modules of the
package that call grad (functional.py, gradcheck.py) import it without importing the package."""
from __future__ import annotations

from typing import Any, Sequence

from aten.dispatcher import find_operator, vmap_mode_active
from c10.tensor_impl import TensorImpl
from torch.csrc.autograd import graph

__all__ = ["backward", "grad"]

# Operators by handle, not through `torch` (the package imports this one).
_ones_like = find_operator("ones_like")
_zeros_like = find_operator("zeros_like")


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def _make_grads(outputs: tuple[Any, ...], grads: tuple[Any, ...]) -> tuple[Any, ...]:
    """The gradient to start from for each output: the given one (shape-checked), or ones for a
    scalar output that requires grad (PyTorch's _make_grads)."""
    made: list[Any] = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is not None:
            if not isinstance(g, TensorImpl):
                raise TypeError("gradients can be either Tensors or None, but got " + type(g).__name__)
            if g.shape != out.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                                   f"has a shape of {out.shape}.")
            made.append(g)
        elif out.requires_grad:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            made.append(_ones_like(out))
        else:
            made.append(None)
    return tuple(made)


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables: Any = None, inputs: Any = None) -> None:
    """Accumulate the gradients of tensors (times grad_tensors) into the leaves' .grad."""
    if grad_variables is not None:
        raise RuntimeError("`grad_variables` was removed: use `grad_tensors` instead")
    if vmap_mode_active():
        raise RuntimeError("backward() called inside a functorch transform. This is not supported, please use "
                           "functorch.grad or functorch.vjp instead or call backward() outside of functorch transforms.")
    outputs = _as_tuple(tensors)
    input_list = _as_tuple(inputs)
    if inputs is not None and not input_list:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs" if not grads else
                           f"got {len(grads)} gradients for {len(outputs)} tensors")
    grads = _make_grads(outputs, grads)
    keep = create_graph if retain_graph is None else retain_graph
    _run(outputs, grads, keep, create_graph, input_list, True, True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple[Any, ...]:
    """The gradients of outputs with respect to inputs, without touching any .grad."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    unused_ok = materialize_grads if allow_unused is None else allow_unused
    outs = _as_tuple(outputs)
    ins: Sequence[Any] = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(outs)
    if len(grads) != len(outs):
        raise RuntimeError(f"grad_outputs and outputs should have the same length: got {len(grads)} and {len(outs)}")
    keep = create_graph if retain_graph is None else retain_graph
    if is_grads_batched:
        result = _batched_grads(outs, grads, keep, create_graph, tuple(ins), unused_ok)
    else:
        result = _run(outs, _make_grads(outs, grads), keep, create_graph, tuple(ins), unused_ok, False)
    if materialize_grads:
        result = tuple(_zeros_like(t) if g is None else g for t, g in zip(ins, result))
    return tuple(result)


# Functions to call once the outermost running backward ends (queue_callback), and how many backwards run.
_final_callbacks: list[Any] = []
_depth = [0]


def queue_callback(callback: Any) -> None:
    """callback() once the running backward ends (PyTorch's Variable._execution_engine.queue_callback)."""
    if not _depth[0]:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _final_callbacks.append(callback)


def _run(*args: Any) -> Any:
    """The engine's run_backward, then the final callbacks queued while it ran (by the outermost one)."""
    _depth[0] += 1
    try:
        result = graph.run_backward(*args)
    except BaseException:
        _depth[0] -= 1
        if not _depth[0]:
            _final_callbacks.clear()
        raise
    try:
        if _depth[0] == 1:      # (still counted: a callback may queue another)
            while _final_callbacks:
                _final_callbacks.pop(0)()
    finally:
        _depth[0] -= 1
        if not _depth[0]:
            _final_callbacks.clear()
    return result


# torch.func.vmap(fn)(*rows): torch.autograd sits below torch.func, which is built on it; `import torch` installs
# it here (torch/__init__.py), loading torch.func on the first call.
_vmap: Any = None


def install_vmap(vmap_rows: Any) -> None:
    global _vmap
    _vmap = vmap_rows


def _batched_grads(outs: tuple[Any, ...], grads: tuple[Any, ...], keep: bool, create_graph: bool,
                   ins: tuple[Any, ...], unused_ok: bool) -> tuple[Any, ...]:
    """grad(is_grads_batched=True): one backward pass for every grad_outputs row (dim 0), under vmap."""
    for i, (g, o) in enumerate(zip(grads, outs)):
        if g is None or g.dim() == 0 or tuple(g.shape[1:]) != tuple(o.shape):
            raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                               "the batch dimension. The sizes of the remaining dimensions are expected to match the "
                               f"shape of corresponding output, but a mismatch was detected: grad_output[{i}] has a "
                               f"shape of {g.shape if g is not None else None} and output[{i}] has a shape of {o.shape}. "
                               "If you only want some tensors in `grad_output` to be considered batched, consider using "
                               "vmap.")
    unused: list[bool] = []

    def one_pass(*rows: Any) -> tuple[Any, ...]:
        result = _run(outs, rows, True, create_graph, ins, unused_ok, False)
        unused[:] = [r is None for r in result]
        return tuple(_zeros_like(t) if r is None else r for t, r in zip(ins, result))

    stacked = _vmap(one_pass, *grads)
    return tuple(None if missing else r for r, missing in zip(stacked, unused))


# PyTorch's home for both, what help(), pickle and the docs report.
backward.__module__ = grad.__module__ = "torch.autograd"
