"""make_fx: a function traced at the operator level, into a GraphModule of `torch.ops.aten` calls.

The function runs on real tensors under a TorchDispatchMode (the dispatcher's Python key, below
autograd), so the graph holds the operators the kernels ran: composite functions decomposed, and the
backward's operators too when the function calls backward() or torch.autograd.grad. Every tensor an
operator returns is remembered with its node; a tensor the function closes over (a module's parameter,
a constant) becomes a get_attr of the GraphModule (`_param_constant0`, `_tensor_constant0`).

Only tracing_mode="real" exists: "fake" and "symbolic" need FakeTensor and symbolic shapes, which Ember
does not have yet."""
from __future__ import annotations

import contextlib
import functools
import inspect
import operator
from typing import Any, Callable, Iterator

import torch
from torch.fx._codegen import _PyTreeCodeGen, _PyTreeInfo
from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.node import Node
from torch.utils._pytree import tree_flatten, tree_unflatten
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = ["make_fx"]


class _OperatorTracer(TorchDispatchMode):
    """Records each operator call into graph, with the nodes of the tensors it was given."""

    def __init__(self, graph: Graph, constants: torch.nn.Module, decompositions: dict[Any, Callable[..., Any]]):
        super().__init__()
        self.graph = graph
        self.constants = constants
        self.decompositions = decompositions
        # id(tensor) -> (tensor, node): the tensor is kept so that its id is not reused while tracing
        self.nodes: dict[int, tuple[torch.Tensor, Node]] = {}
        self.constant_count = {"_param_constant": 0, "_tensor_constant": 0}

    def bind(self, tensor: torch.Tensor, node: Node) -> None:
        self.nodes[id(tensor)] = (tensor, node)

    def node_of(self, value: Any) -> Any:
        """value as a graph argument: a tensor's node (a get_attr for one no operator made), containers
        mapped element by element, anything else as it is."""
        if isinstance(value, torch.Tensor):
            known = self.nodes.get(id(value))
            if known is not None:
                return known[1]
            if value._is_wrapped_number:        # a Python number the binding wrapped: shown as the number
                return value.item()
            return self._constant(value)
        if isinstance(value, (list, tuple)):   # the schema's lists (int[], Tensor[]) print as lists
            return [self.node_of(v) for v in value]
        if isinstance(value, dict):
            return {k: self.node_of(v) for k, v in value.items()}
        return value

    def _constant(self, tensor: torch.Tensor) -> Node:
        prefix = "_param_constant" if isinstance(tensor, torch.nn.Parameter) else "_tensor_constant"
        name = f"{prefix}{self.constant_count[prefix]}"
        self.constant_count[prefix] += 1
        if isinstance(tensor, torch.nn.Parameter):
            self.constants.register_parameter(name, tensor)
        else:
            setattr(self.constants, name, tensor)
        node = self.graph.get_attr(name)
        self.bind(tensor, node)
        return node

    def __torch_dispatch__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        decomposition = self.decompositions.get(func)
        if decomposition is not None:
            with self:                          # its operators are recorded, not func
                return decomposition(*args, **kwargs)
        result = func(*args, **kwargs)
        call_args, call_kwargs = _without_defaults(func, args, kwargs)
        node = self.graph.create_node("call_function", func, tuple(self.node_of(a) for a in call_args),
                                      self.node_of(call_kwargs), name=func.overloadpacket.__name__)
        self._bind_outputs(result, node)
        return result

    def _bind_outputs(self, result: Any, node: Node) -> None:
        if isinstance(result, torch.Tensor):
            self.bind(result, node)
        elif isinstance(result, (tuple, list)):
            for i, item in enumerate(result):
                if isinstance(item, torch.Tensor):
                    self.bind(item, self.graph.create_node("call_function", operator.getitem, (node, i)))


_DATA_DEPENDENT = ("It appears that you're trying to get value out of a tracing tensor with "
                   "aten._local_scalar_dense.default - erroring out! It's likely that this is caused by data-dependent "
                   "control flow or similar.  It may be possible to trace this with dynamic shapes; try setting "
                   "tracing_mode='symbolic' in your make_fx call.")


@contextlib.contextmanager
def _tensor_reads_traced(tracer: _OperatorTracer, refuse_values: bool) -> Iterator[None]:
    """While tracing: reading a traced tensor's value (item(), and bool/float/int through it) raises PyTorch's
    error instead of baking the value into the graph, and `.data` is recorded as aten.detach. Both read the
    tensor outside the dispatcher, where the mode cannot see them."""
    item, variable_data = torch.Tensor.item, torch.Tensor._variable_data

    def guarded_item(self: Any) -> Any:
        if refuse_values and id(self) in tracer.nodes and not self._is_wrapped_number:
            raise RuntimeError(_DATA_DEPENDENT)
        return item(self)

    def recorded_data(self: Any) -> Any:
        result: Any = variable_data(self)
        known = tracer.nodes.get(id(self))
        if known is not None:
            tracer.bind(result, tracer.graph.create_node("call_function", torch.ops.aten.detach.default,
                                                         (known[1],), {}, name="detach"))
        return result

    setattr(torch.Tensor, "item", guarded_item)
    setattr(torch.Tensor, "_variable_data", recorded_data)
    try:
        yield
    finally:
        del torch.Tensor.item, torch.Tensor._variable_data


def _without_defaults(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...],
                                                                                          dict[str, Any]]:
    """The arguments as PyTorch's graphs show them: keyword-only ones by name, and the trailing positional
    ones and keyword ones equal to the schema's defaults left out."""
    try:
        arguments = func._schema.arguments
    except Exception:       # an operator whose schema cannot be parsed: everything as given
        return args, kwargs
    positional: list[Any] = []
    named: dict[str, Any] = {}
    for arg, value in zip(arguments, args):
        if arg.kwarg_only:
            named[arg.name] = value
        else:
            positional.append(value)
    named.update(kwargs)
    while positional:
        arg = arguments[len(positional) - 1]
        if not (arg.has_default and _same(positional[-1], arg.default_value)):
            break
        positional.pop()
    by_name = {a.name: a for a in arguments}
    kept = {k: v for k, v in named.items()
            if not (k in by_name and by_name[k].has_default and _same(v, by_name[k].default_value))}
    return tuple(positional), kept


def _same(value: Any, default: Any) -> bool:
    if isinstance(value, torch.Tensor) or isinstance(default, torch.Tensor):
        return False
    try:
        return bool(type(value) is type(default) and value == default) or (value is None and default is None)
    except Exception:
        return False


def _placeholder_names(f: Callable[..., Any], args: tuple[Any, ...], count: int) -> list[str]:
    """PyTorch's placeholder names: each parameter's name with _1 (x_1), arg0_1... for *args or a function
    without a signature; a parameter holding a pytree of several values numbers them (d_1, d_2)."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if len(params) < len(args):
        return [f"arg{i}_1" for i in range(count)]
    names: list[str] = []
    for param, value in zip(params, args):
        leaves = len(tree_flatten(value)[0])
        names.extend(f"{param.name}_{i + 1}" for i in range(leaves))
    return names


def _parameter_names(f: Callable[..., Any], count: int) -> list[str]:
    try:
        params = [p.name for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return params[:count] if len(params) >= count else [f"arg{i}" for i in range(count)]


def make_fx(f: Callable[..., Any], decomposition_table: dict[Any, Callable[..., Any]] | None = None,
            tracing_mode: str = "real", _allow_non_fake_inputs: bool = False, *, pre_dispatch: bool = False,
            record_module_stack: bool = False, _allow_fake_constant: bool = False,
            _error_on_data_dependent_ops: bool = True) -> Callable[..., GraphModule]:
    """A function that runs f on its arguments and returns the GraphModule of the operators f ran."""
    if tracing_mode not in ("real", "fake", "symbolic"):
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}")
    if tracing_mode != "real":
        raise NotImplementedError(f"make_fx(tracing_mode={tracing_mode!r}) needs FakeTensor and symbolic shapes, "
                                  "which Ember does not have yet; tracing_mode='real' traces with the real inputs")
    if pre_dispatch:
        raise NotImplementedError("make_fx(pre_dispatch=True) records operators above autograd; Ember's Python key "
                                  "is below autograd only")

    @functools.wraps(f)
    def wrapped(*args: Any) -> GraphModule:
        graph = Graph()
        constants = torch.nn.Module()
        tracer = _OperatorTracer(graph, constants, dict(decomposition_table or {}))
        flat_args, spec = tree_flatten(args)
        for name, value in zip(_placeholder_names(f, args, len(flat_args)), flat_args):
            node = graph.placeholder(name)
            if isinstance(value, torch.Tensor):
                tracer.bind(value, node)
        with _tensor_reads_traced(tracer, _error_on_data_dependent_ops), tracer:
            result = f(*tree_unflatten(flat_args, spec))
        flat_out, out_spec = tree_flatten(result)
        nested = len(flat_args) != len(args)
        if nested:
            # the forward takes f's own parameters and flattens them, as PyTorch's (its _PyTreeCodeGen)
            graph.set_codegen(_PyTreeCodeGen(_PyTreeInfo(_parameter_names(f, len(args)), spec, out_spec)))
            graph.output([tracer.node_of(v) for v in flat_out])
        else:
            graph.output(tree_unflatten([tracer.node_of(v) for v in flat_out], out_spec))
        return GraphModule(constants, graph)

    return wrapped
