"""torch.fx.interpreter: Interpreter runs a GraphModule node by node (one overridable method per
opcode), and Transformer reruns it on Proxies to build a new, rewritten GraphModule."""
from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import torch
from torch.fx._symbolic_trace import Tracer
from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.node import Argument, Node, Target, map_aggregate, map_arg
from torch.fx.proxy import Proxy

__all__ = ["Interpreter", "Transformer"]

_TLPARSE_HINT = ("Use tlparse to see full graph. "
                 "(https://github.com/pytorch/tlparse?tab=readme-ov-file#tlparse-parse-structured-pt2-logs)")


def _where_it_failed(node: Node) -> str:
    """The note appended to an error raised while running node: the node, and where it was traced from."""
    return "\n".join((f"While executing {node.format_node()}", "Original traceback:", str(node.stack_trace),
                      _TLPARSE_HINT))


def _append_to_message(exc: BaseException, note: str) -> None:
    """Put note under the message (the first of exc.args), or make it the message when there is none."""
    if not exc.args:
        exc.args = (note,)
        return
    message, *others = exc.args
    exc.args = (f"{message}\n\n{note}", *others)


def _last_uses(graph: Graph) -> dict[Node, list[Node]]:
    """For each node, the inputs that no later node reads: their values can go once it has run."""
    freed_by: dict[Node, list[Node]] = {}
    already_claimed: set[Node] = set()
    # walking backwards, the first reader met is the last one to run
    for reader in reversed(graph.nodes):
        fresh = [value for value in reader._input_nodes if value not in already_claimed]
        if fresh:
            already_claimed.update(fresh)
            freed_by[reader] = fresh
    return freed_by


# what next() gives back once the inputs are used up (None could be a real input)
_NO_INPUT: Any = object()


class Interpreter:
    """Executes a graph one node at a time: ``run`` calls ``run_node``, which dispatches to the method
    named by the node's opcode (placeholder, get_attr, call_function, call_method, call_module,
    output); override those to change what a node does."""

    def __init__(self, module: torch.nn.Module, garbage_collect_values: bool = True,
                 graph: Graph | None = None) -> None:
        self.module = module
        self.graph: Graph = self.module.graph if graph is None else graph
        self.garbage_collect_values = garbage_collect_values
        # each value is dropped right after its last use, as the generated code does
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        if garbage_collect_values:
            self.user_to_last_uses = _last_uses(self.graph)
        self.submodules = {qualname: sub for qualname, sub in module.named_modules()}
        self.extra_traceback = True
        self.name = "Interpreter"
        self.env: dict[Node, Any] = {}
        self.args_iter: Iterator[Any] = iter(())

    def run(self, *args: Any, initial_env: dict[Node, Any] | None = None, enable_io_processing: bool = True) -> Any:
        """Run the graph on args (positional, in placeholder order); initial_env pre-sets node values."""
        self.env = initial_env if initial_env is not None else {}
        feed = self.graph.process_inputs(*args) if enable_io_processing else args
        self.args_iter = iter(feed)
        # nodes the caller already supplied are skipped; the walk stops at the first output node computed
        finished_at = next((node for node in self.graph.nodes if node not in self.env and self._step(node)), None)
        if finished_at is None:
            return None
        returned = self.env[finished_at]
        return self.graph.process_outputs(returned) if enable_io_processing else returned

    def _step(self, node: Node) -> bool:
        """Compute node into env, release the values it was the last reader of; True once the output ran."""
        self.env[node] = self._evaluate(node)
        if self.garbage_collect_values:
            for spent in self.user_to_last_uses.get(node, ()):
                self.env.pop(spent)
        return node.op == "output"

    def _evaluate(self, node: Node) -> Any:
        try:
            return self.run_node(node)
        except Exception as exc:
            if not self.extra_traceback:
                raise
            _append_to_message(exc, _where_it_failed(node))
            if isinstance(exc, KeyError):
                # str(KeyError) is the repr of its argument, which would show the note's newlines as \n
                raise RuntimeError(*exc.args) from exc
            raise

    def boxed_run(self, args_list: list[Any]) -> Any:
        """Run with the inputs in a list that is cleared, so the caller's references don't keep them alive."""
        inputs = [node for node in self.graph.nodes if node.op == "placeholder"]
        surplus = len(args_list) - len(inputs)
        if surplus:
            why = "missing arguments" if surplus < 0 else "extra arguments"
            raise RuntimeError(f"Interpreter.boxed_run expected {len(inputs)} arguments for placeholders "
                               f"but received {len(args_list)} ({why})")
        preset = {node: args_list[slot] for slot, node in enumerate(inputs)}
        del args_list[:]
        return self.run(initial_env=preset)

    def run_node(self, n: Node) -> Any:
        """Fetch n's argument values and call the method for its opcode."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        handler = getattr(self, n.op)
        return handler(n.target, args, kwargs)

    # -- one method per opcode ----------------------------------------------------------------------------------------
    def placeholder(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """The next input (all remaining ones for ``*args``), else the parameter's default (``args[0]``)."""
        assert isinstance(target, str)
        if target.startswith("*"):
            return list(self.args_iter)
        supplied = next(self.args_iter, _NO_INPUT)
        if supplied is not _NO_INPUT:
            return supplied
        if args:
            return args[0]
        raise RuntimeError(f"Expected positional argument for parameter {target}, "
                           "but one was not passed in!") from StopIteration()

    def get_attr(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """The module attribute at the dotted target."""
        assert isinstance(target, str)
        return self.fetch_attr(target)

    def call_function(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """Call the node's function on the argument values."""
        assert not isinstance(target, str)
        return target(*args, **kwargs)

    def call_method(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """Call method target of the first argument on the others."""
        assert isinstance(target, str)
        bound = getattr(args[0], target)
        return bound(*args[1:], **kwargs)

    def call_module(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """Call the submodule at the dotted target."""
        assert isinstance(target, str)
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """The value the graph returns."""
        return args[0]

    # -- helpers ------------------------------------------------------------------------------------------------------
    def fetch_attr(self, target: str) -> Any:
        """The attribute of the module at dotted target."""
        found: Any = self.module
        reached: list[str] = []
        for atom in target.split("."):
            reached.append(atom)
            try:
                found = getattr(found, atom)
            except AttributeError:
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(reached)}") from None
        return found

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """n's args and kwargs with each input Node replaced by its computed value."""
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        assert isinstance(args, tuple) and isinstance(kwargs, dict)
        return args, kwargs

    def map_nodes_to_values(self, args: Argument, n: Node) -> Argument:
        """args (of node n) with every Node in it replaced by the value computed for it."""
        env = self.env

        def value_of(producer: Node) -> Any:
            try:
                return env[producer]
            except KeyError:
                raise RuntimeError(f"Node {n} referenced nonexistent value {producer}! Run Graph.lint() "
                                   "to diagnose such issues") from None

        return map_arg(args, value_of)


class _ReplayTracer(Tracer):
    """The tracer a Transformer records through: it appends to the Transformer's new graph, resolves
    attributes against the module being transformed, and keeps every submodule call as one node."""

    def __init__(self, into: Graph, root: torch.nn.Module) -> None:
        super().__init__()
        self.tensor_attrs = {}
        self.root = root
        self.graph = into

    def is_leaf_module(self, m: torch.nn.Module, module_qualified_name: str) -> bool:
        return True


def _graph_like(template: Graph) -> Graph:
    """An empty graph generating code the way template does."""
    empty = Graph()
    empty.set_codegen(template._codegen)
    return empty


class Transformer(Interpreter):
    """Reruns a GraphModule on Proxies, so each opcode method returns a Proxy recorded into a new
    graph; override them to rewrite nodes, then ``transform()`` returns the new GraphModule."""

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = _graph_like(module.graph)
        self.tracer = _ReplayTracer(self.new_graph, module)

    def placeholder(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Proxy:
        """A placeholder of the new graph, keeping the old one's default value."""
        assert isinstance(target, str)
        fallback = inspect.Signature.empty if not args else args[0]
        return Proxy(self.new_graph.placeholder(target, default_value=fallback), self.tracer)

    def get_attr(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Proxy:
        """A get_attr node of the new graph."""
        assert isinstance(target, str)
        return self._replay("get_attr", target, args, kwargs)

    def call_module(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """The submodule call, recorded through the tracer (so a leaf becomes a call_module node)."""
        assert isinstance(target, str)
        return self._replay("call_module", target, args, kwargs)

    def call_function(self, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """A call_function node of the new graph."""
        return self._replay("call_function", target, args, kwargs)

    def _replay(self, opcode: str, target: Target, args: tuple[Argument, ...], kwargs: dict[str, Any]) -> Any:
        """Record one node of kind opcode in the new graph; a submodule goes through the tracer's
        call_module hook (which sees the module object), everything else straight to create_proxy."""
        if opcode != "call_module":
            return self.tracer.create_proxy(opcode, target, args, kwargs)
        assert isinstance(target, str)
        callee = self.fetch_attr(target)
        return self.tracer.call_module(callee, callee.forward, args, kwargs)

    def transform(self) -> GraphModule:
        """The new GraphModule built from what the opcode methods returned."""
        returned = super().run(enable_io_processing=False)
        if returned is not None:
            self._finish_with(returned)
        return GraphModule(self.module, self.new_graph)

    def _finish_with(self, returned: Any) -> None:
        """End the new graph by returning returned (Proxies unwrapped), with the old output node's meta."""
        *_, old_end = self.graph.nodes
        if old_end.op != "output":
            raise AssertionError(f"Expected output node, got op={old_end.op}")
        unwrapped = map_aggregate(returned, lambda leaf: leaf.node if isinstance(leaf, Proxy) else leaf)
        self.new_graph.output(unwrapped).meta.update(old_end.meta)
