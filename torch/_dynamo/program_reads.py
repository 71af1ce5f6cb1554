"""torch._dynamo.program_reads: what a running capture reads from the program's modules, tensors and optimizers,
and what it assigns there (the guards those reads need, the writes a replay redoes).

A module attribute read is guarded: a plain value by value; a tensor, a submodule or a function by identity;
a registry (_modules, _parameters, _buffers) by its names and members; the program's methods by their
function; a container or object the program keeps, by its members, and snapshotted for side effects
(torch._dynamo.side_effects). A tensor's .grad read becomes a graph input read at each call, and so does a
module tensor attribute the call reads and then reassigns (an EMA, a recurrent state). An optimizer stepped is
guarded by its hyperparameters and the identity of its state."""
from __future__ import annotations

import functools
import inspect
import operator
from typing import Any, Callable

import torch
from torch._dynamo import exc, optimizer_guards
from torch._dynamo.guards import GuardSet, is_plain_value, weak_reader
from torch._dynamo.observers import has_hooks, hook_functions, hook_set
from torch._dynamo.program_state import is_program_class, is_program_file, is_watched
from torch._dynamo.readers import method_function, own_attribute, own_method
from torch._dynamo.held_state import held_state
from torch._dynamo.loose_arguments import field_grad
from torch._dynamo.side_effects import Effects
from torch._dynamo.tensor_attributes import public_attributes
from torch.fx.graph import Graph
from torch.utils._pytree import tree_flatten

__all__ = ["ProgramReads"]


class ProgramReads:
    """A capture's reads and writes on the program's objects, and its graph breaks (the base of
    torch._dynamo.capture's running capture, whose observers call these)."""

    def __init__(self, fullgraph: bool, graph: Graph, constants: torch.nn.Module, tracer: Any,
                 guards: GuardSet) -> None:
        self.fullgraph = fullgraph
        self.graph = graph
        self.constants = constants
        self.tracer = tracer
        self.guards = guards
        self.effects = Effects(guards)
        self.effects.report = self.graph_break
        self.break_reason: str | None = None
        self.read_keys: set[tuple[int, str]] = set()
        self.writes: dict[tuple[int, str], tuple[Any, str, Any]] = {}
        self.optimizers: dict[int, Any] = {}
        self.source_tensors: list[torch.Tensor] = []
        self.input_positions: dict[int, int] = {}     # id of a tensor argument -> its flat position
        self.field_positions: dict[int, tuple[int, str]] = {}   # id of a loose argument's field -> (position, name)
        self.library_tensors: set[int] = set()      # ids of the tensors inside library arguments (library_arguments)
        # module tensors the call read (by id: description, tensor), their attributes guarded after it
        self.attribute_tensors: dict[int, tuple[str, torch.Tensor]] = {}
        self.kept_objects: set[tuple[int, str]] = set()     # module attributes holding containers or objects
        # module attributes read as tensors: key -> (module, name, tensor, its guard); registries read: key -> guard
        self.tensor_reads: dict[tuple[int, str], tuple[Any, str, torch.Tensor, Any]] = {}
        # module attributes read as tuples or lists: key -> (module, name, value, the guards its read added)
        self.sequence_reads: dict[tuple[int, str], tuple[Any, str, Any, list[Any]]] = {}
        self.registry_reads: dict[tuple[int, str], Any] = {}
        self.loose_buffers: dict[int, frozenset[str]] = {}     # per module, its buffers reassigned by the call
        # modules the call constructs (a loss made in forward): made anew each call, nothing of them is guarded
        self.fresh_modules: dict[int, Any] = {}

    def graph_break(self, reason: str) -> None:
        if self.break_reason is None:
            self.break_reason = reason
        if self.fullgraph:
            raise exc.Unsupported(reason)
        self.tracer.broken = True

    # -- reads and writes on modules --------------------------------------------------------------------------------
    def module_constructed(self, module: Any) -> None:
        self.fresh_modules[id(module)] = module

    def module_read(self, module: Any, name: str, value: Any) -> None:
        if id(module) in self.fresh_modules:
            self._class_read(module, name)
            return
        key = (id(module), name)
        if key in self.kept_objects:    # read again, perhaps by another method: what that one reads is guarded
            self.effects.attribute_read(module, name, value, f"{type(module).__name__}.{name}")
            return
        if module is self.constants or key in self.read_keys or key in self.writes or name in _UNGUARDED_ATTRIBUTES:
            return
        description = f"{type(module).__name__}.{name}"
        if name in _REGISTRIES and isinstance(value, dict):
            # the registered submodules, parameters or buffers as a whole (Sequential.append, a replaced one)
            self.read_keys.add(key)
            self.guards.add_read(description, module, functools.partial(_registry_of, name=name), _registry(value),
                                 by_value=True, path=f"REGISTRY({{}}.__dict__[{name!r}])",
                                 helpers={"REGISTRY": _registry})
            self.registry_reads[key] = self.guards.reads[-1]
            for entry, tensor in value.items():     # (parameters() and state_dict() reach them so)
                if isinstance(tensor, torch.Tensor):
                    self._tensor_attributes(f"{description}[{entry!r}]", tensor)
            return
        if isinstance(inspect.getattr_static(type(module), name, None), property):
            return          # computed (a parametrization): what it reads is guarded, and reading it again would
            #                 run it again (spectral_norm's power iteration)
        if inspect.ismethod(value):
            self.read_keys.add(key)
            code = getattr(value.__func__, "__code__", None)
            if code is not None and is_program_file(code.co_filename) and name.isidentifier():
                # the program's method: patched on the instance or the class, the call is another
                self.guards.add_read(description, module, functools.partial(method_function, name=name),
                                     value.__func__, by_value=False, path=f"{{}}.{name}.__func__")
            elif name in module.__dict__:
                # set on the instance (accelerate's autocast forward, PEFT's hooks): that very method
                self.guards.add_read(f"{description} set on the instance", module,
                                     functools.partial(own_method, name=name), module.__dict__[name], by_value=False)
            else:
                # a library's or Ember's method (the capture patches some of Ember's while it runs): not replaced
                # on the instance (as accelerate's and PEFT's hooks replace forward)
                self.guards.add_read(f"{description} is not replaced on the instance", module,
                                     functools.partial(own_attribute, name=name), False, by_value=True,
                                     path=f"({name!r} in {{}}.__dict__)")
            return
        if held_state(value) is not None:      # a generator, an iterator or an array: drawing, writing is a side effect
            self.read_keys.add(key)
            self.guards.add_read(description, module, operator.attrgetter(name), value, path=_where_read(module, name))
            self.effects.reached(description, value)
            return
        functional = callable(value) and not inspect.ismethod(value) and not isinstance(value, torch.nn.Module)
        if not (is_plain_value(value) or functional or isinstance(value, (torch.Tensor, torch.nn.Module))):
            if name not in _MODULE_OWN and is_watched(value):     # a list, dict, set or object the program keeps
                self.read_keys.add(key)
                self.kept_objects.add(key)
                before = len(self.guards.reads)
                self.guards.add_read(description, module, operator.attrgetter(name), value,
                                     path=_where_read(module, name))
                self.effects.attribute_read(module, name, value, description)
                if isinstance(value, (tuple, list)):
                    self.sequence_reads[key] = (module, name, value, self.guards.reads[before:])
            return
        if functional:
            self.effects.function_state(description, value)
        self.read_keys.add(key)
        self.guards.add_read(description, module, operator.attrgetter(name), value, path=_where_read(module, name))
        if isinstance(value, torch.Tensor):
            self.tensor_reads[key] = (module, name, value, self.guards.reads[-1])
            self._tensor_attributes(description, value)

    def _tensor_attributes(self, description: str, tensor: torch.Tensor) -> None:
        """A module tensor the call reads: its attributes guarded after the call (tensor_attributes), the
        objects and containers kept on it snapshotted now (a change the call makes is a side effect)."""
        self.attribute_tensors.setdefault(id(tensor), (description, tensor))
        for key, value, plain in public_attributes(tensor):
            if not plain:
                self.effects.watch(f"attribute {key} of {description}", value)

    def _class_read(self, module: Any, name: str) -> None:
        """What a module the call constructs reads from its class (a class attribute, its forward), where the
        program's class defines it: guarded on the class, which the next call's module shares."""
        cls = type(module)
        key = (id(cls), name)
        if name.startswith("__") or key in self.read_keys or name in object.__getattribute__(module, "__dict__"):
            return
        owner = next((klass for klass in cls.__mro__ if name in klass.__dict__), None)
        if owner is None or not is_program_class(owner):
            return          # an attribute of Ember's classes (the capture patches some of their methods)
        value = owner.__dict__[name]
        self.read_keys.add(key)
        self.guards.add_read(f"{cls.__name__}.{name}", cls, functools.partial(inspect.getattr_static, attr=name),
                             value)

    def module_called(self, module: Any) -> None:
        """A module called without hooks: a guard that it still has none (one added later must run)."""
        if id(module) in self.fresh_modules:
            return
        key = (id(module), "hooks")
        if key not in self.read_keys:
            self.read_keys.add(key)
            self.guards.add_read(f"{type(module).__name__} has no hooks", module, has_hooks, False, by_value=True,
                                 path="HAS_HOOKS({})", helpers={"HAS_HOOKS": has_hooks})

    def module_hooks_called(self, module: Any) -> None:
        """A module called with forward hooks of the program's own, which run inside the capture: a guard that it
        still has these (re-read only once a hook was registered or removed, as for `has no hooks`)."""
        key = (id(module), "hooks")
        if key not in self.read_keys and id(module) not in self.fresh_modules:
            self.read_keys.add(key)
            self.guards.add_read(f"the hooks of {type(module).__name__}", module, hook_set, hook_set(module),
                                 by_value=True, path="HOOK_SET({})", helpers={"HOOK_SET": hook_set})
            for hook in hook_functions(module):     # their closures and defaults, as a function's the call reads
                self.effects.function_state(f"a hook of {type(module).__name__}", getattr(hook, "__func__", hook))

    def module_write(self, module: Any, name: str, value: Any) -> None:
        if module is self.constants or id(module) in self.fresh_modules:
            return
        if self.tracer.opaque:
            self.graph_break(f"{type(module).__name__}.{name} assigned inside an autograd.Function's forward (its "
                             "graph node would not assign it)")
        if id(value) in self.fresh_modules:
            self.graph_break(f"a module the call constructs assigned to {type(module).__name__}.{name} (a replay would "
                             "assign the captured one again)")
        elif self.computed_tensors(value):
            pass        # a recurrent state, (h, c): replayed from the graph's outputs
        elif isinstance(value, (list, tuple, dict)) and any(id(t) in self.tracer.nodes for t in tree_flatten(value)[0]
                                                            if isinstance(t, torch.Tensor)):
            self.graph_break(f"a {type(value).__name__} holding tensors the graph computes assigned to "
                             f"{type(module).__name__}.{name} (a replay would assign the captured one again)")
        self.writes[(id(module), name)] = (module, name, value)

    def computed_tensors(self, value: Any) -> bool:
        """A tuple or list (not a subclass) of tensors the graph computes, and nothing else."""
        return type(value) in (tuple, list) and bool(value) and all(
            isinstance(t, torch.Tensor) and id(t) in self.tracer.nodes for t in value)

    def sequences_reassigned(self) -> None:
        """Module attributes holding a tuple or list of tensors that the call read and then assigned one it
        computed, of the same kind and length (an LSTM's (h, c) kept between calls for truncated BPTT): each member
        a graph input read from the module at each call, and the attribute guarded by its kind and length, where
        a guard on its identity would fail after every replay's assignment."""
        for key, (module, name, old, added) in self.sequence_reads.items():
            written: Any = self.writes[key][2] if key in self.writes else None
            if self.tracer.broken or not self.computed_tensors(written) or type(written) is not type(old) \
                    or len(written) != len(old) or not all(isinstance(t, torch.Tensor) and not t.requires_grad
                                                           for t in old):
                continue
            known = [self.tracer.nodes.get(id(t)) for t in old]
            if any(k is None or k[1].op != "get_attr" or sum(t is u for u in old) > 1 for k, t in zip(known, old)):
                continue        # a member unread, or made inside: its identity stays guarded
            if any(r.expected is t for r in self.guards.reads if all(r is not a for a in added) for t in old) or \
                    any(t is entry[2] for entry in self.tensor_reads.values() for t in old):
                continue        # a member read through another name too (a buffer): that one keeps it
            dropped = set(map(id, added))
            self.guards.reads = [r for r in self.guards.reads if id(r) not in dropped]
            description = f"{type(module).__name__}.{name}"
            self.guards.add_read(f"the kind and length of {description}", module,
                                 functools.partial(_sequence_of, name=name), (type(old), len(old)), by_value=True)
            for i, (tensor, (_, constant)) in enumerate(zip(old, known)):
                self._constant_as_source(tensor, constant, f"{description}[{i}]",
                                         weak_reader(module, functools.partial(_member, name=name, index=i)))

    def _constant_as_source(self, tensor: torch.Tensor, constant: Any, description: str,
                            reader: Callable[[], Any]) -> None:
        """A tensor the graph held as a constant (its get_attr node) made a graph input that reader() gives at each
        call, guarded by its layout."""
        self.constant_as_source(tensor, constant, description, functools.partial(_call_reader, reader))

    def constant_as_source(self, tensor: torch.Tensor, constant: Any, description: str,
                           read: Callable[[list[Any]], Any]) -> None:
        """As _constant_as_source, the input read(flat) from each call's flattened inputs."""
        node = self.source_placeholder(f"state_{len(self.guards.sources)}")
        node.meta.update(constant.meta)
        constant.replace_all_uses_with(node)
        self.graph.erase_node(constant)
        self.tracer.bind(tensor, node)
        self.tracer.constant_tensors = [t for t in self.tracer.constant_tensors if t is not tensor]
        self.guards.add_source(description, read, tensor)
        self.source_tensors.append(tensor)

    def source_placeholder(self, name: str) -> Any:
        """A graph input read from the program at each call, after the inputs made so far."""
        first_op = next((n for n in self.graph.nodes if n.op != "placeholder"), None)
        if first_op is None:        # only placeholders so far: after them
            return self.graph.placeholder(name)
        with self.graph.inserting_before(first_op):
            return self.graph.placeholder(name)

    def states_reassigned(self) -> None:
        """Module tensor attributes the call read and then assigned a tensor it computed (`self.avg = self.avg *
        0.9 + ...`, a recurrent state kept between calls): graph inputs read from the module at each call, guarded
        by their layout, where a constant guarded by identity would fail after every replay's assignment."""
        for key, (module, name, old, read) in self.tensor_reads.items():
            written = self.writes.get(key, (None, None, None))[2]
            known = self.tracer.nodes.get(id(old))
            if self.tracer.broken or not isinstance(written, torch.Tensor) or id(written) not in self.tracer.nodes \
                    or old.requires_grad or any(r is not read and r.expected is old for r in self.guards.reads):
                continue        # (read through another name too: that one keeps the tensor the graph holds)
            if known is None:   # read for its layout alone (torch.zeros(self.h.shape)): guarded by it, not identity
                self.guards.reads = [r for r in self.guards.reads if r is not read]
                self.guards.add_read(f"the layout of {type(module).__name__}.{name}", module,
                                     functools.partial(_layout_of, name=name), _layout(old), by_value=True)
                continue
            if known[1].op != "get_attr":
                continue
            self.guards.reads = [r for r in self.guards.reads if r is not read]
            self._constant_as_source(old, known[1], f"{type(module).__name__}.{name}",
                                     weak_reader(module, operator.attrgetter(name)))
            self._loosen_buffers(module, name)

    def _loosen_buffers(self, module: Any, name: str) -> None:
        """A reassigned buffer's entry in the guard on the module's buffers: its name alone, not its tensor."""
        key = (id(module), "_buffers")
        registry = self.registry_reads.get(key)
        if registry is None or name not in module.__dict__.get("_buffers", {}):
            return
        loose = self.loose_buffers[id(module)] = self.loose_buffers.get(id(module), frozenset()) | {name}
        self.guards.reads = [r for r in self.guards.reads if r is not registry]
        read = functools.partial(_registry_of, name="_buffers", loose=loose)
        self.guards.add_read(registry.description, module, read, read(module), by_value=True)
        self.registry_reads[key] = self.guards.reads[-1]

    def grad_read(self, tensor: Any, grad: Any) -> None:
        """A tensor's .grad read: a graph input read from the tensor at each call (a new gradient each step),
        or, when it has none, a guard that it still has none."""
        key = (id(tensor), "grad")
        if self.tracer.broken or key in self.read_keys or key in self.writes:
            return
        made = self.tracer.nodes.get(id(tensor))
        if made is not None and made[1].op not in ("placeholder", "get_attr"):
            return      # a tensor the call made (retain_grad): its .grad is what the graph makes of it each call
        if id(tensor) in self.library_tensors:
            self.graph_break("the .grad of a tensor inside a library argument read (a replay would read the "
                             "captured call's)")
            return
        self.read_keys.add(key)
        position, field = self.input_positions.get(id(tensor)), self.field_positions.get(id(tensor))
        # the argument at that position (or the field of one: loose_arguments), whichever tensor it is then
        of_input = functools.partial(_argument_grad, position=position) if position is not None else \
            functools.partial(field_grad, position=field[0], name=field[1]) if field is not None else None
        if grad is None and of_input is not None:
            self.guards.add_none(f"the .grad of input {position if field is None else field}", of_input)
            return
        if grad is None or id(grad) in self.tracer.nodes:
            self.guards.add_read("a tensor's .grad", tensor, operator.attrgetter("grad"), grad,
                                 by_value=grad is None)
            return
        name = f"grad_{len(self.guards.sources)}"
        node = self.source_placeholder(name)
        self.tracer.bind(grad, node)
        if of_input is not None:    # an input's .grad: read from whatever tensor that input is at each call
            self.guards.add_source(name, of_input, grad)
        else:
            reader = weak_reader(tensor, operator.attrgetter("grad"))
            self.guards.add_source(name, functools.partial(_call_reader, reader), grad,
                                   leaf=tensor if tensor.grad_fn is None else None)
        self.source_tensors.append(grad)

    def optimizer_stepped(self, opt: Any) -> None:
        if id(opt) not in self.optimizers:
            self.optimizers[id(opt)] = opt
            optimizer_guards.add(self.guards, opt)


# nn.Module's own attributes (its hook and registry dicts): Ember's state, not the program's.
_MODULE_OWN = frozenset(vars(torch.nn.Module()))
# Attributes read on every module call whose values never change what the graph computes.
_UNGUARDED_ATTRIBUTES = frozenset({"_compiled_call_impl", "__dict__", "__class__", "_call_impl"})
# A module's registries: guarded as their names and members' identities when the call iterates one.
_REGISTRIES = frozenset({"_modules", "_parameters", "_buffers"})


def _registry(entries: dict[str, Any], loose: frozenset[str] = frozenset()) -> tuple[tuple[str, int | None], ...]:
    """A registry's names and members' identities (the loose members: their names alone)."""
    return tuple((name, None if name in loose else id(value)) for name, value in entries.items())


def _registry_of(module: Any, name: str, loose: frozenset[str] = frozenset()) -> tuple[tuple[str, int | None], ...]:
    return _registry(getattr(module, name), loose)


def _call_reader(reader: Callable[[], Any], flat: list[Any]) -> Any:
    """A source's value: read from the program, whatever the call's inputs."""
    return reader()


def _layout(tensor: Any) -> tuple[Any, ...]:
    return (type(tensor), tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype, tensor.device,
            tensor.requires_grad)


def _member(module: Any, name: str, index: int) -> Any:
    return getattr(module, name)[index]


def _sequence_of(module: Any, name: str) -> tuple[type, int] | None:
    value = getattr(module, name)
    return (type(value), len(value)) if isinstance(value, (tuple, list)) else None


def _layout_of(module: Any, name: str) -> tuple[Any, ...]:
    return _layout(getattr(module, name))


def _argument_grad(flat: list[Any], position: int) -> Any:
    return flat[position].grad


def _where_read(module: Any, name: str) -> str | None:
    """A module attribute as the expression the guards read it by ("{}" the module): from the instance's dict or
    the registry holding it, as nn.Module's attribute lookup finds it (None: a class attribute)."""
    own = module.__dict__
    if name in own:
        return f"{{}}.__dict__[{name!r}]"
    for registry in _REGISTRIES:
        entries = own.get(registry)
        if isinstance(entries, dict) and name in entries:
            return f"{{}}.__dict__[{registry!r}][{name!r}]"
    return None
