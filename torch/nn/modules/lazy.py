"""LazyModuleMixin: modules whose parameter shapes are inferred from the first input (PyTorch's
torch/nn/modules/lazy.py contract).

A lazy module holds UninitializedParameter/UninitializedBuffer entries. A forward pre-hook calls
`initialize_parameters(*args, **kwargs)` on the first call, which materializes them; the hook then
removes itself and the module's class becomes `cls_to_become` (LazyLinear -> Linear), so an
initialised lazy module is indistinguishable from one built with the sizes."""
from __future__ import annotations

import itertools
from typing import Any

import torch
from torch.nn.parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixin (listed before the module class) for modules that infer their parameter shapes from
    their first input. Subclasses implement `initialize_parameters` and may set `cls_to_become`."""

    cls_to_become: type[Any] | None = None
    _parameters: dict[str, Any]
    _buffers: dict[str, Any]
    _non_persistent_buffers_set: set[str]
    _load_state_dict_pre_hooks: dict[int, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        module: Any = self
        # Stored bare (PyTorch's with_module=False form): the loader calls it without the module.
        self._load_hook = module._add_hook(self._load_state_dict_pre_hooks, self._lazy_load_hook, False)
        self._initialize_hook = module.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        # Uninitialised entries are saved as they are (not detached), so loading them back into a
        # lazy module keeps it lazy.
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if (is_lazy(param) or keep_vars) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if (is_lazy(buf) or keep_vars) else buf.detach()

    def _lazy_load_hook(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                        missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        """Materialize each uninitialised entry that the state_dict has a real tensor for, so the
        ordinary copy (and its shape check) follows."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and not is_lazy(state_dict[key]):
                with torch.no_grad():
                    param.materialize(state_dict[key].shape)

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        # NB: an uninitialised entry loaded over an uninitialised one has nothing to copy (PyTorch
        # copies an empty tensor), but Module's loader reads both shapes, which raise. Those entries
        # are hidden from it here, keeping their keys expected.
        both_lazy = [name for name, value in itertools.chain(self._parameters.items(), self._buffers.items())
                     if is_lazy(value) and is_lazy(state_dict.get(prefix + name))]
        if not both_lazy:
            super()._load_from_state_dict(  # type: ignore[misc]
                state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
            return
        stores = (self._parameters, self._buffers)
        saved = [dict(store) for store in stores]
        hidden = {prefix + name: state_dict.pop(prefix + name) for name in both_lazy}
        for store in stores:
            for name in both_lazy:
                store.pop(name, None)
        try:
            super()._load_from_state_dict(  # type: ignore[misc]
                state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        finally:
            state_dict.update(hidden)
            for store, before in zip(stores, saved):
                now = dict(store)
                store.clear()
                store.update((name, now.get(name, value)) for name, value in before.items())

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize the uninitialised parameters from the first forward's arguments."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer is still uninitialised."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module: Any, args: Any, kwargs: Any = None) -> None:
        """The forward pre-hook: initialise, check, then turn into cls_to_become."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
