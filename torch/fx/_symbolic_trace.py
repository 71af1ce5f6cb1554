"""torch.fx symbolic tracing: Tracer runs a module's forward (or a function) on Proxies and records
what it does as a Graph; symbolic_trace wraps the result in a GraphModule; wrap marks a global
function as a leaf, recorded as one call_function node instead of being traced through."""
from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import math
import sys
import warnings
from collections.abc import Callable, Iterator
from types import FunctionType, ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

import torch
import torch.utils._pytree as pytree
from torch.fx._patching import _find_proxy, _TraceOverrides, register_leaf_function
from torch.fx.graph import Graph
from torch.fx.node import Argument, Node, base_types, has_side_effect
from torch.fx.proxy import ParameterProxy, Proxy, Scope, ScopeContextManager, TracerBase

if TYPE_CHECKING:
    from torch.fx.graph_module import GraphModule

__all__ = ["PH", "ProxyableClassMeta", "Tracer", "symbolic_trace", "wrap", "is_fx_tracing"]

HAS_VARSTUFF = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_F = TypeVar("_F", bound=Callable[..., Any])

# the unpatched implementations, called by the tracing versions installed during a trace
_plain_module_call: Callable[..., Any] = torch.nn.Module.__call__
_plain_module_getattr: Callable[..., Any] = torch.nn.Module.__getattr__
# how many traces are running (a trace may start while another one runs)
_active_traces = 0
# per attribute-name prefix: the suffix number get_fresh_qualname tries first when <prefix>0 is taken;
# shared by all tracers, as PyTorch's is
_qualname_search_start: dict[str, int] = {}


def is_fx_tracing() -> bool:
    """Whether a symbolic trace is running."""
    return _active_traces > 0


@contextlib.contextmanager
def _counted_as_tracing() -> Iterator[None]:
    global _active_traces
    _active_traces += 1
    try:
        yield
    finally:
        _active_traces -= 1


class ProxyableClassMeta(type):
    """A metaclass whose classes, constructed with Proxy arguments while tracing, are recorded as one
    call_function node of the class instead of running __init__ on Proxies; an instance met as an
    argument is stored on the root module as a constant."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        first_proxy = _find_proxy(args, kwargs) if is_fx_tracing() else None
        if first_proxy is None:
            return super().__call__(*args, **kwargs)
        return first_proxy.tracer.create_proxy("call_function", cls, args, kwargs)


class PHBase:
    """The placeholder marker for ``concrete_args``: the value stays a graph input."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()


def _with_plain_parameters(fn: FunctionType, nargs: int) -> FunctionType:
    """A copy of fn taking its first nargs locals as plain positional parameters: its ``*args``,
    ``**kwargs`` and keyword-only parameters each become one positional slot for a Proxy."""
    code = fn.__code__.replace(co_flags=fn.__code__.co_flags & ~HAS_VARSTUFF, co_argcount=nargs,
                               co_posonlyargcount=0, co_kwonlyargcount=0)
    return FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _annotations_of(fn: Callable[..., Any]) -> dict[str, Any]:
    """fn's annotations as the graph records them. Ember's own modules are written with postponed
    (string) annotations where PyTorch's hold the types themselves: those are evaluated, and
    ``Any`` (which PyTorch's sources leave unannotated) is dropped."""
    module = getattr(fn, "__module__", None)
    if not isinstance(module, str) or not module.startswith("torch."):
        return dict(getattr(fn, "__annotations__", {}))
    try:
        annotations = inspect.get_annotations(fn, eval_str=True)
    except Exception:
        return {}
    return {name: value for name, value in annotations.items() if value is not Any}


@has_side_effect
def _assert(condition: Any, message: str) -> None:
    """torch._assert where this build lacks it: the check a specialised concrete argument records."""
    if not condition:
        raise AssertionError(message)


def _assert_is_none(value: Any, msg: str) -> None:
    if value is not None:
        raise AssertionError(msg)


register_leaf_function(globals(), "_assert_is_none")


def _same_object_named(value: Any, named: Iterator[tuple[str, Any]]) -> str | None:
    """The name paired with value itself (identity, not equality) in named, or None."""
    return next((name for name, candidate in named if candidate is value), None)


class Tracer(TracerBase):
    """Records a module's forward (or a function) as a Graph; ``Tracer().trace(m)`` is what
    symbolic_trace does. Override is_leaf_module, call_module, create_arg or getattr to change what
    is recorded. Functions of autowrap_modules (math by default) and autowrap_functions are recorded
    as leaf calls wherever the traced code calls them."""

    def __init__(self, autowrap_modules: tuple[ModuleType, ...] = (math,),
                 autowrap_functions: tuple[Callable[..., Any], ...] = (), param_shapes_constant: bool = False) -> None:
        super().__init__()
        self._leaf_modules: tuple[ModuleType, ...] = tuple(autowrap_modules)
        # ids of the functions recorded as leaves wherever the traced code calls them (math.sqrt...)
        self._leaf_function_ids: set[int] = {id(f) for f in autowrap_functions}
        for module in self._leaf_modules:
            self._leaf_function_ids.update(
                id(member) for attr, member in vars(module).items() if callable(member) and not attr.startswith("_"))
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict[torch.nn.Module, str] | None = None
        self.root_module_name: str = ""
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.num_calls: dict[str, int] = {}
        self.node_name_to_scope = {}
        self.tensor_attrs: dict[Any, str] = {}

    def get_fresh_qualname(self, prefix: str) -> str:
        """An attribute name ``<prefix><n>`` the root module does not have yet."""
        first_try = _qualname_search_start.get(prefix, 0) if hasattr(self.root, f"{prefix}0") else 0
        suffix = first_try
        while hasattr(self.root, f"{prefix}{suffix}"):
            suffix += 1
        _qualname_search_start[prefix] = suffix + 1
        return f"{prefix}{suffix}"

    def create_arg(self, a: Any) -> Argument:
        """As TracerBase.create_arg, plus: parameters, buffers and submodules of the root become
        get_attr nodes, namedtuples a call_function node building them, and other tensors (and
        instances of ProxyableClassMeta classes) are stored on the root as constants."""
        attr_path = self._member_path(a)
        if attr_path is None and isinstance(a, tuple) and hasattr(a, "_fields"):
            fields = tuple(self.create_arg(item) for item in a)
            return self.create_node("call_function", type(a), fields, {})
        if attr_path is None and isinstance(a, torch.Tensor):
            attr_path = self.tensor_attrs.get(a) or self._store_constant(a, "_tensor_constant")
            self.tensor_attrs[a] = attr_path
        if attr_path is None and isinstance(type(a), ProxyableClassMeta):
            attr_path = self._store_constant(a, f"_{type(a).__name__}_constant_")
        if attr_path is None:
            return super().create_arg(a)
        return self.create_node("get_attr", attr_path, (), {})

    def _member_path(self, a: Any) -> str | None:
        """The root's name for a when a is one of its parameters, buffers or submodules."""
        if isinstance(a, torch.nn.Parameter):
            path = _same_object_named(a, self.root.named_parameters())
            if path is None:
                raise NameError("parameter is not a member of this module")
            return path
        if isinstance(a, torch.Tensor):
            return _same_object_named(a, self.root.named_buffers())
        if isinstance(a, torch.nn.Module):
            return _same_object_named(a, self.root.named_modules())
        return None

    def _store_constant(self, value: Any, prefix: str) -> str:
        name = self.get_fresh_qualname(prefix)
        setattr(self.root, name, value)
        return name

    def is_leaf_module(self, m: torch.nn.Module, module_qualified_name: str) -> bool:
        """Whether calls of m are recorded as call_module nodes rather than traced through: by
        default torch.nn's own modules, except Sequential."""
        defined_in = type(m).__module__
        from_torch_nn = defined_in.startswith(("torch.nn", "torch.ao.nn"))
        return from_torch_nn and not isinstance(m, torch.nn.Sequential)

    def path_of_module(self, mod: torch.nn.Module) -> str:
        """The dotted name of mod inside the root ('layer1.conv')."""
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
        else:
            path = _same_object_named(mod, self.root.named_modules())
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m: torch.nn.Module, forward: Callable[..., Any], args: tuple[Any, ...],
                    kwargs: dict[str, Any]) -> Any:
        """A module call met while tracing: a call_module node for a leaf, else its forward traced."""
        path = self.path_of_module(m)
        with self._inside_module(path, type(m)):
            if self.is_leaf_module(m, path):
                return self.create_proxy("call_module", path, args, kwargs)
            return forward(*args, **kwargs)

    @contextlib.contextmanager
    def _inside_module(self, path: str, module_type: type) -> Iterator[None]:
        """Scope and nn_module_stack entry of a module call; a module's later calls get keys
        ``<path>@1``, ``<path>@2``..."""
        calls_so_far = self.num_calls.get(path, 0)
        self.num_calls[path] = calls_so_far + 1
        stack_key = f"{path}@{calls_so_far}" if calls_so_far else path
        with ScopeContextManager(self.scope, Scope(path, module_type)):
            self.module_stack[stack_key] = (path, module_type)
            try:
                yield
            finally:
                popped = next(reversed(self.module_stack))
                if popped != stack_key:
                    raise AssertionError(f"Unexpected key {popped}, expected {stack_key}")
                del self.module_stack[popped]

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict[str, Any]) -> Any:
        """A module attribute read while tracing: a parameter of the root (and a buffer, when
        proxy_buffer_attributes is set) becomes a get_attr Proxy, one per name per trace."""
        path = None
        if isinstance(attr_val, torch.nn.Parameter):
            path = _same_object_named(attr_val, self.root.named_parameters())
        if path is None and self.proxy_buffer_attributes and isinstance(attr_val, torch.Tensor):
            path = _same_object_named(attr_val, self.root.named_buffers())
        if path is None:
            return attr_val
        if path not in parameter_proxy_cache:
            # an override of create_proxy may not take proxy_factory_fn: then it is not passed
            factory_kwargs: dict[str, Any] = {}
            if "proxy_factory_fn" in inspect.signature(self.create_proxy).parameters:
                factory_kwargs["proxy_factory_fn"] = (
                    functools.partial(self._parameter_proxy, name=path, param=attr_val)
                    if self.param_shapes_constant else None)
            parameter_proxy_cache[path] = self.create_proxy("get_attr", path, (), {}, **factory_kwargs)
        return parameter_proxy_cache[path]

    def _parameter_proxy(self, node: Node, name: str, param: Any) -> Proxy:
        return ParameterProxy(self, node, name, param)

    def create_args_for_root(self, root_fn: Callable[..., Any], is_module: bool,
                             concrete_args: dict[str, Any] | tuple[Any, ...] | None = None
                             ) -> tuple[Callable[..., Any], list[Any]]:
        """Placeholders for root_fn's parameters (after self), following its signature: named ones
        first (keyword-only included), then ``*args`` and ``**kwargs`` as one placeholder each, after
        which root_fn is rewritten to take every one of them positionally."""
        analysed = inspect.unwrap(root_fn)
        code = analysed.__code__
        n_named = code.co_argcount + code.co_kwonlyargcount
        named = list(code.co_varnames[:n_named])
        starred: list[str] = []
        if code.co_flags & inspect.CO_VARARGS:
            starred.append("*" + code.co_varnames[n_named + len(starred)])
        if code.co_flags & inspect.CO_VARKEYWORDS:
            starred.append("**" + code.co_varnames[n_named + len(starred)])
        leading: list[Any] = []
        if is_module:
            if not named:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            del named[0]
            leading.append(self.root)
        if isinstance(concrete_args, tuple):
            if len(concrete_args) != len(named):
                raise RuntimeError(f"Tracing expected {len(named)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(named, concrete_args))
        signature = inspect.signature(analysed)
        annotations = _annotations_of(analysed)
        inputs = [self._root_input(name, signature, annotations, concrete_args or {}) for name in named + starred]
        if code.co_kwonlyargcount or starred:
            root_fn = _with_plain_parameters(root_fn, len(leading) + len(inputs))  # type: ignore[arg-type]
        return root_fn, leading + inputs

    def _root_input(self, name: str, signature: inspect.Signature, annotations: dict[str, Any],
                    concrete_args: dict[str, Any]) -> Any:
        """A root parameter's value while tracing: a placeholder Proxy, or its concrete value."""
        default: tuple[Any, ...] = ()
        if not name.startswith("*"):
            declared = signature.parameters[name].default
            default = () if declared is inspect.Parameter.empty else (declared,)
        if name in concrete_args:
            return self._specialize(name, concrete_args[name], default)
        return self.create_proxy("placeholder", name, default, {}, type_expr=annotations.get(name))

    def _specialize(self, name: str, value: Any, default: tuple[Any, ...]) -> Any:
        """A concrete argument: the graph still takes it (as ``<name>_1``) but checks it has the traced
        value, and the traced code sees the value itself (PH keeps it a Proxy)."""
        if not pytree.tree_is_leaf(value):
            raise NotImplementedError(f"concrete_args: only single values are supported, got a structure for {name}")
        received = self.create_proxy("placeholder", f"{name}_1", default, {})
        if isinstance(value, PHBase):
            return received
        message = f"{name} has been specialized to have value {value} but got another value"
        if type(value) is bool or (type(value) in base_types and type(value) is not torch.Tensor):
            self.create_proxy("call_function", getattr(torch, "_assert", _assert), (received == value, message), {})
        elif value is None:
            self.create_proxy("call_function", _assert_is_none, (received, message), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to specialized "
                          "function. It is up to the user to make sure that your inputs match the inputs you "
                          "specialized the function with.")
        return value

    def trace(self, root: torch.nn.Module | Callable[..., Any], concrete_args: dict[str, Any] | None = None) -> Graph:
        """Record root (a Module's forward, or a function) as a Graph; ``self.root`` becomes the module
        constants are stored on (a fresh Module for a function)."""
        with _counted_as_tracing():
            fn = self._take_root(root)
            self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
            code = getattr(fn, "__code__", None)
            if code is not None:
                self.graph._co_fields = {"co_name": code.co_name, "co_filename": code.co_filename,
                                         "co_firstlineno": code.co_firstlineno}
            self.tensor_attrs = self._plain_tensor_attributes()
            if not isinstance(fn, FunctionType):
                raise AssertionError(f"Expected FunctionType, got {type(fn)}")
            searched_first = fn.__globals__
            fn, args = self.create_args_for_root(fn, isinstance(root, torch.nn.Module), concrete_args)
            with _TraceOverrides() as overrides:
                self._record_module_use(overrides)
                overrides.install_registered_leaves()
                for namespace in (searched_first, *(vars(m) for m in self._leaf_modules)):
                    overrides.autowrap(namespace, self._leaf_function_ids)
                result = fn(*args)
                self.create_node("output", "output", (self.create_arg(result),), {},
                                 type_expr=_annotations_of(inspect.unwrap(fn)).get("return"))
            self.submodule_paths = None
        return self.graph

    def _take_root(self, root: torch.nn.Module | Callable[..., Any]) -> Any:
        """Set self.root for root and return the function to trace."""
        if not isinstance(root, torch.nn.Module):
            self.root = torch.nn.Module()
            return root
        self.root = root
        method = getattr(type(root), self.traced_func_name, None)
        if method is None:
            raise AssertionError(f"traced_func_name={self.traced_func_name} doesn't exist in {type(root).__name__}")
        self.root_module_name = root._get_name()
        self.submodule_paths = {module: path for path, module in root.named_modules()}
        return method

    def _plain_tensor_attributes(self) -> dict[Any, str]:
        """Tensors held as plain attributes (neither parameters nor buffers) anywhere under the root,
        by dotted path; a module reached twice keeps the path of its later visit."""
        paths: dict[Any, str] = {}
        to_visit: list[tuple[str, torch.nn.Module]] = [("", self.root)]
        while to_visit:
            prefix, module = to_visit.pop()
            paths.update((value, prefix + key) for key, value in vars(module).items()
                         if isinstance(value, torch.Tensor))
            children = [(f"{prefix}{name}.", child) for name, child in module.named_children()]
            to_visit.extend(reversed(children))
        return paths

    def _record_module_use(self, overrides: _TraceOverrides) -> None:
        """Route every module call and attribute read through this tracer for the trace."""
        proxies_of_parameters: dict[str, Proxy] = {}
        tracer = self

        @functools.wraps(_plain_module_getattr)
        def traced_getattr(module: torch.nn.Module, attr: str) -> Any:
            return tracer.getattr(attr, _plain_module_getattr(module, attr), proxies_of_parameters)

        @functools.wraps(_plain_module_call)
        def traced_call(module: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
            forward_globals = getattr(getattr(module, "forward", None), "__globals__", None)
            if forward_globals is not None:
                overrides.autowrap(forward_globals, tracer._leaf_function_ids)
            return tracer.call_module(module, functools.partial(_plain_module_call, module), args, kwargs)

        overrides.set_class_attribute(torch.nn.Module, "__getattr__", traced_getattr)
        overrides.set_class_attribute(torch.nn.Module, "__call__", traced_call)


def wrap(fn_or_name: _F | str) -> Any:
    """Called at module level with a global function (or its name): calls of it are recorded as one
    call_function node while tracing, not traced through. Usable as a decorator."""
    if isinstance(fn_or_name, str):
        name = fn_or_name
    elif callable(fn_or_name):
        name = fn_or_name.__name__
    else:
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    caller = sys._getframe(1)
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    register_leaf_function(caller.f_globals, name)
    return fn_or_name


def symbolic_trace(root: torch.nn.Module | Callable[..., Any],
                   concrete_args: dict[str, Any] | None = None) -> GraphModule:
    """Trace root (a Module or a function) into a GraphModule; concrete_args fixes some inputs to
    values (e.g. a flag that steers control flow), checked when the result is called."""
    from torch.fx.graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, torch.nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
