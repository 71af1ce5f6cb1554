"""torch.utils.hooks: the handle a hook registration returns (PyTorch's RemovableHandle), and the
registry of the hooks every module runs."""
from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


class RemovableHandle:
    """Removes the hook it was returned for from its dict(s): `handle.remove()` or `with handle:`.

    Args:
        hooks_dict: the ordered dict of hooks, keyed by the handle's id.
        extra_dict: more dicts (or one) the id is removed from, e.g. the with_kwargs flags.
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple[Any, ...] = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]
        hooks_registered[0] += 1        # a compiled graph that ran the hook looks again

    def __getstate__(self) -> Any:
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state: Any) -> None:
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) >= 3 else ()
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra if d is not None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *args: Any) -> None:
        self.remove()


def unserializable_hook(f: Any) -> Any:
    """Mark a hook as one that serialization may drop."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor: Any) -> None:
    """Warn that a tensor's backward hooks are not serialized (Ember keeps no such hooks on save)."""


# Hooks every module runs before its own (registered through torch.nn.modules.module's
# register_module_forward_pre_hook and register_module_forward_hook, which are these); kept here,
# below torch.nn, so that observers outside it (torch.utils.flop_counter) can register them. The
# flags are keyed by handle id, unique across all hook dicts.
_global_forward_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
# How many times a hook (a module's own or global) was registered or removed: a compiled graph's guards
# re-read its modules' hooks only when this moved (torch._dynamo.guard_checks).
hooks_registered = [0]
_global_forward_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict[int, bool] = OrderedDict()
_global_forward_hooks_always_called: OrderedDict[int, bool] = OrderedDict()


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """hook(module, args) -> None or new args, run before every module's forward (and before the
    module's own pre-hooks)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    hooks_registered[0] += 1
    return handle


def register_module_forward_hook(hook: Callable[..., Any], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """hook(module, args, output) -> None or new output (with_kwargs: hook(module, args, kwargs,
    output)), run after every module's forward, before the module's own forward hooks."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=[_global_forward_hooks_with_kwargs, _global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    hooks_registered[0] += 1
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle
