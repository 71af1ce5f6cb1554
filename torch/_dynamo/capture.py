"""torch._dynamo.capture: one call of a function, run for real under the operator tracer, into a graph.

Ember captures without rewriting bytecode: the function runs on the real inputs with make_fx's tracer at the
dispatcher's Python key (below autograd), so the graph holds the aten operators the call ran, and the call's own
result is the real one. While it runs, the capture also records what a replay depends on and what it must redo
(torch._dynamo.guards): the attributes read from modules, the optimizers stepped (torch._dynamo.program_reads),
grad mode switches (as torch._C._set_grad_enabled nodes), and attributes assigned on modules (replayed after the
graph runs). A backward or autograd.grad the call runs is traced too (the engine's operators, below autograd, as
the forward's): the graph then holds a whole training step, replayed without autograd, and the gradients the
engine stored in .grad are assignments replayed after it. What a graph cannot hold is a graph break: reading a
traced tensor's value (item(), bool(), tolist(), NumPy), a differentiable backward (create_graph=True), entering
inference mode, calling a module that has hooks or registering a tensor hook (their Python effects would not
replay), setting the generator's state, a Tensor subclass input, a disabled function. The call then finishes
eagerly and the frame runs eagerly for those guards; under fullgraph=True the break raises
torch._dynamo.exc.Unsupported where it happens. The observers (torch._dynamo.observers) patch classes every
thread uses, so one capture runs at a time and sees only its own thread's calls."""
from __future__ import annotations

import dataclasses
import functools
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch._dynamo import call_values, library_arguments, made_results, size_families, utils
from torch._dynamo.array_arguments import bind_converted, converted_arrays
from torch._dynamo.global_reads import LocalUse
from torch._dynamo.graph_passes import elide_fresh_copies
from torch._dynamo.guards import (GuardSet, OfType, Snapshot, TensorGuard, aliasing_of, global_state,
                                  is_plain_value, offset_changed)
from torch._dynamo.loose_arguments import bind_fields, loose_fields, sharing
from torch._dynamo.observers import argument_hooks, observed
from torch._dynamo.program_reads import ProgramReads
from torch._dynamo.tensor_attributes import guard_attributes, guarded_tensors, public_attributes, read_names
from torch._dynamo.writes import Write
from torch.fx.experimental.proxy_tensor import _OperatorTracer
from torch.fx._lazy_graph_module import _LazyGraphModule
from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.passes.shape_prop import _tensor_facts
from torch.utils._pytree import tree_flatten

__all__ = ["Busy", "Captured", "active", "break_graph", "busy", "capture"]

_active: _Capture | None = None
# One capture at a time in the process (its observers patch classes every thread uses; they record only the
# capturing thread's calls). A call that finds another thread capturing runs eagerly (busy()).
_lock = threading.Lock()


class Busy(RuntimeError):
    """A capture was asked for while another thread captures (the call then runs eagerly)."""


def active() -> bool:
    """Whether this thread is capturing (torch.compiler.is_compiling())."""
    return _active is not None and _active.thread == threading.get_ident()


def busy() -> bool:
    """Whether another thread is capturing now."""
    return _active is not None and _active.thread != threading.get_ident()


def break_graph(reason: str) -> None:
    """The running capture cannot hold what comes next: a graph break (Unsupported under fullgraph=True)."""
    if active():
        assert _active is not None
        _active.graph_break(reason)


@dataclass
class Captured:
    """What one capture produced: the graph (None after a graph break), its guards, the module
    attribute writes to replay, and how to rebuild the result from the graph's outputs."""
    graph_module: GraphModule | None
    guards: GuardSet
    example_inputs: list[torch.Tensor]
    tensor_positions: list[int]         # the flat inputs that are the graph's placeholders, in order
    result_leaves: list[Any]            # the result's leaves; a tensor leaf is replaced by an output
    result_outputs: list[int | None]    # per leaf: the graph output holding it, or None (a constant)
    result_spec: Any
    writes: list[Write]
    break_reason: str | None = None
    result: Any = None                  # the captured call's own result
    single_output: bool = False         # the result is the graph's first output alone (one tensor returned)
    runs_backward: bool = False         # the graph holds a backward the call ran: it replays without autograd
    # after a Python side effect: the guards on what the program's functions read (torch._dynamo.side_effects)
    effect_reads: list[Any] | None = None
    kept: list[Any] = dataclasses.field(default_factory=list)     # containers handed back as they are (call_values)
    # the objects the call made, made again by each replay after the graph runs (outputs from the last back)
    made: made_results.MadeObjects | None = None
    passed: list[tuple[int, int]] = dataclasses.field(default_factory=list)    # (leaf, position): an argument itself

    def __post_init__(self) -> None:
        self.single_output = (self.result_spec.num_leaves == 1 and self.result_outputs == [0]
                              and not self.result_spec.children_specs and not self.kept)


class _CaptureTracer(_OperatorTracer):
    """make_fx's tracer, recording each value's metadata, and running plainly after a graph break."""

    def __init__(self, graph: Graph, constants: torch.nn.Module) -> None:
        super().__init__(graph, constants, {})
        self.broken = False
        self.constant_tensors: list[torch.Tensor] = []
        self.on_dynamic_shape: Callable[[str], None] | None = None     # the capture's graph break
        self.fresh: dict[int, torch.Tensor] = {}        # tensors torch.tensor made during the call: their values
        self.in_op = 0                                  # operators running (their kernels, below the tracer)
        self.read_in_op = False                         # the running operator's kernel read a tensor's value
        self.opaque = 0             # autograd.Functions running (their operators unrecorded: function_applications)
        self.made_inside: dict[int, Any] = {}       # id -> a weak reference to a tensor their operators made

    def bind(self, tensor: torch.Tensor, node: Any) -> None:
        super().bind(tensor, node)
        node.meta["tensor_meta"] = _tensor_facts(tensor, include_contiguity=False)
        node.meta["example"] = (tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype, tensor.device,
                                tensor.storage_offset())

    def bind_plainly(self, tensor: torch.Tensor, node: Any) -> None:
        """As bind, without the tensor's layout in node.meta (torch._dynamo.function_applications)."""
        super().bind(tensor, node)

    def made_in_opaque(self, tensor: torch.Tensor) -> bool:
        held = self.made_inside.get(id(tensor))
        return held is not None and held() is tensor

    def _constant(self, tensor: torch.Tensor) -> Any:
        if self.made_in_opaque(tensor) and self.on_dynamic_shape is not None:
            self.on_dynamic_shape("a tensor made inside an autograd.Function's forward used outside it")
        pristine = self.fresh.pop(id(tensor), None)
        if pristine is not None:
            # made by torch.tensor inside the call: every replay starts from a copy of its value as made
            node = super()._constant(pristine)
            copy = self.graph.create_node("call_function", torch.ops.aten.clone.default, (node,), {}, name="clone")
            self.bind(tensor, copy)
            return copy
        self.constant_tensors.append(tensor)
        return super()._constant(tensor)

    def __torch_dispatch__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        if not self.broken and self.on_dynamic_shape is not None and size_families.data_dependent(func, args):
            self.on_dynamic_shape(f"{func}: a result whose size depends on the data (its size would be baked "
                                  "into the graph)")
        if self.broken or self.opaque:
            result = func(*args, **(kwargs or {}))
            if self.opaque:     # (an operator's result that is its operand, written in place, was not made)
                given = {id(a) for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)}
                self.made_inside.update((id(t), weakref.ref(t)) for t in tree_flatten(result)[0]
                                        if isinstance(t, torch.Tensor) and id(t) not in given)
            return result
        # values the operator's own kernel reads (a zero check) are its own, replayed with it, unless it returns
        # what it read as a Python value (torch.equal, allclose): the program may branch on it
        self.in_op += 1
        self.read_in_op = False
        try:
            result = super().__torch_dispatch__(func, types, args, kwargs)
        finally:
            self.in_op -= 1
        if self.read_in_op and not _tensors_only(result) and self.on_dynamic_shape is not None:
            self.on_dynamic_shape(f"{func}: a Python value computed from a tensor's data (data-dependent)")
        return result


class _Capture(ProgramReads):
    """The state of one running capture."""

    def __init__(self, fullgraph: bool) -> None:
        graph, constants = Graph(), torch.nn.Module()
        super().__init__(fullgraph, graph, constants, _CaptureTracer(graph, constants), GuardSet())
        self.tracer.on_dynamic_shape = self.graph_break
        self.runs_backward = False                      # backward or autograd.grad ran inside (traced)
        self.thread = threading.get_ident()
        self.input_tensors: list[torch.Tensor] = []
        self.offsets_guarded = False
        # (position, path, name, tensor): assigned inside a library argument (library_arguments.rebound)
        self.library_writes: list[tuple[int, library_arguments.Path, str, torch.Tensor]] = []
        self.applications: list[str] = []      # the autograd.Functions applied (function_applications)
        self.arguments: tuple[tuple[Any, ...], dict[str, Any]] = ((), {})      # the call's (args, kwargs)

    def storage_offset_read(self) -> None:
        """The program asked a tensor where it starts in its storage (an offset the graph does not carry, since
        its inputs are read wherever they start): the inputs' offsets are guarded."""
        if self.offsets_guarded:
            return
        self.offsets_guarded = True
        for tensor in self.input_tensors:
            position = self.input_positions[id(tensor)]
            self.guards.add_none(f"the storage offset of argument {position}", functools.partial(
                offset_changed, position=position, expected=tensor.storage_offset()))

    def traced(self, tensor: Any) -> bool:
        """Whether reading this tensor's value would bake it into the graph: any tensor but a wrapped Python
        number, read by the program (an operator's kernel's reads are judged by its result), until the capture has
        broken."""
        if not isinstance(tensor, torch.Tensor) or tensor._is_wrapped_number or self.tracer.broken or \
                self.tracer.opaque:     # (an autograd.Function's forward: applied again by each replay)
            return False
        if self.tracer.in_op:
            self.tracer.read_in_op = True
            return False
        return True


def _tensors_only(result: Any) -> bool:
    """Whether an operator's result is tensors (or None) alone."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return all(item is None or isinstance(item, torch.Tensor) for item in items)


# -- capturing one call ------------------------------------------------------------------------------------------------
def capture(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], fullgraph: bool,
            guard_target: Callable[..., Any] | None = None) -> Captured:
    """Run fn(*args, **kwargs) once, for real, capturing its graph; the result is in Captured.result."""
    if not _lock.acquire(blocking=False):
        raise Busy("another thread is capturing")
    try:
        return utils.counted_capture(functools.partial(_capture, fn, args, kwargs, fullgraph, guard_target))
    finally:
        _lock.release()


def _capture(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], fullgraph: bool,
             guard_target: Callable[..., Any] | None) -> Captured:
    global _active
    flat, structure = tree_flatten((args, kwargs))
    names = call_values.input_names(fn, args, kwargs, len(flat))
    cap = _Capture(fullgraph)
    cap.arguments = (args, kwargs)
    guards = cap.guards
    guards.count, guards.structure, guards.state = len(flat), structure, global_state()
    positions: list[int] = []
    attributes: dict[int, tuple[Any, ...]] = {}
    loose: dict[int, dict[str, Any]] = {}           # arguments read only through their fields, and those fields
    scoped_uses = call_values.scoped_arguments(fn, args, kwargs, flat)
    scoped: dict[int, LocalUse] = {}
    arrays = converted_arrays(fn, args, kwargs, flat)       # each call's array made a tensor input, if it can be
    structures = library_arguments.structures(flat)       # library arguments guarded on their structure
    for i, (name, value) in enumerate(zip(names, flat)):
        if isinstance(value, torch.Tensor) and type(value) not in (torch.Tensor, torch.nn.Parameter):
            cap.graph_break(f"an input of Tensor subclass {type(value).__name__} (its Python behaviour would not be "
                            "replayed)")
        if isinstance(value, torch.Tensor):
            node = cap.graph.placeholder(f"L_{name}_")
            cap.tracer.bind(value, node)
            cap.input_positions.setdefault(id(value), i)
            cap.input_tensors.append(value)
            positions.append(i)
            guards.tensors.append((i, TensorGuard.of(name, value)))
            attributes[i] = public_attributes(value)     # (those the call reads are guarded after it)
        elif is_plain_value(value) or i in arrays:      # (an array only converted: any array, its tensor an input)
            guards.values.append((i, name, OfType(value) if i in arrays else value))
        elif i in structures:
            continue
        else:
            use = scoped_uses.get(i)
            fields = loose_fields(value, use)
            if fields is not None:          # read only through its fields: any object of its type
                loose[i] = fields
                continue
            guards.values.append((i, name, Snapshot(value, attributes=use is None)))
            if use is not None:
                scoped[id(value)] = use
    for i in sharing(flat, positions, loose):       # guarded by identity after all (one in slots: not scoped)
        del loose[i]
        use = scoped_uses.get(i) if hasattr(flat[i], "__dict__") else None
        guards.values.append((i, names[i], Snapshot(flat[i], attributes=use is None)))
        if use is not None:
            scoped[id(flat[i])] = use
    if len(positions) > 1:
        guards.aliasing = aliasing_of(flat, positions)
    for i, fields in loose.items():     # (their inputs after the arguments')
        guards.values.append((i, names[i], OfType(flat[i])))
        bind_fields(cap, names[i], i, fields)
    library_arguments.bind_structures(cap, flat, names, positions, set(cap.field_positions), structures)
    cap.effects.function(guard_target or fn)
    cap.effects.arguments([*map(str, range(len(args))), *kwargs],
                          [*args, *kwargs.values()], scoped, {id(flat[i]) for i in [*loose, *structures]})
    for i in positions:         # objects and containers kept on a tensor argument: a change the call makes to
        for key, value, plain in attributes[i]:     # one is a side effect
            if not plain:
                cap.effects.watch(f"attribute {key} of argument {names[i]}", value)
    _active = cap
    try:
        with observed(cap), cap.effects.tracing(cap.graph_break), cap.tracer:
            result = fn(*args, **kwargs)
    finally:
        _active = None
    library_arguments.rebound(cap, structures)
    changed = cap.effects.changed()
    if changed is not None and cap.break_reason is None:
        cap.graph_break(f"a Python side effect: {changed} inside the compiled function (a replay would not do it "
                        "again)")
    leaves, result_spec = tree_flatten(result)
    passed = library_arguments.escaped(cap, result, leaves, flat, structures)
    bind_converted(cap, flat, names, arrays, leaves)
    guards.pin(leaves)          # a partial or function handed back: the object itself, as eager hands it back
    given_ids = {id(t) for t in flat}
    cap.states_reassigned()
    cap.sequences_reassigned()
    if cap.break_reason is None:
        for i in positions:
            if public_attributes(flat[i]) != attributes[i]:
                cap.graph_break(f"an attribute set on tensor argument {names[i]} (a replay would not set it)")
    problem = made_results.result_problem(leaves, given_ids)
    if problem is not None and cap.break_reason is None:
        cap.graph_break(problem)
    assigned = [value for _, _, value in cap.writes.values()]
    made = made_results.plan([*leaves, *assigned], cap.effects.known, cap.arguments, result,
                             library_arguments.inside(structures)) if cap.break_reason is None else None
    if isinstance(made, str):
        cap.graph_break(made)
        made = None
    reached = {**guarded_tensors(guards.reads), **cap.attribute_tensors}
    if cap.break_reason is None and not reached.keys().isdisjoint({*cap.field_positions, *cap.library_tensors}):
        cap.graph_break("a dataclass argument's field or a library argument's tensor is also read from elsewhere (a "
                        "global, a module): one graph input cannot stand for both at the next call")
    held = {id(t): ("a tensor the graph holds", t) for t in cap.tracer.constant_tensors}
    guard_attributes(cap, flat, {i: names[i] for i in positions}, read_names(cap.effects.codes), {**held, **reached})
    example_inputs = [flat[i] for i in positions] + cap.source_tensors
    given = {id(t) for t in [*cap.tracer.constant_tensors, *cap.source_tensors, *flat] if isinstance(t, torch.Tensor)}
    if cap.break_reason is None and any(t.requires_grad and t.grad_fn is None and id(t) not in given
                                        for t, node in cap.tracer.nodes.values() if node.op == "call_function"):
        # a factory's requires_grad=True is set outside the dispatcher: the replay would make a plain tensor
        cap.break_reason = "a tensor made to require grad inside the compiled function"
    if cap.break_reason is not None:
        return Captured(None, guards, example_inputs, positions, leaves, [None] * len(leaves), result_spec, [],
                        cap.break_reason, result, effect_reads=cap.effects.added if changed is not None else None)
    return _finish(cap, example_inputs, positions, leaves, result_spec, result, made, passed)


def _finish(cap: _Capture, example_inputs: list[torch.Tensor], positions: list[int], leaves: list[Any],
            result_spec: Any, result: Any, made: made_results.MadeObjects | None, passed: list[Any]) -> Captured:
    """The graph's outputs (the result's tensors, then the tensors assigned to module attributes), dead code
    removed, and the guards on the tensors the graph holds as constants."""
    tracer = cap.tracer
    if cap.runs_backward:
        cap.guards.leaves = [p for k, p in enumerate(positions) if example_inputs[k].requires_grad]
        # a gradient hook added later must run: the graph's backward would skip it
        for p in cap.guards.leaves:
            cap.guards.add_none(f"the gradient hooks of argument {p}", functools.partial(argument_hooks, position=p))
        cap.guards.hookless.update(id(t) for t in tracer.constant_tensors if t.requires_grad)
    outputs: list[Any] = []
    result_outputs: list[int | None] = []
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor) and not leaf._is_wrapped_number:
            result_outputs.append(len(outputs))
            outputs.append(tracer.node_of(leaf))
        else:
            result_outputs.append(None if made is None else made.output_of(leaf))
    if made is not None:        # the objects the call made: each replay makes them again, after the graph's outputs
        outputs.extend(tracer.node_of(t) for t in made.place(len(outputs)))
    writes: list[Write] = []
    for module, name, value in cap.writes.values():
        position = cap.input_positions.get(id(module)) if isinstance(module, torch.Tensor) else None
        position, field = cap.field_positions.get(id(module), (position, None))     # (a loose argument's field)
        if isinstance(value, torch.Tensor) and id(value) in tracer.nodes:
            writes.append(Write(module, name, len(outputs), None, position, field=field))
            outputs.append(tracer.node_of(value))
        elif made is not None and made.output_of(value) is not None:      # an object the call made
            writes.append(Write(module, name, made.output_of(value), None, position, field=field))
        elif cap.computed_tensors(value):         # (h, c): rebuilt from the outputs on each replay
            writes.append(Write(module, name, None, type(value), position,
                                tuple(range(len(outputs), len(outputs) + len(value))), field))
            outputs.extend(tracer.node_of(t) for t in value)
        else:
            writes.append(Write(module, name, None, value, position, field=field))
    for position, path, name, value in cap.library_writes:
        writes.append(Write(None, name, len(outputs), None, position, path=path))
        outputs.append(tracer.node_of(value))
    cap.graph.output(tuple(outputs))
    if cap.runs_backward:
        elide_fresh_copies(cap.graph)
    cap.graph.eliminate_dead_code()
    graph_module = _LazyGraphModule(cap.constants, cap.graph)     # its code generated only if a backend runs it
    for tensor in tracer.constant_tensors:
        cap.guards.constants.append((tensor, TensorGuard.of("constant", tensor)))
    return Captured(graph_module, cap.guards, example_inputs, positions, leaves, result_outputs, result_spec,
                    writes, None, result, runs_backward=cap.runs_backward,
                    kept=call_values.kept_containers(result, *cap.arguments, cap.effects.known, _seen_as(cap)),
                    made=made, passed=passed)


def _seen_as(cap: _Capture) -> Callable[[Any], str | None]:
    """How the call first reached a container it could change (an argument's, a global's: its snapshot's
    description), if it did."""
    return lambda value: cap.effects.snapshots.get(id(value), (None,))[0]
