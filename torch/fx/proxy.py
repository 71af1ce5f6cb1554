"""torch.fx.proxy: Proxy, the stand-in value that flows through a program during symbolic tracing and
records each operation applied to it as a Node, and TracerBase, which turns those operations into
nodes. torch functions reach a Proxy through the ``__torch_function__`` protocol; Tensor methods
through attribute access; Python operators through the magic methods installed below."""
from __future__ import annotations

import collections
import dataclasses
import dis
import enum
import functools
import inspect
import operator
from collections.abc import Callable, Iterator
from typing import Any, cast

import torch
from torch.fx._codegen import magic_methods, reflectable_magic_methods
from torch.fx.graph import Graph
from torch.fx.node import Argument, Node, Target, base_types, map_arg

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute", "ParameterProxy", "Scope",
           "ScopeContextManager"]


class Scope:
    """The module whose forward is being traced: its dotted path and type."""

    def __init__(self, module_path: str, module_type: Any) -> None:
        self.module_path = module_path
        self.module_type = module_type


class ScopeContextManager:
    """Points a tracer's Scope at another module from construction until the ``with`` block ends."""

    def __init__(self, scope: Scope, current_scope: Scope) -> None:
        self._scope = scope
        self._restore_to = (scope.module_path, scope.module_type)
        _point_scope_at(scope, current_scope.module_path, current_scope.module_type)

    def __enter__(self) -> Scope:
        return self._scope

    def __exit__(self, *args: object) -> None:
        _point_scope_at(self._scope, *self._restore_to)


def _point_scope_at(scope: Scope, module_path: str, module_type: Any) -> None:
    scope.module_path = module_path
    scope.module_type = module_type


class TraceError(ValueError):
    pass


class TracerBase:
    """Turns recorded operations into Nodes of ``self.graph``; subclasses decide how values that are
    not Proxies become node arguments."""

    graph: Graph
    record_stack_traces: bool = False
    check_mutable_operations: bool = False
    trace_asserts: bool = False
    proxy_buffer_attributes: bool = False
    traced_func_name: str = "forward"
    scope: Scope
    module_stack: collections.OrderedDict[str, tuple[str, Any]]
    node_name_to_scope: dict[str, tuple[str, type]]

    def create_node(self, kind: str, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Argument],
                    name: str | None = None, type_expr: Any | None = None) -> Node:
        """Insert a node into the graph; override to check or rewrite what gets recorded."""
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        self.node_name_to_scope[node.name] = (self.scope.module_path, self.scope.module_type)
        if self.module_stack:
            node.meta["nn_module_stack"] = collections.OrderedDict(self.module_stack)
        if self.record_stack_traces and not node.stack_trace:
            node.stack_trace = _user_stack_trace()
        return node

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target: Target, args: tuple[Any, ...], kwargs: dict[str, Any],
                     name: str | None = None, type_expr: Any | None = None,
                     proxy_factory_fn: Callable[[Node], Proxy] | None = None) -> Proxy:
        """Create a node from values (Proxies become their nodes) and wrap it in a Proxy."""
        wrap = proxy_factory_fn or self.proxy
        lowered_args = _lowered_as(self, args, tuple, "args_")
        lowered_kwargs = _lowered_as(self, kwargs, dict, "kwargs_")
        return wrap(self.create_node(kind, target, lowered_args, lowered_kwargs, name, type_expr))

    def create_arg(self, a: Any) -> Argument:
        """Lower a value met while tracing to something a Node can hold as an argument: Proxies become
        their nodes, containers are lowered item by item, a dataclass instance becomes a call_function
        node constructing it from its fields, and plain constants (numbers, strings, dtypes, enum
        members...) are kept as they are."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        for container_type, lower in _CONTAINER_LOWERINGS:
            if isinstance(a, container_type):
                return lower(self, a)
        if dataclasses.is_dataclass(a):
            field_values = {f.name: self.create_arg(getattr(a, f.name)) for f in dataclasses.fields(a)}
            return self.create_node("call_function", type(a), (), field_values)
        if a is None or a is ... or isinstance(a, _CONSTANT_TYPES):
            return cast(Argument, a)
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        """Called when a Proxy is converted to bool (control flow); the value is unknown, so by default
        this is an error."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy) -> Iterator[Any]:
        """Called when a Proxy is iterated; the length is unknown, so by default this is an error."""
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or"
                         " as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the"
                         " Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: Proxy) -> Proxy:
        """Called for ``**proxy``: records a ``keys()`` call."""
        return Attribute(obj, "keys")()


def _lowered_as(tracer: TracerBase, value: Any, expected: type[Any], label: str) -> Any:
    """tracer.create_arg(value), which must still be of the expected container type (an override of
    create_arg might not keep it)."""
    lowered = tracer.create_arg(value)
    if isinstance(lowered, expected):
        return lowered
    raise AssertionError(f"Expected {label} to be {expected.__name__}, got {type(lowered)}")


# Values kept verbatim as node arguments (enum members print as ``Mode.A`` in the generated code).
_CONSTANT_TYPES: tuple[type, ...] = (*base_types, enum.Enum)


def _lower_tuple(tracer: TracerBase, value: tuple[Any, ...]) -> Argument:
    items = [tracer.create_arg(item) for item in value]
    if type(value) is tuple:
        return tuple(items)
    # subclasses keep their type; a namedtuple is built from its fields, any other from one iterable
    rebuild: Any = type(value)
    return rebuild(*items) if hasattr(value, "_fields") else rebuild(items)


def _lower_list(tracer: TracerBase, value: list[Any]) -> Argument:
    return [tracer.create_arg(item) for item in value]


def _lower_dict(tracer: TracerBase, value: dict[Any, Any]) -> Argument:
    return {_lower_key(tracer, key): tracer.create_arg(item) for key, item in value.items()}


def _lower_key(tracer: TracerBase, key: Any) -> Any:
    if isinstance(key, str):
        return key
    lowered = tracer.create_arg(key)

    def reject(node: Node) -> Argument:
        raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {node}")

    map_arg(lowered, reject)
    return lowered


def _lower_slice(tracer: TracerBase, value: slice) -> Argument:
    return slice(*(tracer.create_arg(bound) for bound in (value.start, value.stop, value.step)))


def _lower_range(tracer: TracerBase, value: range) -> Argument:
    return range(*(cast(int, tracer.create_arg(bound)) for bound in (value.start, value.stop, value.step)))


_CONTAINER_LOWERINGS: tuple[tuple[type, Callable[[TracerBase, Any], Argument]], ...] = (
    (tuple, _lower_tuple), (list, _lower_list), (dict, _lower_dict), (slice, _lower_slice), (range, _lower_range))


def _proxies_within(value: Any) -> Iterator[Proxy]:
    """Every Proxy inside value (through tuples, lists, dict values and slices), depth first, in order."""
    if isinstance(value, Proxy):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _proxies_within(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _proxies_within(item)
    elif isinstance(value, slice):
        yield from _proxies_within((value.start, value.stop, value.step))


def _user_stack_trace() -> str:
    import traceback
    frames = [f for f in traceback.extract_stack()[:-1] if "/torch/fx/" not in f.filename.replace("\\", "/")]
    return "".join(traceback.format_list(frames)).strip()


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made around a bare Node: appends to that Node's graph."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}


def assert_fn(x: Any) -> None:
    if not x:
        raise AssertionError("Assertion failed")


class Proxy:
    """A Node wrapper that records the torch functions, Tensor methods and operators applied to it.
    Proxies can't be iterated or used in control flow: wrap such code in a function marked with
    ``torch.fx.wrap``, or specialise it away with ``concrete_args``."""

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        # no node yet: a method call on it becomes one call_method node instead of getattr + call
        return Attribute(self, k)

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__ = d

    def __deepcopy__(self, memo: dict[int, Any]) -> Proxy:
        # without this, copy would look __deepcopy__ up through __getattr__ and record a node
        import copy
        new_proxy = Proxy.__new__(type(self))
        for k, v in self.__dict__.items():
            try:
                new_proxy.__dict__[k] = copy.deepcopy(v, memo)
            except Exception:
                new_proxy.__dict__[k] = copy.copy(v)
        return new_proxy

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self) -> Iterator[Any]:
        # `a, b = proxy` unpacks a known number of values: index them instead of iterating
        frame = inspect.currentframe()
        calling_frame = frame.f_back if frame is not None else None
        if calling_frame is not None:
            instructions = [inst for inst in dis.get_instructions(calling_frame.f_code)
                            if inst.offset == calling_frame.f_lasti]
            if instructions and instructions[0].opname == "UNPACK_SEQUENCE":
                count = instructions[0].argval
                return (self.tracer.create_proxy("call_function", operator.getitem, (self, i), {})
                        for i in range(count))
        return self.tracer.iter(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        if self.tracer.trace_asserts and _in_assert_statement():
            self.tracer.create_proxy("call_function", assert_fn, (self,), {})
            return True
        return self.tracer.to_bool(self)

    def keys(self) -> Proxy:
        return self.tracer.keys(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    @classmethod
    def __torch_function__(cls, orig_method: Callable[..., Any], types: tuple[type, ...],
                           args: tuple[Any, ...] | None = None, kwargs: dict[str, Any] | None = None) -> Proxy:
        call_args, call_kwargs = args or (), kwargs or {}
        recorder = _sole_tracer(cls, orig_method, (call_args, call_kwargs))
        method_name: str = orig_method.__name__
        if not torch.overrides.is_tensor_method_or_property(orig_method):
            return recorder.create_proxy("call_function", orig_method, call_args, call_kwargs,
                                         name=recorder.graph._target_to_str(method_name))
        # a Tensor method or property: recorded by name, on its first argument
        return recorder.create_proxy("call_method", method_name, call_args, call_kwargs)


def _sole_tracer(proxy_type: type[Proxy], orig_method: Callable[..., Any], operands: Any) -> TracerBase:
    """The tracer that owns the proxy_type Proxies among operands; they may not belong to several."""
    seen: list[TracerBase] = []
    for found in _proxies_within(operands):
        if isinstance(found, proxy_type) and found.tracer not in seen:
            seen.append(found.tracer)
    if len(seen) > 1:
        raise RuntimeError(f"Found multiple different tracers {seen} while trying to trace operations {orig_method}")
    return next(iter(seen))  # StopIteration when there is none, as in PyTorch


def _in_assert_statement() -> bool:
    """Whether the bool() being taken is the test of an ``assert`` (two frames up: __bool__'s caller)."""
    frame = inspect.currentframe()
    caller = frame.f_back.f_back if frame is not None and frame.f_back is not None else None
    if caller is None:
        return False
    instructions = list(dis.get_instructions(caller.f_code))
    index = next((i for i, inst in enumerate(instructions) if inst.offset == caller.f_lasti), None)
    if index is None:
        return False
    # an assert is a conditional jump over `LOAD_ASSERTION_ERROR ... RAISE_VARARGS`
    following = instructions[index + 1:index + 3]
    return instructions[index].opname.startswith("POP_JUMP") and any(
        inst.opname == "LOAD_ASSERTION_ERROR" for inst in following)


class Attribute(Proxy):
    """``proxy.name``: a call_method node when called at once (the usual case: ``x.relu()``), otherwise a
    ``getattr`` node, recorded the first time the attribute's own node is needed."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer

    @functools.cached_property
    def node(self) -> Node:  # type: ignore[override]
        return self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


class ParameterProxy(Proxy):
    """A module parameter's Proxy (made when the tracer's ``param_shapes_constant`` is set): shape
    queries are answered from the real parameter instead of being recorded, so code that branches on
    them still traces."""

    def __init__(self, tracer: TracerBase, node: Node, name: str, param: torch.nn.Parameter) -> None:
        super().__init__(node, tracer)
        if not isinstance(param, torch.nn.Parameter):
            raise AssertionError(f"Expected Parameter, got {type(param)}")
        self.param = param
        self.name = name

    def __repr__(self) -> str:
        return f"ParameterProxy({self.name})"

    # answered from the parameter itself
    shape = property(lambda self: self.param.shape)
    ndim = property(lambda self: self.param.ndim)

    def size(self) -> torch.Size:
        return self.param.size()

    def dim(self) -> int:
        return self.param.dim()

    def numel(self) -> int:
        return self.param.numel()

    def nelement(self) -> int:
        return self.param.nelement()


def _operator_recorder(op_name: str, reflected: bool) -> Callable[..., Proxy]:
    """A Proxy dunder recording ``operator.<op_name>`` as a call_function node; a reflected one (``__radd__``)
    receives the other operand first and records it as the left one."""

    def record(self: Proxy, *operands: Any) -> Proxy:
        # resolved per call: the table still lists Python 2's "div", which operator no longer has
        op = getattr(operator, op_name)
        ordered = (operands[0], self) if reflected else (self, *operands)
        return self.tracer.create_proxy("call_function", op, ordered, {})

    record.__name__ = _dunder(op_name, "r") if reflected else op_name
    if reflected:
        record.__qualname__ = record.__name__
    return record


def _dunder(op_name: str, prefix: str = "") -> str:
    return f"__{prefix}{op_name.strip('_')}__"


# Set after the class body, so that defining __eq__ there does not take Proxy's __hash__ away.
for _op_name in magic_methods:
    setattr(Proxy, _dunder(_op_name), _operator_recorder(_op_name, reflected=False))
for _op_name in reflectable_magic_methods:
    setattr(Proxy, _dunder(_op_name, "r"), _operator_recorder(_op_name, reflected=True))
