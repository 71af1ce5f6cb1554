"""AOT autograd: a captured graph that autograd records, split into a forward and a backward graph compiled
ahead of time (PyTorch's AOTAutograd, here beside the capture whose tracer it uses).

The captured graph runs once more under the operator tracer, with its inputs and the parameters it reads
(lifted to inputs) as leaves, followed by torch.autograd.grad of its differentiable outputs with tangent
placeholders: the engine's backward operators are recorded too, in one joint graph. The nodes that do not
depend on a tangent form the forward graph, which returns the outputs and the values the backward reads
(the saved tensors); the others form the backward graph. Pointwise values the backward reads whose own
inputs it has anyway are recomputed there instead of saved. Both graphs are compiled by the backend's
inner compiler (fused kernels for inductor) and run as one autograd.Function, so Ember's engine still
drives backward, accumulates gradients and runs hooks. The joint trace runs the graph for real: the random
generators are put back afterwards and every input is traced on a copy (the buffers the graph writes are
written once, by the program's own call). The compiled kernels read memory by the strides they were traced
with, so inputs and incoming gradients of another layout are copied into that layout first.

Graphs this cannot take run as captured (through autograd, operator by operator): an input that requires
grad written in place, an output that is an input or shares its memory, a backward that reads a tensor's
value, an autograd.Function applied (torch._dynamo.function_applications)."""
from __future__ import annotations

import itertools
import operator
import sys
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch import _logging
from torch._dynamo.capture import _CaptureTracer
from torch._dynamo.function_applications import FunctionApplication
from torch.autograd import graph as _engine
from torch.autograd.function import Function
from torch.fx._lazy_graph_module import _LazyGraphModule
from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.node import Node, map_arg

__all__ = ["aot_compile"]

Compiler = Callable[[GraphModule, list[Any]], Callable[..., Any]]


def _run(graph_module: GraphModule, inputs: list[Any], lifted: dict[str, Any]) -> list[Any]:
    """graph_module's graph run operator by operator, with the lifted get_attrs read from `lifted`."""
    env: dict[Node, Any] = {}
    position = 0
    for node in graph_module.graph.nodes:
        if node.op == "placeholder":
            env[node] = inputs[position]
            position += 1
        elif node.op == "get_attr":
            env[node] = lifted[node.target] if node.target in lifted else operator.attrgetter(node.target)(graph_module)
        elif node.op == "call_function":
            args = map_arg(node.args, env.__getitem__)
            kwargs = map_arg(node.kwargs, env.__getitem__)
            env[node] = node.target(*args, **kwargs)
        elif node.op == "output":
            return list(map_arg(node.args[0], env.__getitem__))
    raise AssertionError("a graph without an output")


class _Unsupported(Exception):
    """The graph cannot go through AOT autograd (see the module's docstring)."""


def _shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a is b or (a.numel() > 0 and b.numel() > 0
                      and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())


@dataclass
class _Joint:
    graph: Graph
    constants: torch.nn.Module          # what the joint graph's get_attrs read
    lifted: list[str]                   # the get_attrs of tensors, made inputs (parameters, buffers)
    n_outputs: int
    differentiable: list[bool]          # per forward output
    wanted: list[int]                   # the primals that take a gradient
    primal_strides: list[tuple[int, ...]]   # the layouts the compiled graphs read (the kernels bake them in)
    tangent_strides: list[tuple[int, ...]]
    written: list[int]                  # the primals the forward writes into


def _joint(graph_module: GraphModule, example_inputs: list[Any]) -> _Joint:
    """The forward and backward of graph_module traced into one graph."""
    graph = graph_module.graph
    lifted = [n.target for n in graph.nodes
              if n.op == "get_attr" and isinstance(operator.attrgetter(n.target)(graph_module), torch.Tensor)]
    values = list(example_inputs) + [operator.attrgetter(name)(graph_module) for name in lifted]
    joint = Graph()
    tracer = _CaptureTracer(joint, torch.nn.Module())
    primals = []
    for i, value in enumerate(values):
        # traced on copies: what the graph writes (running statistics...) is written once, by the program's call
        leaf = value.detach().clone().requires_grad_(value.requires_grad)
        tracer.bind(leaf, joint.placeholder(f"primals_{i + 1}"))
        primals.append(leaf)
    versions = [p._version for p in primals]
    generators = _rng_states(graph)
    try:
        with torch.enable_grad(), tracer:
            outputs = _run(graph_module, primals[:len(example_inputs)],
                           dict(zip(lifted, primals[len(example_inputs):])))
    finally:
        _restore_rng_states(generators)
    if any(isinstance(o, torch.Tensor) and _shares_memory(o, p) for o in outputs for p in primals):
        raise _Unsupported("an output shares memory with an input")
    if any(p.requires_grad and p._version != v for p, v in zip(primals, versions)):
        raise _Unsupported("an input that requires grad is written in place")
    differentiable = [isinstance(o, torch.Tensor) and o.requires_grad for o in outputs]
    wanted = [i for i, p in enumerate(primals) if p.requires_grad]
    tangents = [torch.ones_like(o) for o, d in zip(outputs, differentiable) if d]
    for i, tangent in enumerate(tangents):
        tracer.bind(tangent, joint.placeholder(f"tangents_{i + 1}"))
    with tracer:
        grads = torch.autograd.grad([o for o, d in zip(outputs, differentiable) if d], [primals[i] for i in wanted],
                                    tangents, allow_unused=True)
    joint.output(tuple([tracer.node_of(o) for o in outputs] + [None if g is None else tracer.node_of(g)
                                                                 for g in grads]))
    written = _batch_norm_statistics(joint, tracer)
    return _Joint(joint, tracer.constants, lifted, len(outputs), differentiable, wanted,
                  [tuple(p.stride()) for p in primals], [tuple(t.stride()) for t in tangents],
                  [i for i, (p, v) in enumerate(zip(primals, versions))
                   if p._version != v or any(_shares_memory(w, p) for w in written)])


def _batch_norm_statistics(graph: Graph, tracer: Any) -> list[torch.Tensor]:
    """The running statistics a training batch norm of the graph writes (views of inputs too): native_batch_norm
    writes them without a version bump (as PyTorch's, whose schema does not mark them written)."""
    tensor_of = {node: tensor for tensor, node in tracer.nodes.values()}
    written: list[torch.Tensor] = []
    for node in graph.nodes:
        if node.target is torch.ops.aten.native_batch_norm.default and len(node.args) > 5 and node.args[5]:
            written += [tensor_of[a] for a in node.args[3:5] if isinstance(a, torch.fx.Node) and a in tensor_of]
    return written


def _rng_states(graph: Graph) -> list[tuple[Any, Any]]:
    """The random generators' states: the CPU's, CUDA's when it is in use, and those of the program's own that
    graph's operators draw from (torch.rand(..., generator=g))."""
    states: list[tuple[Any, Any]] = [(torch.set_rng_state, torch.get_rng_state())]
    cuda = sys.modules.get("torch.cuda")
    if cuda is not None and cuda.is_initialized():
        states.append((cuda.set_rng_state_all, cuda.get_rng_state_all()))
    given = {id(v): v for node in graph.nodes for v in [*node.args, *node.kwargs.values()]
             if isinstance(v, torch.Generator)}
    states += [(generator.set_state, generator.get_state()) for generator in given.values()]
    return states


def _restore_rng_states(states: list[tuple[Any, Any]]) -> None:
    for restore, state in states:
        restore(state)


def _partition(joint: Graph, n_outputs: int, n_primals: int) -> tuple[Graph, Graph]:
    """The forward graph (primals -> outputs and saved values) and the backward graph (saved values and
    tangents -> gradients)."""
    placeholders = [n for n in joint.nodes if n.op == "placeholder"]
    tangents = set(placeholders[n_primals:])
    backward: set[Node] = set()
    for node in joint.nodes:
        if node in tangents or (node.op == "call_function" and any(a in backward for a in node.all_input_nodes)):
            backward.add(node)
    output = joint.output_node()
    results: list[Any] = list(output.args[0])  # type: ignore[arg-type]
    gradients = set(results[n_outputs:])
    recompute = _recomputable(joint, backward, tangents)
    saved: list[Node] = []
    for node in joint.nodes:
        if node in backward or node.op == "output" or node in recompute:
            continue
        # read by the backward, recomputed there, or a gradient itself (a value that needs no tangent)
        if any(u in backward or u in recompute or (u is output and node in gradients) for u in node.users):
            saved.append(node)
    forward_graph: Graph = Graph()
    env: dict[Node, Node] = {}
    for node in joint.nodes:
        if node.op == "output":
            break
        if node in backward or node in recompute:
            continue
        env[node] = forward_graph.node_copy(node, env.__getitem__)
    forward_graph.output(tuple(env[r] for r in results[:n_outputs]) + tuple(env[s] for s in saved))
    backward_graph: Graph = Graph()
    benv: dict[Node, Node] = {}
    for node in [*saved, *placeholders[n_primals:]]:
        # with the joint trace's metadata: the backward's compiler fuses what reads them
        benv[node] = backward_graph.placeholder(f"saved_{node.name}" if node in saved else node.name)
        benv[node].meta.update(node.meta)
    for node in joint.nodes:
        if node in recompute or (node in backward and node.op != "placeholder"):
            benv[node] = backward_graph.node_copy(node, benv.__getitem__)
    backward_graph.output(tuple(None if r is None else benv[r] for r in results[n_outputs:]))
    return forward_graph, backward_graph


def _sources(forward: Graph, n_outputs: int) -> frozenset[int]:
    """The indices of the primals (the forward graph's inputs) its saved values are computed from (or are)."""
    index = {node: i for i, node in enumerate(n for n in forward.nodes if n.op == "placeholder")}
    found: set[int] = set()
    seen: set[Node] = set()
    results: list[Any] = list(forward.output_node().args[0])  # type: ignore[arg-type]
    stack = [n for n in results[n_outputs:] if isinstance(n, Node)]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node in index:
            found.add(index[node])
        stack.extend(node.all_input_nodes)
    return frozenset(found)


# Tensors made of constants (an embedding's backward starts from zeros the size of its weight): made where the
# backward needs them, not made by the forward and kept alive until the backward runs.
_FACTORIES = ("zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "new_zeros", "new_full")


def _recomputable(joint: Graph, backward: set[Node], tangents: set[Node]) -> set[Node]:
    """Forward pointwise nodes and constant tensors only the backward reads whose inputs the backward has anyway
    (a primal, or a value it reads): cheaper to recompute there than to save (PyTorch's partitioner recomputes
    such ops)."""
    from torch._inductor.formulas import lower
    output = joint.output_node()
    chosen: set[Node] = set()
    needed = {a for n in backward for a in n.all_input_nodes if a not in backward}
    factories = {getattr(torch.ops.aten, name).default for name in _FACTORIES}
    for node in joint.nodes:
        if node.op != "call_function" or node in backward or (lower(node) is None and node.target not in factories):
            continue
        if any(u is output or (u not in backward and u not in chosen) for u in node.users):
            continue            # the forward needs it anyway
        inputs_at_hand = all(a.op == "placeholder" or a in needed or a in chosen for a in node.all_input_nodes)
        if inputs_at_hand and not node.is_impure():
            chosen.add(node)
    return chosen


_aot_graph_ids = itertools.count()


def aot_compile(graph_module: GraphModule, example_inputs: list[Any], inner: Compiler) -> Callable[..., Any] | None:
    """graph_module compiled as a forward and a backward graph (each by inner), run as one autograd.Function;
    None when the graph cannot go through AOT autograd."""
    if any(isinstance(node.target, FunctionApplication) for node in graph_module.graph.nodes):
        return None             # its Function's Python runs at each call (torch._dynamo.function_applications)
    try:
        joint = _joint(graph_module, example_inputs)
    except (_Unsupported, RuntimeError):
        return None
    n_primals = len(example_inputs) + len(joint.lifted)
    forward_graph, backward_graph = _partition(joint.graph, joint.n_outputs, n_primals)
    sources = _sources(forward_graph, joint.n_outputs)
    lifted = [operator.attrgetter(name)(graph_module) for name in joint.lifted]
    forward_module = _LazyGraphModule(joint.constants, forward_graph)
    backward_module = _LazyGraphModule(joint.constants, backward_graph)
    if _logging.artifact_enabled("aot_graphs"):
        number = next(_aot_graph_ids)
        for kind, module in (("Forward", forward_module), ("Backward", backward_module)):
            _logging.log_artifact("aot_graphs", f"TRACED GRAPH\n ===== {kind} graph {number} =====\n"
                                  + module.print_readable(print_output=False))
    with torch.no_grad():
        forward = inner(forward_module, list(example_inputs) + lifted)
        backward = inner(backward_module, [])
    return _runner(forward, backward, lifted, joint, n_primals, sources)


def _laid_out(tensor: Any, stride: tuple[int, ...]) -> Any:
    """tensor with the strides a compiled graph was traced with (a copy, differentiable, where they differ:
    the graphs' kernels read memory by those strides)."""
    if not isinstance(tensor, torch.Tensor) or tuple(tensor.stride()) == stride:
        return tensor
    out = torch.empty_strided(tuple(tensor.shape), stride, dtype=tensor.dtype, device=tensor.device)
    return out.copy_(tensor)


class _NoDoubleBackward(Function):
    """The gradients a compiled backward computes under create_graph=True (compute() gives them): differentiating
    them again raises PyTorch's error."""

    @staticmethod
    def forward(ctx: Any, compute: Callable[[], Any], *anchors: Any) -> Any:
        return tuple(compute())

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError("torch.compile with aot_autograd does not currently support double backward")


_ANCHOR = torch.empty(0, requires_grad=True)        # gives _NoDoubleBackward's results a node in the graph


def _refusing(ctx: Any, compute: Callable[[], Any], grads: tuple[Any, ...], sources: frozenset[int]) -> tuple[Any, ...]:
    """compute()'s gradients from a _NoDoubleBackward node whose edges lead to the incoming gradients' nodes and
    where the compiled node's edges to the inputs its saved values are computed from lead (PyTorch's node
    reaches the inputs through its saved tensors): differentiated again with respect to such an input, they
    reach the refusal rather than "appears to not have been used"; with respect to another, they do not."""
    computed = _NoDoubleBackward.apply(compute, _ANCHOR, *[g for g in grads if isinstance(g, torch.Tensor)])
    node = next((t.grad_fn for t in computed if isinstance(t, torch.Tensor) and t.grad_fn is not None), None)
    if node is not None:
        reached = [e for i, e in enumerate(ctx.next_edges) if i in sources and e.function is not None]
        _engine.set_next_edges(node, [*node.next_edges, *reached])
    return computed


def _runner(forward: Callable[..., Any], backward: Callable[..., Any], lifted: list[Any], joint: _Joint,
            n_primals: int, sources: frozenset[int]) -> Callable[..., Any]:
    n_outputs, differentiable, wanted = joint.n_outputs, joint.differentiable, joint.wanted

    class CompiledFunction(Function):
        @staticmethod
        def forward(ctx: Any, *primals: Any) -> Any:
            results = forward(*primals)
            outputs, saved = results[:n_outputs], results[n_outputs:]
            ctx.save_for_backward(*saved)
            ctx.mark_non_differentiable(*[o for o, d in zip(outputs, differentiable)
                                          if not d and isinstance(o, torch.Tensor)])
            return tuple(outputs)

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            def compute() -> Any:
                with torch.no_grad():
                    tangents = [_laid_out(g, stride) for g, stride in
                                zip([g for g, d in zip(grads, differentiable) if d], joint.tangent_strides)]
                    return backward(*ctx.saved_tensors, *tangents)

            # under create_graph=True the gradients hang from a node that refuses to be differentiated, as
            # PyTorch's compiled backward does: a second-order term is never silently dropped
            computed = _refusing(ctx, compute, grads, sources) if torch.is_grad_enabled() else compute()
            result: list[Any] = [None] * n_primals
            for index, grad in zip(wanted, computed):
                result[index] = grad
            return tuple(result)

    def run(*inputs: Any) -> Any:
        given = [*inputs, *lifted]
        primals = [_laid_out(t, stride) for t, stride in zip(given, joint.primal_strides)]
        outputs = CompiledFunction.apply(*primals)
        for i in joint.written:             # a write into a re-laid-out copy goes back to the program's tensor
            if primals[i] is not given[i]:
                with torch.no_grad():
                    given[i].copy_(primals[i])
        return outputs
    return run
