"""torch.fx.graph: Graph, the list of Nodes that makes up one function, with the methods that build,
edit, check and print it and turn it into Python source."""
from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import operator
import types
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

import torch
from torch.fx._codegen import (CodeGen, PythonCode, _custom_builtins, _is_magic, _NameTable,  # noqa: F401
                               _snake_case, inplace_methods, magic_methods, reflectable_magic_methods)
from torch.fx.node import _GRAPH_OPCODES, Argument, Node, Target, _typename, map_arg

if TYPE_CHECKING:
    from torch.fx._symbolic_trace import Tracer
    from torch.fx.graph_module import GraphModule

__all__ = ["Graph", "PythonCode", "CodeGen"]

class _InsertionScope:
    """What inserting_before/inserting_after return. The graph's insertion point moves as soon as it
    is made (with or without ``with``, as in PyTorch); leaving the ``with`` block puts back the one
    that was current when it was made."""

    def __init__(self, graph: Graph, anchor: Node, before: bool) -> None:
        self._graph = graph
        self._saved_cursor = graph._cursor
        graph._cursor = (anchor, before)

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: types.TracebackType | None) -> None:
        self._graph._cursor = self._saved_cursor


class _NodeSequence:
    """graph.nodes: the live nodes in graph order (or reversed). Iterating stays valid while nodes are
    erased or inserted: an erased node keeps its links, so a loop standing on it can still step on."""

    def __init__(self, graph: Graph, backwards: bool = False) -> None:
        self._graph = graph
        self._backwards = backwards

    def __len__(self) -> int:
        return len(self._graph._live)

    def _walk(self, backwards: bool) -> Iterator[Any]:
        sentinel = self._graph._root
        step: Callable[[Node], Node] = _step_back if backwards else _step_on
        node = step(sentinel)
        while node is not sentinel:
            if not node._erased:
                yield node
            node = step(node)

    def __iter__(self) -> Iterator[Any]:
        return self._walk(self._backwards)

    def __reversed__(self) -> Iterator[Any]:
        return self._walk(not self._backwards)


_step_on = operator.attrgetter("_next")
_step_back = operator.attrgetter("_prev")


def _ring_sentinel(graph: Graph) -> Node:
    """The node that closes graph's ring of nodes: its next is the first node and its prev the last."""
    return Node(graph, name="", op="root", target="", args=(), kwargs={})


class Graph:
    """The nodes of one function in execution order: placeholders (inputs), operations, and one
    output node. ``str(graph)`` prints it; ``python_code`` turns it into source."""

    def __init__(self, owning_module: GraphModule | None = None, tracer_cls: type[Tracer] | None = None,
                 tracer_extras: dict[str, Any] | None = None) -> None:
        self._codegen = CodeGen()
        self._co_fields: dict[str, Any] = {}
        self._tracer_cls, self._tracer_extras = tracer_cls, tracer_extras
        self._owning_module = owning_module
        self._names = _NameTable()
        self._root: Node = _ring_sentinel(self)
        self._live: dict[Node, None] = {}  # the graph's nodes in the order they were created
        # new nodes go before (True) or after (False) this node; before the root sentinel is the end
        self._cursor: tuple[Node, bool] = (self._root, True)

    @property
    def owning_module(self) -> GraphModule | None:
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod: GraphModule | None) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _NodeSequence:
        """The nodes as a doubly linked list (``reversed`` works; editing while iterating is safe)."""
        return _NodeSequence(self)

    def output_node(self) -> Node:
        last_nodes = reversed(self.nodes)
        candidate = next(last_nodes)  # an empty graph raises StopIteration, as PyTorch's does
        if candidate.op == "output":
            return candidate
        raise AssertionError(f"Expected output node, got op={candidate.op}")

    def find_nodes(self, *, op: str, target: Target | None = None, sort: bool = True) -> list[Any]:
        """The nodes with this op (and target, when given; call_function needs one), in graph order, or
        in the order they were created when sort is False."""
        if op == "call_function" and target is None:
            raise AssertionError("target must not be None for call_function op")
        pool = self.nodes if sort else self._live
        return [n for n in pool if n.op == op and (target is None or n.target == target)]

    # -- building -----------------------------------------------------------------------------------------------------
    def create_node(self, op: str, target: Target, args: tuple[Argument, ...] | None = None,
                    kwargs: dict[str, Argument] | None = None, name: str | None = None,
                    type_expr: Any | None = None) -> Node:
        """Create a Node at the insert point (the end, unless inserting_before/after moved it)."""
        positional, keywords = _checked_call_parts(args, kwargs)
        claimed = self._fresh_name(target, name)
        node = Node(self, claimed, op, target, positional, keywords, type_expr)
        for hook in getattr(self.owning_module, "_create_node_hooks", None) or ():
            hook(node)
        self._adopt(node, claimed)
        return node

    def _fresh_name(self, target: Target, requested: str | None) -> str:
        """requested, or the name the target suggests, made unique in this graph."""
        return self._names.claim(self._target_to_str(target) if requested is None else requested, None)

    def _adopt(self, node: Node, name: str) -> None:
        """Record a new node's name and link it in at the insertion point."""
        self._names.attach(name, node)
        anchor, before = self._cursor
        (anchor.prepend if before else anchor.append)(node)
        self._live[node] = None

    def placeholder(self, name: str, type_expr: Any | None = None,
                    default_value: Any = inspect.Signature.empty) -> Node:
        """An input of the function; a default_value becomes the parameter's default."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any | None = None) -> Node:
        """A fetch of a parameter, buffer or submodule from the owning module, by dotted name."""
        owner = self.owning_module
        if owner is not None and not _owner_has_attr(owner, qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                          "GraphModule.add_parameter to add the necessary Parameter, or "
                          "nn.Module.register_buffer to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: tuple[Argument, ...] | None = None,
                    kwargs: dict[str, Argument] | None = None, type_expr: Any | None = None) -> Node:
        """A call of the submodule at module_name (args exclude self)."""
        owner = self.owning_module
        # get_submodule raises AttributeError for a missing or non-module target (so does PyTorch's)
        if owner is not None and owner.get_submodule(module_name) is None:
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule")
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: tuple[Argument, ...] | None = None,
                    kwargs: dict[str, Argument] | None = None, type_expr: Any | None = None) -> Node:
        """A call of method_name on args[0]."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable[..., Any], args: tuple[Argument, ...] | None = None,
                      kwargs: dict[str, Argument] | None = None, type_expr: Any | None = None,
                      name: str | None = None) -> Node:
        """A call of a free function (torch.*, operator.*, builtins, or any Python callable)."""
        return self.create_node("call_function", the_function, args, kwargs, name=name, type_expr=type_expr)

    def output(self, result: Argument, type_expr: Any | None = None) -> Node:
        """The return statement of the function."""
        return self.create_node(op="output", target="output", args=(result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Argument] = lambda x: x) -> Node:
        """Copy node (of any graph) into this one; arg_transform maps its input Nodes to this graph's."""
        remap = functools.partial(map_arg, fn=arg_transform)
        twin = self.create_node(node.op, node.target, remap(node.args), remap(node.kwargs), node.name, node.type)
        twin.meta = copy.copy(node.meta)
        return twin

    def graph_copy(self, g: Graph, val_map: dict[Node, Node], return_output_node: bool = False) -> Any:
        """Copy g's nodes into this graph, recording old -> new in val_map (entries already there are
        used instead of copies); returns what g's output returned, mapped into this graph."""
        source_output = self._copy_body(g, val_map)
        if source_output is None:
            return None
        returned = map_arg(source_output.args[0], val_map.__getitem__)
        return (returned, source_output) if return_output_node else returned

    def _copy_body(self, g: Graph, val_map: dict[Node, Node]) -> Node | None:
        """Copy g's nodes up to its output (those not in val_map) and return that output node, if any."""
        for old in [old for old in g.nodes if old not in val_map]:
            if old.op == "output":
                return old
            val_map[old] = self.node_copy(old, val_map.__getitem__)
        return None

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Graph:
        # node by node: copy.deepcopy would recurse along the linked list and overflow the stack
        clone = Graph(tracer_cls=self._tracer_cls)
        clone.set_codegen(copy.deepcopy(self._codegen))
        old_to_new: dict[Node, Node] = memo if memo else {}  # type: ignore[assignment]
        source_output = clone._copy_body(self, old_to_new)
        if source_output is not None:
            returned = map_arg(source_output.args[0], old_to_new.__getitem__)
            new_output = clone.output(returned, type_expr=source_output.type)
            new_output.meta = copy.copy(source_output.meta)
        return clone

    def _target_to_str(self, target: Target | None) -> str:
        """The name a node gets from its target: a callable's __name__ or the string itself, without
        dunder underscores, in snake_case."""
        if callable(target):
            return _snake_case(target.__name__)
        if not isinstance(target, str):
            raise AssertionError(f"Expected target to be str, got {type(target)}")
        return _snake_case(target[2:-2] if _is_magic(target) else target)

    # -- editing ------------------------------------------------------------------------------------------------------
    def erase_node(self, to_erase: Node) -> None:
        """Remove a node that nothing uses any more."""
        users = to_erase.users
        if users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(users)} "
                               f"users in the graph: {users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node")
            return
        for hook in getattr(self.owning_module, "_erase_node_hooks", None) or ():
            hook(to_erase)
        self._live.pop(to_erase, None)
        to_erase._unlink()
        to_erase._erased = True
        # its arguments read None from now on, which takes it out of its inputs' users
        to_erase._rewire(_to_none)

    def inserting_before(self, n: Node | None = None) -> _InsertionScope:
        """Insert new nodes before n (the start of the graph if None); a context manager."""
        return self._insert_next_to(n, "before")

    def inserting_after(self, n: Node | None = None) -> _InsertionScope:
        """Insert new nodes after n (the end of the graph if None); a context manager."""
        return self._insert_next_to(n, "after")

    def _insert_next_to(self, n: Node | None, side: Literal["before", "after"]) -> _InsertionScope:
        if n is None:  # as in PyTorch, the root sentinel from the other side: the start for before, the end for after
            return _InsertionScope(self, self._root, before=side == "after")
        if n.graph is not self:
            raise AssertionError(f"Node to insert {side} is not in graph.")
        return _InsertionScope(self, n, before=side == "before")

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Erase nodes whose results nothing uses and that have no side effect; True if any went."""
        self.lint()
        changed = False
        # backwards, so that erasing a node frees its inputs in the same pass
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def set_codegen(self, codegen: CodeGen) -> None:
        self._codegen = codegen

    def process_inputs(self, *args: Any) -> Any:
        return self._codegen.process_inputs(*args)

    def process_outputs(self, out: Any) -> Any:
        return self._codegen.process_outputs(out)

    # -- checking and printing ----------------------------------------------------------------------------------------
    def lint(self) -> None:
        """Check the graph is well formed: nodes owned by it, used only after they are defined, names
        unique, and (with an owning module) targets that exist."""
        earlier: dict[str, Node] = {}  # the nodes checked so far, by name
        for node in self.nodes:
            self._lint_placement(node, earlier)
            if node.name in earlier:
                raise RuntimeError(f"Node redefined name {node.name}!")
            earlier[node.name] = node
        owner = self.owning_module
        if owner is not None:
            for node in self.nodes:
                _check_target(node, owner)

    def _lint_placement(self, node: Node, earlier: dict[str, Node]) -> None:
        """node's opcode is known, it and its inputs belong to this graph, and each input comes earlier."""
        if node.op not in _GRAPH_OPCODES:
            raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
        if node.graph is not self:
            raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
        for used in node._input_nodes:
            where = f"Argument '{used}' of Node '{node}'"
            if used.graph is not self:
                raise RuntimeError(f"{where} does not belong to this Graph, but was used as an argument! If you are "
                                   "copying nodes from another graph, make sure to use ``arg_transform`` on "
                                   f"node_copy() to remap values\n{self}")
            if earlier.get(used.name) is not used:
                raise RuntimeError(f"{where} was used before it has been defined! Please check that Nodes in the "
                                   f"graph are topologically ordered\n{self}")

    def python_code(self, root_module: str, *, verbose: bool = False, include_stride: bool = False,
                    include_device: bool = False, colored: bool = False) -> PythonCode:
        """The graph as Python source (``src``) and the globals it needs (``globals``); root_module is
        the name get_attr and call_module targets are looked up on, usually 'self'."""
        # Variable names come from a fresh namespace shared with the globals, so a node can't be
        # called like a global function it uses; while generating, a node's repr is its name there.
        variables = _NameTable()
        with _reprs_from(list(self.nodes), variables):
            return self._codegen._gen_python_code(self.nodes, root_module, variables, verbose=verbose,
                                                  include_stride=include_stride, include_device=include_device)

    def __str__(self) -> str:
        # PyTorch lists every node, placeholders included, under a bare "graph():" header
        lines = ["graph():"]
        lines.extend(text for text in map(Node.format_node, self.nodes) if text)
        return "\n    ".join(lines)

    def print_tabular(self) -> None:
        """Print the nodes as a table (needs the ``tabulate`` package)."""
        try:
            from tabulate import tabulate  # type: ignore[import-untyped]
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this machine. "
                  "Run `pip install tabulate` to install the library.")
            raise
        columns = {"opcode": "op", "name": "name", "target": "target", "args": "args", "kwargs": "kwargs"}
        table = [[getattr(node, field) for field in columns.values()] for node in self.nodes]
        print(tabulate(table, headers=list(columns)))


def _to_none(_: Node) -> None:
    return None


def _checked_call_parts(args: tuple[Argument, ...] | None,
                        kwargs: dict[str, Argument] | None) -> tuple[tuple[Argument, ...], dict[str, Argument]]:
    """create_node's args and kwargs, with None (or empty) as () and {}."""
    for given, kind, word in ((args, tuple, "a tuple"), (kwargs, dict, "a dict")):
        if given and not isinstance(given, kind):
            label = "args" if kind is tuple else "kwargs"
            raise AssertionError(f"{label} must be {word}, got {type(given)}")
    return args or (), kwargs or {}


@contextlib.contextmanager
def _reprs_from(nodes: list[Node], table: _NameTable) -> Iterator[None]:
    """While open, each node's repr is the name table hands it (claimed on first use)."""
    previous = [node._repr_fn for node in nodes]
    named = functools.partial(_claimed_name, table)
    for node in nodes:
        node._repr_fn = named
    try:
        yield
    finally:
        for node, repr_fn in zip(nodes, previous):
            node._repr_fn = repr_fn


def _claimed_name(table: _NameTable, node: Node) -> str:
    return table.claim(node.name, node)


def _owner_has_attr(owner: torch.nn.Module, qualified_name: str) -> bool:
    """Whether qualified_name names a submodule, parameter or buffer of owner (warning when the module
    path to it does not exist)."""
    module_path, _, leaf = qualified_name.rpartition(".")
    try:
        holder = owner.get_submodule(module_path)
    except AttributeError:
        holder = None
    if holder is None:
        warnings.warn(f"Failed to fetch module {module_path}!")
        return False
    if leaf in holder._buffers:
        return True
    return isinstance(getattr(holder, leaf, None), (torch.nn.Module, torch.nn.Parameter))


def _check_target(node: Node, owner: torch.nn.Module) -> None:
    """lint's check of one node's target against the owning module."""
    target = node.target
    wants_callable = node.op == "call_function"
    if not (callable(target) if wants_callable else isinstance(target, str)):
        kind = "a Callable" if wants_callable else "a str"
        raise ValueError(f"Node {node} target {target} has type {_typename(target)} but {kind} is expected")
    if node.op in ("get_attr", "call_module"):
        _resolve_path(node, str(target), owner)


def _resolve_path(node: Node, path: str, owner: torch.nn.Module) -> None:
    """Follow path's attributes down from owner; call_module paths must pass through modules only."""
    obj: Any = owner
    walked: list[str] = []
    for atom in path.split("."):
        where = f"{atom} of {'.'.join(walked)}"
        obj = getattr(obj, atom, None)
        if obj is None:
            raise RuntimeError(f"Node {node} target {path} references nonexistent attribute {where}")
        if node.op == "call_module" and not isinstance(obj, torch.nn.Module):
            raise RuntimeError(f"Node {node} target {path} {where} does not reference an nn.Module")
        walked.append(atom)
