"""torch.utils.hooks: the handle a hook registration returns (PyTorch's RemovableHandle)."""
from __future__ import annotations

import weakref
from collections import OrderedDict
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
