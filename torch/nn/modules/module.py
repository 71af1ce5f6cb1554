"""nn.Module: the base class of every layer (PyTorch's torch/nn/modules/module.py contract).

Parameters, buffers and submodules live in three ordered dicts (`_parameters`, `_buffers`,
`_modules`) that `__setattr__` fills and `__getattr__` reads, so names, iteration order and
state_dict keys are PyTorch's. Hook registration and `__call__` are in `_hooks.py` (a mixin);
the state_dict machinery is in `_state_dict.py` (a mixin)."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import torch
from torch import Tensor
from torch.nn.modules._hooks import HooksMixin
from torch.utils.hooks import register_module_forward_hook, register_module_forward_pre_hook
from torch.nn.modules._state_dict import StateDictMixin, _IncompatibleKeys  # noqa: F401  (PyTorch names it here)
from torch.nn.parameter import Buffer, Parameter

__all__ = ["Module", "register_module_forward_hook", "register_module_forward_pre_hook"]

T = TypeVar("T", bound="Module")


def _typename(obj: Any) -> str:
    """torch.typename: 'torch.FloatTensor'-style names for tensors, the qualified class otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "")
    name = getattr(type(obj), "__qualname__", type(obj).__name__)
    return name if module in ("builtins", "__builtin__", None, "") else f"{module}.{name}"


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(spaces * " " + line for line in lines)


def _forward_unimplemented(self: Any, *input: Any) -> None:
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module(HooksMixin, StateDictMixin):
    """Base class for all neural network modules; subclasses define `forward` and assign
    parameters, buffers and submodules as attributes in `__init__`."""

    __module__ = "torch.nn.modules.module"

    dump_patches: bool = False
    _version: int = 1
    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    call_super_init: bool = False

    forward: Callable[..., Any] = _forward_unimplemented

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were"
                            " given")
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_modules", {})
        self._init_hook_dicts()
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # -- registration ---------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer (module state that is not a parameter); persistent=False keeps it out of
        state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent   # type: ignore[attr-defined]
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (None registers the name without a tensor)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as the attribute `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias for add_module."""
        self.add_module(name, module)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__

        def remove_from(*stores: Any) -> None:
            for store in stores:
                if name in store:
                    if isinstance(store, dict):
                        del store[name]
                    else:
                        store.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent   # type: ignore[attr-defined]
            else:
                persistent = name not in self._non_persistent_buffers_set
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            remove_from(d, self._parameters, self._modules)
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted(key for key in keys if not key[0].isdigit())

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self._init_hook_dicts(only_missing=True)

    # -- lookup by dotted name --------------------------------------------------------------
    def get_submodule(self, target: str) -> Module:
        """The submodule at a dotted path, e.g. 'net.0' ('' is self)."""
        if target == "":
            return self
        mod: Any = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or with strict=False, add) the submodule at a dotted path."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path, e.g. 'net.0.weight'."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path, e.g. 'bn.running_mean'."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # -- iteration --------------------------------------------------------------------------
    def _named_members(self, get_members: Callable[[Module], Any], prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo: set[Any] = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for key, value in get_members(module):
                if value is None or value in memo:
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield module_prefix + ("." if module_prefix else "") + key, value

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The module's parameters (and its submodules' with recurse=True), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs in registration order, depth first."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The module's buffers (and its submodules' with recurse=True)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) pairs, persistent or not."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self) -> Iterator[Module]:
        """The immediate submodules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, submodule) pairs of the immediate submodules, each once."""
        memo: set[Module] = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self) -> Iterator[Module]:
        """self and every submodule, depth first, each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """(dotted name, module) pairs, self first with name prefix."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    def __hash__(self) -> int:
        return id(self)

    # -- modes and gradients --------------------------------------------------------------
    def train(self: T, mode: bool = True) -> T:
        """Set training mode on self and every submodule (affects Dropout, BatchNorm...)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: T) -> T:
        """train(False)."""
        return self.train(False)

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
        """Set requires_grad on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient: to None (default) or to zeros in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def apply(self: T, fn: Callable[[Module], None]) -> T:
        """Call fn on every submodule (children first) and then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- conversion -------------------------------------------------------------------------
    def _apply(self: T, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> T:
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with torch.no_grad():
                param_applied = fn(param)
            grad = param.grad
            # As PyTorch (without the swap-tensors future flag): the parameter keeps its identity
            # and takes the converted data, so optimizers holding it stay valid.
            param.data = param_applied
            if grad is not None:
                with torch.no_grad():
                    grad.data = fn(grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def cuda(self: T, device: Any = None) -> T:
        """Move every parameter and buffer to a CUDA device."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self: T) -> T:
        """Move every parameter and buffer to the CPU."""
        return self._apply(lambda t: t.cpu())

    def type(self: T, dst_type: Any) -> T:
        """Cast every parameter and buffer to dst_type."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self: T) -> T:
        """Cast floating point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self: T) -> T:
        """Cast floating point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self: T) -> T:
        """Cast floating point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self: T) -> T:
        """Cast floating point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self: T, *, device: Any, recurse: bool = True) -> T:
        """Move parameters and buffers to device without copying their values."""
        return self._apply(lambda t: torch.empty_like(t, device=device), recurse=recurse)

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """to(device=None, dtype=None, non_blocking=False), to(dtype), to(tensor): move and/or
        cast parameters and buffers (dtype casts only floating point ones)."""
        device, dtype, non_blocking = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex "
                            f"dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            return t.to(device, dtype if t.is_floating_point() else None, non_blocking)

        return self._apply(convert)

    # -- repr -------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module-specific part of repr (override it); '' by default."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, Any, bool]:
    """(device, dtype, non_blocking) from Module.to's argument forms (torch._C._nn._parse_to)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = bool(kwargs.pop("non_blocking", False))
    kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword "
                        f"argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        device, dtype = other.device, other.dtype
    elif rest and isinstance(rest[0], torch.dtype):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, int, torch.device))):
        device = rest.pop(0)
        if rest and isinstance(rest[0], torch.dtype):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments - got {tuple(type(a).__name__ for a in args)}")
    if device is not None and not isinstance(device, torch.device):
        device = torch.device(device)
    return device, dtype, non_blocking

