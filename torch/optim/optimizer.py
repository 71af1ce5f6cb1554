"""Optimizer: the base of every optimizer, as PyTorch's (torch/optim/optimizer.py). It holds the
parameter groups (each a dict of the hyperparameters plus 'params'), the per-parameter state (a
defaultdict keyed by the parameter tensor), and turns both into PyTorch's state_dict structure:
parameters become indices in group order, counted across groups."""
from __future__ import annotations

import functools
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any, TypeAlias, TypeVar
import warnings

import torch
from torch import Tensor

from torch.optim._hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

ParamsT: TypeAlias = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]
StateDict: TypeAlias = dict[str, Any]
Args: TypeAlias = tuple[Any, ...]
Kwargs: TypeAlias = dict[str, Any]
OptimizerPreHook: TypeAlias = Callable[["Optimizer", Args, Kwargs], "tuple[Args, Kwargs] | None"]
OptimizerPostHook: TypeAlias = Callable[["Optimizer", Args, Kwargs], None]
_F = TypeVar("_F", bound=Callable[..., Any])


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks: OrderedDict[int, OptimizerPreHook] = OrderedDict()
_global_optimizer_post_hooks: OrderedDict[int, OptimizerPostHook] = OrderedDict()


def register_optimizer_step_pre_hook(hook: OptimizerPreHook) -> RemovableHandle:
    """A step pre-hook for every optimizer: hook(optimizer, args, kwargs) -> None or (args, kwargs)."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: OptimizerPostHook) -> RemovableHandle:
    """A step post-hook for every optimizer: hook(optimizer, args, kwargs) -> None."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _typename(obj: object) -> str:
    """torch.typename: 'torch.FloatTensor' for a tensor, the qualified type name otherwise."""
    if isinstance(obj, Tensor):
        return str(obj.type())
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _to_scalar(x: Any) -> Any:
    """A hyperparameter as PyTorch's optimizers take it: a 1-element tensor squeezed to 0-dim,
    anything else as is."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _scalar(x: Any) -> Any:
    """A hyperparameter as the update formulas use it: a Python number (a tensor that does not
    require grad gives its value, as PyTorch's Scalar arguments do)."""
    if isinstance(x, Tensor):
        return x.item()
    return x


def _get_scalar_dtype() -> torch.dtype:
    """The dtype of the 'step' counters: float64 under a float64 default dtype, else float32."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def _use_grad_for_differentiable(func: _F) -> _F:
    """Runs step with grad mode set to the optimizer's `differentiable` default (off normally),
    so the in-place updates of leaf parameters are not recorded."""

    @functools.wraps(func)
    def _use_grad(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        prev = torch.is_grad_enabled()
        torch.set_grad_enabled(bool(self.defaults["differentiable"]))
        try:
            return func(self, *args, **kwargs)
        finally:
            torch.set_grad_enabled(prev)

    return _use_grad  # type: ignore[return-value]


def _with_step_hooks(step: _F) -> _F:
    """Wraps a class's step so the global and per-optimizer step hooks run around it (PyTorch's
    profile_hook_step). A step reached through super() from a subclass's step runs bare."""

    @functools.wraps(step)
    def step_with_hooks(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        if not (self._optimizer_step_pre_hooks or self._optimizer_step_post_hooks
                or _global_optimizer_pre_hooks or _global_optimizer_post_hooks) \
                or type(self).step is not step_with_hooks:
            return step(self, *args, **kwargs)
        full_args: Args = (self, *args)
        for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, full_args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    full_args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
        out = step(*full_args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
            post_hook(self, full_args, kwargs)
        return out

    step_with_hooks.hooked = True  # type: ignore[attr-defined]
    return step_with_hooks  # type: ignore[return-value]


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of :class:`torch.Tensor` s or :class:`dict` s.
            Specifies what Tensors should be optimized.
        defaults: (dict): a dict containing default values of optimization options (used when a
            parameter group doesn't specify them).
    """

    OptimizerPreHook: TypeAlias = OptimizerPreHook
    OptimizerPostHook: TypeAlias = OptimizerPostHook

    defaults: dict[str, Any]
    state: defaultdict[Any, Any]
    param_groups: list[dict[str, Any]]
    _optimizer_step_pre_hooks: OrderedDict[int, OptimizerPreHook]
    _optimizer_step_post_hooks: OrderedDict[int, OptimizerPostHook]
    _optimizer_state_dict_pre_hooks: OrderedDict[int, Callable[[Optimizer], None]]
    _optimizer_state_dict_post_hooks: OrderedDict[int, Callable[[Optimizer, StateDict], StateDict | None]]
    _optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable[[Optimizer, StateDict], StateDict | None]]
    _optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable[[Optimizer], None]]

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._init_hook_dicts()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups: list[Any] = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def _patch_step_function(self) -> None:
        """Run the step hooks around this class's step, as PyTorch patches it when the first
        instance is made: a subclass that never runs Optimizer.__init__ (a wrapper around another
        optimizer) keeps its bare step."""
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)  # type: ignore[method-assign]

    def _init_hook_dicts(self) -> None:
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    # Options an older pickle's param groups may lack, with the values they meant then (each
    # optimizer's own); _STEP_TENSORS: its per-parameter 'step' is a tensor in PyTorch's format.
    _GROUP_DEFAULTS: dict[str, Any] = {}
    _STEP_TENSORS = False

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_hook_dicts()
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for name, value in self._GROUP_DEFAULTS.items():
                group.setdefault(name, value)
        if self._STEP_TENSORS:
            self._steps_as_tensors()

    @staticmethod
    def _check_fused(fused: bool | None, differentiable: bool, foreach: bool | None) -> None:
        """PyTorch's checks of the fused option (Ember runs the single-tensor path either way)."""
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _steps_as_tensors(self) -> None:
        """Old pickles kept each parameter's 'step' as a number: make it PyTorch's float32 0-dim tensor."""
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if "step" in p_state and not isinstance(p_state["step"], torch.Tensor):
                    p_state["step"] = torch.tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    @staticmethod
    def _evaluate(closure: Callable[[], Any] | None) -> Any:
        """The closure's loss (computed with grad enabled, as step runs without), or None."""
        if closure is None:
            return None
        with torch.enable_grad():
            return closure()

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        return format_string + ")"

    # ---- hooks -------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: OptimizerPreHook) -> RemovableHandle:
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), called before step."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: OptimizerPostHook) -> RemovableHandle:
        """hook(optimizer, args, kwargs) -> None, called after step."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    @staticmethod
    def _register(hooks: OrderedDict[int, Any], hook: Any, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook: Callable[[Optimizer], None],
                                     prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) -> None, called before state_dict builds its dict."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable[[Optimizer, StateDict], StateDict | None],
                                      prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) -> state_dict or None, called on the built dict."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable[[Optimizer, StateDict], StateDict | None],
                                          prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) -> state_dict or None, called before loading."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[[Optimizer], None],
                                           prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) -> None, called after loading."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state_dict ----------------------------------------------------------------------------
    def state_dict(self) -> StateDict:
        """{'state': {index: per-parameter state}, 'param_groups': [{hyperparameters..., 'params':
        [indices]}]}: parameters are numbered in group order; the state tensors are not copied."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start_index):
                param_mappings.setdefault(id(p), i)
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict: StateDict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param: Tensor, value: Tensor, param_id: Any,
                                                 param_groups: list[dict[Any, Any]],
                                                 key: Hashable = None) -> Tensor:
        """A loaded state tensor for `param`: 'step' stays as saved (float32 on the device for
        capturable or fused groups); floating params get their dtype and device, others the device."""
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=torch.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Loads a state_dict made by state_dict(): the saved indices map, in order, onto this
        optimizer's parameters; state tensors are cast to each parameter's dtype and device."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        saved_param_groups = state_dict["param_groups"]

        def _cast(param: Tensor, value: Any, param_id: Any, key: Hashable = None) -> Any:
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id,
                                                                          saved_param_groups, key)
            if isinstance(value, dict):
                return {k: _cast(param, v, param_id, key=k) for k, v in value.items()}
            if isinstance(value, (str, bytes)):
                return value
            if isinstance(value, Iterable):
                return type(value)(_cast(param, v, param_id) for v in value)  # type: ignore[call-arg]
            return value

        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, k)
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ---- gradients and groups ------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Sets every parameter's .grad to None (set_to_none=True), or detaches and zeroes it."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if grad.grad_fn is not None:
                            grad.detach_()
                        else:
                            grad.requires_grad_(False)
                        grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        r"""Perform a single optimization step to update parameter.

        Args:
            closure (Callable): A closure that reevaluates the model and returns the loss.
                Optional for most optimizers.
        """
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group: its options fall back to the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)

        tensors: list[Any] = []
        names: list[Any] = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        param_set: set[Tensor] = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current} to the optimizer")
        if not param_set.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
