"""Module hooks and `__call__`: forward pre-hooks, forward hooks and full backward (pre-)hooks,
run in PyTorch's order (torch/nn/modules/module.py `_call_impl`, torch/utils/hooks.py
`BackwardHook`).

A full backward hook sees the gradients with respect to the module's tensor inputs and outputs.
The module's inputs and outputs pass through an identity autograd.Function each: the engine
calls the output one's backward with every output gradient at once (they are recorded and the
backward pre-hooks may replace them), and the input one's backward with every input gradient
at once (the backward hooks run there and may replace them)."""
from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any, Callable

import torch
from torch import Tensor
from torch.autograd import Function
from torch.utils.hooks import (RemovableHandle, _global_forward_hooks, _global_forward_hooks_always_called,
                               _global_forward_hooks_with_kwargs, _global_forward_pre_hooks, hooks_registered)

_HOOK_DICTS = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
               "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
               "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")


class _IdentityWithGradCallback(Function):
    """Returns its tensors unchanged; backward hands their gradients to a callback, which may
    replace them."""

    @staticmethod
    def forward(ctx: Any, callback: Callable[[tuple[Any, ...]], tuple[Any, ...]], *tensors: Any) -> Any:
        ctx.callback = callback
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        return (None, *ctx.callback(grads))


class _BackwardHook:
    """One forward call's full backward hooks (PyTorch's torch.utils.hooks.BackwardHook)."""

    def __init__(self, module: Any, hooks: list[Any], pre_hooks: list[Any]) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.n_inputs = 0
        self.input_positions: list[int] | None = None   # positions (among tensor inputs) that require grad
        self.grad_outputs: tuple[Any, ...] | None = None

    def _wrap(self, values: tuple[Any, ...], callback: Callable[..., Any]) -> tuple[tuple[Any, ...], list[int] | None,
                                                                                     int]:
        tensors = [(i, v) for i, v in enumerate(values) if isinstance(v, Tensor)]
        grad_positions = [k for k, (_, v) in enumerate(tensors) if v.requires_grad]
        if not (torch.is_grad_enabled() and grad_positions):
            return values, None, len(tensors)
        wrapped = _IdentityWithGradCallback.apply(callback, *(tensors[k][1] for k in grad_positions))
        out = list(values)
        for k, new in zip(grad_positions, wrapped):
            out[tensors[k][0]] = new
        return tuple(out), grad_positions, len(tensors)

    def _pack(self, grads: tuple[Any, ...], positions: list[int], size: int) -> tuple[Any, ...]:
        packed: list[Any] = [None] * size
        for k, g in zip(positions, grads):
            packed[k] = g
        return tuple(packed)

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        wrapped, self.input_positions, self.n_inputs = self._wrap(args, self._on_input_grads)
        return wrapped

    def setup_output_hook(self, result: Any) -> Any:
        single = isinstance(result, Tensor)
        values = (result,) if single else result
        if not isinstance(values, tuple):
            return result
        wrapped, positions, n_outputs = self._wrap(values, lambda grads: self._on_output_grads(grads, positions_ref))
        positions_ref = (positions or [], n_outputs)
        return wrapped[0] if single else wrapped

    def _on_output_grads(self, grads: tuple[Any, ...], layout: tuple[list[int], int]) -> tuple[Any, ...]:
        positions, n_outputs = layout
        grad_outputs = self._pack(grads, positions, n_outputs)
        for hook in self.pre_hooks:
            result = hook(self.module, grad_outputs)
            if result is not None:
                grad_outputs = result if isinstance(result, tuple) else (result,)
        self.grad_outputs = grad_outputs
        if self.input_positions is None:
            if self.hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                              "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                              "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                              stacklevel=2)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, grad_inputs, grad_outputs)
                if result is not None and not all(r is None for r in result):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[k] for k in positions)

    def _on_input_grads(self, grads: tuple[Any, ...]) -> tuple[Any, ...]:
        positions = self.input_positions or []
        grad_inputs = self._pack(grads, positions, self.n_inputs)
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is None:
                continue
            if not isinstance(result, tuple):
                result = (result,)
            if len(result) != len(grad_inputs):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(result)}, but "
                                   f"expected {len(grad_inputs)}")
            grad_inputs = result
        self.grad_outputs = None
        return tuple(grad_inputs[k] for k in positions)


class HooksMixin:
    """Hook registration and `__call__` of nn.Module."""

    _backward_pre_hooks: dict[int, Callable[..., Any]]
    _backward_hooks: dict[int, Callable[..., Any]]
    _is_full_backward_hook: bool | None
    _forward_hooks: dict[int, Callable[..., Any]]
    _forward_hooks_with_kwargs: dict[int, bool]
    _forward_hooks_always_called: dict[int, bool]
    _forward_pre_hooks: dict[int, Callable[..., Any]]
    _forward_pre_hooks_with_kwargs: dict[int, bool]
    _state_dict_hooks: dict[int, Callable[..., Any]]
    _state_dict_pre_hooks: dict[int, Callable[..., Any]]
    _load_state_dict_pre_hooks: dict[int, Callable[..., Any]]
    _load_state_dict_post_hooks: dict[int, Callable[..., Any]]
    forward: Callable[..., Any]

    def _init_hook_dicts(self, only_missing: bool = False) -> None:
        for name in _HOOK_DICTS:
            if not (only_missing and name in self.__dict__):
                object.__setattr__(self, name, OrderedDict())
        if not (only_missing and "_is_full_backward_hook" in self.__dict__):
            object.__setattr__(self, "_is_full_backward_hook", None)

    @staticmethod
    def _add_hook(hooks: Any, hook: Callable[..., Any], prepend: bool, extra: Any = None) -> RemovableHandle:
        handle = RemovableHandle(hooks, extra_dict=extra)
        hooks[handle.id] = hook
        hooks_registered[0] += 1        # a compiled graph's guards look again
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) -> None or new args (with_kwargs: hook(module, args, kwargs) -> None
        or (args, kwargs)), run before forward."""
        handle = self._add_hook(self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) -> None or new output (with_kwargs: hook(module, args, kwargs,
        output)), run after forward; always_call runs it even when forward raised."""
        handle = self._add_hook(self._forward_hooks, hook, prepend,
                                [self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) -> None or new grad_output, run when the output gradients
        are known."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) -> None or new grad_input, run when the input
        gradients are known."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated: Ember runs it as a full backward hook (what PyTorch recommends instead)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        return self._add_hook(self._backward_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, prefix, keep_vars), run before state_dict collects this module."""
        return self._add_hook(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata), run after state_dict collected it."""
        return self._add_hook(self._state_dict_hooks, hook, False)

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        return self.register_state_dict_post_hook(hook)

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs), run before this module loads its part."""
        return self._add_hook(self._load_state_dict_pre_hooks, lambda *a: hook(self, *a), False)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """hook(module, incompatible_keys), run after load_state_dict loaded this module."""
        return self._add_hook(self._load_state_dict_post_hooks, hook, False)

    # -- __call__ -----------------------------------------------------------------------------
    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_forward_pre_hooks or _global_forward_hooks):
            return self.forward(*args, **kwargs)
        called_always: set[int] = set()
        result: Any = None
        try:
            for hook_id, hook in [*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()]:
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    new = hook(self, args, kwargs)
                    if new is not None:
                        if isinstance(new, tuple) and len(new) == 2:
                            args, kwargs = new
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {new}.")
                else:
                    new = hook(self, args)
                    if new is not None:
                        args = new if isinstance(new, tuple) else (new,)
            bw_hook = None
            if self._backward_hooks or self._backward_pre_hooks:
                bw_hook = _BackwardHook(self, list(self._backward_hooks.values()),
                                        list(self._backward_pre_hooks.values()))
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            # read after forward, as PyTorch: hooks registered by pre-hooks or forward itself run too
            forward_hooks, with_kwargs, always = self._forward_hooks_now()
            for hook_id, hook in forward_hooks:
                if hook_id in always:
                    called_always.add(hook_id)
                if hook_id in with_kwargs:
                    new = hook(self, args, kwargs, result)
                else:
                    new = hook(self, args, result)
                if new is not None:
                    result = new
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                                  f"Tensors but received {type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            forward_hooks, with_kwargs, always = self._forward_hooks_now()
            for hook_id, hook in forward_hooks:
                if hook_id in always and hook_id not in called_always:
                    try:
                        if hook_id in with_kwargs:
                            new = hook(self, args, kwargs, result)
                        else:
                            new = hook(self, args, result)
                        if new is not None:
                            result = new
                    except Exception as e:
                        warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                      f"silenced as another error was raised in forward: {e}", stacklevel=2)
            raise

    def _forward_hooks_now(self) -> tuple[list[tuple[int, Callable[..., Any]]], set[int], set[int]]:
        """The forward hooks to run (global first), which take kwargs and which are always called."""
        hooks = [*_global_forward_hooks.items(), *self._forward_hooks.items()]
        with_kwargs = self._forward_hooks_with_kwargs.keys() | _global_forward_hooks_with_kwargs.keys()
        always = self._forward_hooks_always_called.keys() | _global_forward_hooks_always_called.keys()
        return hooks, with_kwargs, always

    # Set by Module.compile(): the compiled _call_impl that calls of this module go through.
    _compiled_call_impl: Callable[..., Any] | None = None

    def _wrapped_call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    __call__: Callable[..., Any] = _wrapped_call_impl

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Compile this module's calls in place with torch.compile (its arguments); state_dict keys and
        the module's type stay as they are, as PyTorch's Module.compile."""
        self._compiled_call_impl = torch.compile(self._call_impl, *args, **kwargs)
