"""nn.Module's state_dict and load_state_dict (PyTorch's keys, metadata, errors and result)."""
from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, NamedTuple

import torch
from torch import Tensor

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]


class _IncompatibleKeys(IncompatibleKeys):
    """load_state_dict's result: the keys the module expected but did not get, and the reverse."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class StateDictMixin:
    """state_dict / load_state_dict of nn.Module."""

    _version: int
    _parameters: dict[str, Any]
    _buffers: dict[str, Any]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Any]
    _state_dict_hooks: dict[int, Any]
    _state_dict_pre_hooks: dict[int, Any]
    _load_state_dict_pre_hooks: dict[int, Any]
    _load_state_dict_post_hooks: dict[int, Any]

    def get_extra_state(self) -> Any:
        """Extra state for state_dict (override together with set_extra_state)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state: Any) -> None:
        """Restore what get_extra_state returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def _has_extra_state(self) -> bool:
        return getattr(type(self), "get_extra_state", None) is not StateDictMixin.get_extra_state

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._has_extra_state():
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False) -> Any:
        """An OrderedDict of parameters and persistent buffers by dotted name (detached unless
        keep_vars), with PyTorch's `_metadata` (each module's version)."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            if destination is None and len(args) > 0:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        from torch.nn.parameter import Parameter
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(input_param)}")
                continue
            if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with torch.no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param, requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                                  f"an exception occurred : {ex.args}.")
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(type(self), "set_extra_state", None) is not StateDictMixin.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and buffers from state_dict (assign=True: take its tensors instead).

        Raises:
            RuntimeError: with strict=True, listing missing and unexpected keys; and for size
                mismatches whatever strict is.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state = OrderedDict(state_dict)

        def load(module: Any, local_state: dict[str, Any], prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing_keys, unexpected_keys,
                                         error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items() if k.startswith(child_prefix)}, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")

        load(self, state)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)
