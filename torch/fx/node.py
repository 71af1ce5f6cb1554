"""torch.fx.node: Node, one operation of a Graph (a doubly linked list through the Graph's root
sentinel), and the helpers that walk and print nested arguments."""
from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import math
import operator
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional, TypeVar, Union

import torch
from torch._ops import OpOverload, OpOverloadPacket
from torch.fx._tensor_text import _tensor_summary
from torch.fx.immutable_collections import immutable_dict, immutable_list

if TYPE_CHECKING:
    from torch.fx.graph import Graph

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

BaseArgumentTypes = Union[str, int, float, bool, complex, torch.dtype, torch.Tensor, torch.device,
                          torch.memory_format, torch.layout]
base_types: tuple[type, ...] = (str, int, float, bool, complex, torch.dtype, torch.Tensor, torch.device,
                                torch.memory_format, torch.layout)

Target = Union[Callable[..., Any], str]
Argument = Optional[Union[tuple["Argument", ...], Sequence["Argument"], Mapping[str, "Argument"], slice, range,
                          "Node", BaseArgumentTypes]]
ArgumentT = TypeVar("ArgumentT")
_F = TypeVar("_F", bound=Callable[..., Any])

# the opcodes a Graph's nodes may carry (Graph.lint accepts these); a Node may also be a graph's "root" sentinel
_GRAPH_OPCODES = frozenset(("placeholder", "get_attr", "call_function", "call_method", "call_module", "output"))


def _present(holder: object, *names: str) -> set[Callable[..., Any]]:
    """The functions among holder.<name> that this build defines."""
    return {fn for fn in (getattr(holder, name, None) for name in names) if callable(fn)}


# Calls dead-code elimination must keep although nothing reads their result: assertions, grad-mode and
# autocast switches, and torch's sampling functions (dropping one would shift every later draw).
_side_effectful_functions: set[Callable[..., Any]] = {
    operator.setitem,
    *_present(torch, "_assert", "_assert_async", "bernoulli", "multinomial", "normal", "poisson", "rand", "rand_like",
              "randint", "randint_like", "randn", "randn_like", "randperm"),
    *_present(torch._C, "_set_grad_enabled"),
    *_present(getattr(torch, "amp", None), "_enter_autocast", "_exit_autocast"),
}

# aten operators that draw from the random generator (PyTorch tags them nondeterministic_seeded)
_SEEDED_ATEN_OPS = frozenset({
    "_scaled_dot_product_flash_attention_for_cpu", "alpha_dropout", "bernoulli", "dropout", "feature_alpha_dropout",
    "feature_dropout", "multinomial", "native_dropout", "normal", "rand", "rand_like", "randint", "randint_like",
    "randn", "randn_like", "randperm", "rrelu", "scaled_dot_product_attention",
})


def has_side_effect(fn: _F) -> _F:
    """Mark fn so that Graph.eliminate_dead_code keeps its call nodes."""
    _side_effectful_functions.add(fn)
    return fn


# -- names of callables, as generated code and printouts spell them ------------------------------------------------

# Where a PyTorch user reaches torch's functions; Ember defines many in private binding modules
# (torch._C._gen_relu), so a function is named by the first of these that holds that very object.
_PUBLIC_NAMESPACES = ("torch", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft", "torch._C._nn")
_public_path_cache: dict[int, tuple[object, str | None]] = {}


def _is_public_module(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))


def _public_torch_path(func: object) -> str | None:
    """The dotted name under ``torch`` a user would write for func, or None if torch does not export it."""
    cached = _public_path_cache.get(id(func))
    if cached is not None and cached[0] is func:
        return cached[1]
    name = getattr(func, "__name__", None)
    module = getattr(func, "__module__", None)
    path: str | None = None
    # the torch module itself is the `torch` global, not something reached through it
    if isinstance(name, str) and name != "torch":
        if isinstance(module, str) and module.startswith("torch") and _is_public_module(module) \
                and getattr(sys.modules.get(module), name, None) is func:
            path = f"{module}.{name}"
        else:
            for namespace in _PUBLIC_NAMESPACES:
                try:
                    holder = importlib.import_module(namespace)
                except ImportError:
                    continue
                if getattr(holder, name, None) is func:
                    path = f"{namespace}.{name}"
                    break
    _public_path_cache[id(func)] = (func, path)
    return path


def _module_name_of(fn: Callable[..., Any]) -> str:
    """fn's __module__; a C function without one is named by the torch namespace that exports it."""
    module_name: str | None = getattr(fn, "__module__", None)
    if module_name is not None:
        return module_name
    for space in (torch, torch.nn.functional):
        if getattr(space, fn.__name__, None) is fn:
            return space.__name__
    raise RuntimeError(f"cannot find module for {fn}")


def _is_tensor_method(func: object, name: str) -> bool:
    return name != "__init__" and getattr(torch.Tensor, name, None) is func


def _lambda_binding(fn: Callable[..., Any]) -> str:
    """A lambda is called by the name it is assigned to: the source text before its first '='."""
    try:
        source = inspect.getsource(fn)
    except Exception as e:
        raise RuntimeError("Unable to represent lambda") from e
    binding, _, _ = source.partition("=")
    return binding.strip()


def _get_qualified_name(func: Callable[..., Any]) -> str:
    """The importable dotted name of func: 'getattr', 'torch.relu', 'operator.add' (as '_operator.add'),
    'torch.Tensor.add', or '<module>.<name>' for other functions."""
    name = func.__name__
    if getattr(builtins, name, None) is func:
        return name
    if _is_tensor_method(func, name):
        return f"torch.Tensor.{name}"
    if name == "<lambda>":
        name = _lambda_binding(func)
    module = _module_name_of(func)
    if module.partition(".")[0] in ("torch", "c10", "aten"):
        public = _public_torch_path(func)
        if public is not None:
            return public
    return f"{module.replace('torch._ops', 'torch.ops')}.{name}"


def _annotation_text(annotation: object) -> str:
    """A type annotation as printed: 'torch.Tensor', 'int' (builtins bare), functions by name, else repr()."""
    # list[int] passes isinstance(..., type) but prints through repr like other generic aliases
    if isinstance(annotation, types.GenericAlias) or not isinstance(annotation, type):
        if isinstance(annotation, types.FunctionType):
            return annotation.__name__
        return "..." if annotation is Ellipsis else repr(annotation)
    parts = [annotation.__module__, annotation.__qualname__]
    return ".".join(parts[1:] if parts[0] == "builtins" else parts)


def _typename(obj: object) -> str:
    """torch.typename: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, torch.Tensor):
        return obj.type()
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ in ("builtins", "__builtin__") else f"{cls.__module__}.{cls.__qualname__}"


def _printed_arg(arg: object, max_list_len: float = float("inf")) -> str:
    """An argument as Graph printouts show it: %name for nodes, str() for leaves (strings unquoted);
    the outermost list or tuple is cut after max_list_len items, with its full length noted."""
    if hasattr(arg, "_custom_fx_repr_fn"):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, Node):
        return f"%{arg}"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{key}: {_printed_arg(value)}" for key, value in arg.items()) + "}"
    if not isinstance(arg, (list, tuple)):
        return str(arg)
    shown = arg if len(arg) <= max_list_len else arg[:max(0, math.ceil(max_list_len))]
    text = ", ".join(_printed_arg(item) for item in shown)
    if isinstance(arg, tuple) and len(arg) == 1:
        text += ","
    if len(arg) - 1 >= max_list_len:
        text += f", ...[total_len={len(arg)}]"
    return f"[{text}]" if isinstance(arg, list) else f"({text})"


# the modules whose functions printouts qualify by a module name of their own choosing
_PRINTED_MODULE_NAMES = {"builtins": "builtins", "_operator": "operator"}


def _printed_target(target: object) -> str:
    """The target= field of a printed node: strings as they are, builtins and operators by their
    familiar module ('builtins.getattr', 'operator.add'), other callables by qualified name."""
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if name is not None and module in _PRINTED_MODULE_NAMES:
        return f"{_PRINTED_MODULE_NAMES[module]}.{name}"
    return _get_qualified_name(target)  # type: ignore[arg-type]


# -- walking nested arguments -------------------------------------------------------------------------------------

def map_aggregate(a: ArgumentT, fn: Callable[[Argument], Argument]) -> ArgumentT:
    """Apply fn to every leaf of a (tuples, lists, dicts, slices), rebuilding the same structure;
    lists and dicts come back as immutable_list and immutable_dict."""
    def rebuild(value: Any) -> Any:
        if isinstance(value, dict):
            return immutable_dict({key: rebuild(item) for key, item in value.items()})
        if isinstance(value, slice):
            return slice(*[rebuild(part) for part in (value.start, value.stop, value.step)])
        if not isinstance(value, (list, tuple)):
            return fn(value)
        members = [rebuild(item) for item in value]
        if isinstance(value, list):
            return immutable_list(members)
        # a namedtuple is rebuilt as its own class; any other tuple (torch.Size too) as a plain tuple
        return type(value)(*members) if hasattr(value, "_fields") else tuple(members)

    return rebuild(a)


def map_arg(a: ArgumentT, fn: Callable[[Node], Argument]) -> ArgumentT:
    """Apply fn to every Node inside a, keeping the structure around them."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, functools.partial(_apply_to_node, fn))


def _apply_to_node(fn: Callable[[Node], Argument], leaf: Argument) -> Argument:  # map_arg's leaf function
    return fn(leaf) if isinstance(leaf, Node) else leaf


_POSITION_GAP = 1 << 32


def _chain(left: Node, right: Node) -> None:  # right follows left in their graph's ring
    left._next = right
    right._prev = left


def _target_problem(op: str, target: object) -> str | None:
    """Why target does not suit op (call_function wants a callable, other ops a str); None if it does."""
    if op == "call_function":
        return None if callable(target) else f"has type {_typename(target)} but a Callable is expected"
    if op != "root" and op not in _GRAPH_OPCODES:
        raise AssertionError(f"op '{op}' is not in _legal_ops")
    return None if isinstance(target, str) else f"has type {_typename(target)} but a str is expected"


class Node:
    """One operation of a Graph. ``op`` is one of placeholder (a function input), get_attr (a fetch
    from the module hierarchy), call_function, call_module, call_method (self is args[0]) and
    output (returns args[0]); ``target`` is what is called or fetched; ``name`` is the variable the
    result is bound to in generated code."""

    def __init__(self, graph: Graph, name: str, op: str, target: Target, args: tuple[Argument, ...],
                 kwargs: dict[str, Argument], return_type: Any | None = None) -> None:
        problem = _target_problem(op, target)
        if problem is not None:
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} {problem}")
        self.graph: Graph = graph
        self.name: str = name
        self.op: str = op
        self.target: Target = target
        self.type: Any | None = return_type
        self.users: dict[Node, None] = {}
        self.meta: dict[str, Any] = {}
        self._input_nodes: dict[Node, None] = {}
        self._args: tuple[Argument, ...] = ()
        self._kwargs: dict[str, Argument] = immutable_dict()
        self._repr_fn: Callable[[Node], str] | None = None
        self._erased = False
        # order key: larger further down the graph (see _take_position)
        self._position = 0
        self._prev: Node = self
        self._next: Node = self
        self._update_args_kwargs(args, kwargs)

    # -- position in the graph's list -----------------------------------------------------------------------------
    @property
    def next(self) -> Node:
        """The Node after this one in the graph."""
        return self._next

    @property
    def prev(self) -> Node:
        """The Node before this one in the graph."""
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move x (a Node of the same graph) to just before this Node."""
        self._splice(x, behind=False)

    def append(self, x: Node) -> None:
        """Move x (a Node of the same graph) to just after this Node."""
        self._splice(x, behind=True)

    def _splice(self, moved: Node, behind: bool) -> None:
        """Unlink moved from wherever it is and relink it on one side of this Node."""
        if moved.graph is not self.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if moved is self:
            return  # a Node next to itself stays where it is
        moved._unlink()
        left = self if behind else self._prev
        right = left._next
        _chain(left, moved)
        _chain(moved, right)
        moved._take_position()

    def _unlink(self) -> None:  # this Node keeps its own links (see graph._NodeSequence)
        _chain(self._prev, self._next)

    def _take_position(self) -> None:
        """Give this just-linked Node an order key between its neighbours' keys. Keys are spaced
        _POSITION_GAP apart; when two neighbours leave no room, the whole graph is renumbered."""
        low = self._prev._position  # the root sentinel's key is 0
        if self._next is self.graph._root:
            self._position = low + _POSITION_GAP
        elif self._next._position - low > 1:
            self._position = (low + self._next._position) // 2
        else:
            for index, node in enumerate(self.graph.nodes, start=1):
                node._position = index * _POSITION_GAP

    # Nodes order by their place in the graph (an erased node keeps its last place)
    def __lt__(self, other: object) -> bool:
        return self._position < other._position if isinstance(other, Node) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self._position > other._position if isinstance(other, Node) else NotImplemented

    def __le__(self, other: object) -> bool:
        return (self is other or self < other) if isinstance(other, Node) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return (self is other or self > other) if isinstance(other, Node) else NotImplemented

    # -- arguments --------------------------------------------------------------------------------------------------
    @property
    def args(self) -> tuple[Argument, ...]:
        """The positional arguments; assign a new tuple to change them (users are kept in step)."""
        return self._args

    @args.setter
    def args(self, a: tuple[Argument, ...]) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict[str, Argument]:
        """The keyword arguments; assign a new dict to change them (users are kept in step)."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k: dict[str, Argument]) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list[Node]:
        """The Nodes among args and kwargs, in order of appearance, each once."""
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg: Argument) -> None:
        """Set ``args[idx]`` to arg."""
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg: Argument) -> None:
        """Insert arg into args before position idx."""
        if not 0 <= idx <= len(self.args):
            raise AssertionError(f"insert_args index must be between 0 and len(self.args), got {idx}")
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key: str, arg: Argument) -> None:
        """Set ``kwargs[key]`` to arg."""
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, new_args: tuple[Argument, ...], new_kwargs: dict[str, Argument]) -> None:
        new_inputs: dict[Node, None] = {}

        def note(leaf: Argument) -> Argument:  # the copying pass also lists the Nodes, in order
            if isinstance(leaf, Node):
                new_inputs.setdefault(leaf)
            return leaf

        # a tracer's nodes mostly take Nodes and numbers: such a tuple is kept as it is, without the walk
        if type(new_args) is tuple and all(type(a) in _FLAT_LEAVES for a in new_args):
            for a in new_args:
                if type(a) is Node:
                    new_inputs.setdefault(a)
            self._args = new_args
        else:
            self._args = map_aggregate(new_args, note)
        self._kwargs = map_aggregate(new_kwargs, note) if new_kwargs else immutable_dict()
        for dropped in self._input_nodes.keys() - new_inputs.keys():
            dropped.users.pop(self, None)
        for new_input in new_inputs:
            new_input.users.setdefault(self)
        self._input_nodes = new_inputs

    @property
    def stack_trace(self) -> str | None:
        """The Python stack trace recorded while tracing, if any."""
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace: str | None) -> None:
        self.meta["stack_trace"] = trace

    # -- rewriting uses ---------------------------------------------------------------------------------------------
    def replace_all_uses_with(self, replace_with: Node, delete_user_cb: Callable[[Node], bool] | None = None, *,
                              propagate_meta: bool = False) -> list[Node]:
        """Make every user of this Node read replace_with instead (only those delete_user_cb accepts,
        when given); returns the users changed."""
        if propagate_meta and replace_with.meta:
            raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                                 "but replace_with already has .meta keys")
        if propagate_meta:
            replace_with.meta.update(self.meta)
        accepted = [user for user in tuple(self.users) if delete_user_cb is None or delete_user_cb(user)]
        for user in accepted:
            user._replace_input_with(self, replace_with)
        return accepted

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read new_input wherever this Node's arguments read old_input."""
        self._replace_input_with(old_input, new_input)

    def _replace_input_with(self, old_input: Node, new_input: Node) -> None:
        substitutes = {old_input: new_input}
        self._rewire(lambda used: substitutes.get(used, used))

    def _rewire(self, substitute: Callable[[Node], Argument]) -> None:
        """Put substitute(input) in place of every input Node of args and kwargs (users kept in step)."""
        self._update_args_kwargs(map_arg(self._args, substitute), map_arg(self._kwargs, substitute))

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether dead-code elimination must keep this Node although nothing reads it: inputs, the
        output, side-effecting calls, operators that write to an argument or return nothing, modules flagged
        ``_is_impure`` and callables so flagged, and (with impure_random) aten operators that sample random
        numbers."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_module":
            owner = self.graph.owning_module
            if owner is None:
                raise AssertionError("self.graph.owning_module not set for purity check")
            return bool(getattr(owner.get_submodule(str(self.target)), "_is_impure", False))
        if self.op != "call_function":
            return False
        if self.target in _side_effectful_functions or getattr(self.target, "_is_impure", False):
            return True
        overload: Any = self.target
        if isinstance(overload, OpOverloadPacket):  # a packet calls its default overload
            overload = overload.default if "default" in overload.overloads() else None
        if not isinstance(overload, OpOverload):
            return False
        schema = overload._schema
        if not schema.returns or any(getattr(argument, "is_write", False) for argument in schema.arguments):
            return True         # (an operator that returns nothing is called for what it does: a check)
        packet = overload.overloadpacket
        return impure_random and packet._namespace == "aten" and packet._opname in _SEEDED_ATEN_OPS

    # -- printing ---------------------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        if self._repr_fn is not None:
            return self._repr_fn(self)
        return self.name

    def format_node(self, placeholder_names: list[str] | None = None,
                    maybe_return_typename: list[str] | None = None, *,
                    include_tensor_metadata: bool = False) -> str | None:
        """This Node as one line of ``str(graph)``. A placeholder is instead added to a non-empty
        placeholder_names (returning None); the output records its type in maybe_return_typename."""
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_annotation_text(self.type)}"
            return f"return {self.args[0]}"
        if self.op == "placeholder" and placeholder_names:
            # PyTorch's signature entry repeats the name before a type: "xx: int"
            entry = f"{self.target}{self.target}: {_annotation_text(self.type)}" if self.type else str(self.target)
            placeholder_names.append(entry)
            return None
        head = f"%{self.name} : {self._printed_type(include_tensor_metadata)}[num_users={len(self.users)}] = "
        body = f"{self.op}[target={_printed_target(self.target)}]"
        if self.op == "placeholder":
            return head + body + (f"(default={self.args[0]})" if self.args else "")
        if self.op == "get_attr":
            return head + body
        return f"{head}{body}(args = {_printed_arg(self.args)}, kwargs = {_printed_arg(self.kwargs)})"

    def _printed_type(self, include_tensor_metadata: bool) -> str:
        """The type between ':' and '[num_users=...]': the annotation (placeholders only when it is
        truthy), or with include_tensor_metadata a call's recorded tensor value."""
        if include_tensor_metadata and self.op.startswith("call_"):
            recorded = self.meta["val"] if "val" in self.meta else self.meta.get("example_value")
            if isinstance(recorded, torch.Tensor):
                return _tensor_summary(recorded)
        shown = bool(self.type) if self.op == "placeholder" else self.type is not None
        return f"{_annotation_text(self.type)} " if shown else ""


# leaves a node's args hold as they are (map_aggregate would hand back the same values)
_FLAT_LEAVES = frozenset({Node, int, float, bool, str, type(None), torch.dtype, torch.device, torch.layout,
                          torch.memory_format})
