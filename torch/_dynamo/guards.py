"""torch._dynamo.guards: what a captured graph depends on, checked before each replay: each tensor input's
layout, requires_grad, type and leafness; each other input's value; the global state; what the call read of
modules, objects, closures, globals and optimizers. `check` returns None when all hold, else the first failure
in PyTorch's words ("tensor 'x' size mismatch at index 0. expected 3, actual 4")."""
from __future__ import annotations

import hashlib
import sys
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch._dynamo.plain_values import binding, holds_float, is_plain_value, same_binding, same_plain

__all__ = ["GuardSet", "OfType", "ReadGuard", "Snapshot", "TensorGuard", "aliasing_of", "array_state",
           "attributes_of", "broke_again", "changed_reads", "global_state", "holds_float", "is_array",
           "is_plain_value", "offset_changed", "same_attributes", "same_plain", "same_value", "slot_names",
           "weak_reader"]


def global_state() -> tuple[Any, ...]:
    """The process state a graph's behaviour depends on: grad mode, the default dtype, autocast, deterministic
    algorithms (PyTorch's global state guard)."""
    return (torch.is_grad_enabled(), torch.get_default_dtype(), torch.is_autocast_enabled("cpu"),
            torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cpu"), torch.get_autocast_dtype("cuda"),
            torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())


def _dtype_name(dtype: torch.dtype) -> str:
    """PyTorch's guard messages name dtypes by their C++ scalar type (Float, Double, Long...)."""
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(str(dtype).rpartition(".")[2], str(dtype))


@dataclass(frozen=True)
class TensorGuard:
    """The metadata of a tensor the graph was captured with."""
    name: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool
    kind: type = torch.Tensor           # a Parameter or a plain tensor (a program may ask which)
    leaf: bool | None = None            # for a tensor that requires grad: whether it has no autograd history

    @classmethod
    def of(cls, name: str, tensor: torch.Tensor) -> TensorGuard:
        return cls(name, tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype, tensor.device,
                   tensor.requires_grad, type(tensor), tensor.grad_fn is None if tensor.requires_grad else None)

    def failure(self, tensor: Any, sizes: bool = True) -> str | None:
        """Why tensor does not match, or None; sizes=False: whatever its sizes and strides (its rank matches)."""
        if not isinstance(tensor, torch.Tensor):
            return f"{self.name} is not a tensor (now {type(tensor).__name__})"
        if tensor.dtype is not self.dtype:
            return (f"tensor '{self.name}' dtype mismatch. expected {_dtype_name(self.dtype)}, "
                    f"actual {_dtype_name(tensor.dtype)}")
        if tensor.device != self.device:
            return f"tensor '{self.name}' device mismatch. expected {self.device}, actual {tensor.device}"
        if tensor.requires_grad != self.requires_grad:
            return (f"tensor '{self.name}' requires_grad mismatch. expected requires_grad={int(self.requires_grad)}")
        if type(tensor) is not self.kind:
            return f"tensor '{self.name}' type mismatch. expected {self.kind.__name__}, actual {type(tensor).__name__}"
        if self.leaf is not None and (tensor.grad_fn is None) is not self.leaf:
            return f"tensor '{self.name}' is_leaf mismatch. expected is_leaf={self.leaf}"
        shape = tuple(tensor.shape)
        if shape != self.shape:
            if len(shape) != len(self.shape):
                return f"tensor '{self.name}' rank mismatch. expected {len(self.shape)}, actual {len(shape)}"
            if not sizes:
                return None
            i = next(i for i, (a, b) in enumerate(zip(self.shape, shape)) if a != b)
            return f"tensor '{self.name}' size mismatch at index {i}. expected {self.shape[i]}, actual {shape[i]}"
        stride = tuple(tensor.stride())
        if stride != self.stride and sizes:
            i = next(i for i, (a, b) in enumerate(zip(self.stride, stride)) if a != b)
            return f"tensor '{self.name}' stride mismatch at index {i}. expected {self.stride[i]}, actual {stride[i]}"
        return None


@dataclass
class ReadGuard:
    """An attribute (or a cell, a global, an optimizer's state) read while capturing: `read()` gives its
    value now; plain values compare equal, anything else must be the same object."""
    description: str
    read: Callable[[], Any]
    expected: Any
    by_value: bool
    # the read as an expression of its owner ("{}" stands for it), weakly referenced: the generated check
    # dereferences each owner once and reads its attributes inline (names in helpers are functions it calls)
    path: str | None = None
    owner: Any = None
    helpers: dict[str, Any] | None = None

    def failure(self) -> str | None:
        try:
            now = self.read()
        except ReferenceError:  # its owner was freed (made inside the captured call): nothing left to read
            return None
        except Exception:       # the attribute is gone
            return f"{self.description} is no longer available"
        if self.by_value:
            if same_plain(now, self.expected):
                return None
            if isinstance(self.expected, tuple) and len(self.expected) > 4:      # a snapshot: too long to show
                return f"{self.description} changed"
            return f"{self.description} == {self.expected!r}"
        return None if now is self.expected else f"{self.description} is no longer the object it was"


def broke_again(captured: Any, previous: Any) -> None:
    """A capture that broke the graph after the previous capture did (both torch._dynamo.capture.Captured): its
    entry stops guarding what the side effect reads and changes when a side effect came again, and, when the
    same break came a third time, the reads that changed at each (a counter the call increments: each call would
    capture again; a setting changed once stays guarded), so that those calls run eagerly whatever they hold."""
    guards = captured.guards
    if captured.effect_reads is not None and previous.effect_reads is not None:
        guards.drop(captured.effect_reads)
    if captured.break_reason != previous.break_reason:
        return
    changed = changed_reads(guards.reads, previous.guards.reads)
    guards.churning = {_read_key(read) for read in changed}
    again = [read for read in changed if _read_key(read) in previous.guards.churning]
    if again:
        guards.drop(again, arguments=False)


def _read_key(read: ReadGuard) -> tuple[str, int | None]:
    owner = read.owner() if read.owner is not None else None
    return read.description, None if owner is None else id(owner)


def changed_reads(now: list[ReadGuard], before: list[ReadGuard]) -> list[ReadGuard]:
    """The reads of `now` that read, of the same owner, another value than `before`'s."""
    earlier = {_read_key(read): read for read in before}
    changed = []
    for read in now:
        old = earlier.get(_read_key(read))
        if old is not None and old.expected is not read.expected and \
                not (read.by_value and old.by_value and same_plain(old.expected, read.expected)):
            changed.append(read)
    return changed


def is_array(value: Any) -> bool:
    """A NumPy array of values (one of Python objects holds them by identity, as a list does)."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray) and not value.dtype.hasobject


def array_state(value: Any) -> Any:
    """A NumPy array's shape, dtype and a digest of its bytes (a large array is not copied): what a replay
    needs unchanged when the program read its values, which no operator of the graph reads."""
    numpy = sys.modules["numpy"]
    data = numpy.ascontiguousarray(value).reshape(-1).view(numpy.uint8)
    return value.shape, value.dtype.str, hashlib.blake2b(data).digest()


class Snapshot:
    """A non-tensor argument that is not a plain value: the object itself (compared by identity) and its
    attributes (plain values by value, others by identity), or the object alone (attributes=False: guarded
    where the call reads them); a NumPy array also by its values."""

    def __init__(self, value: Any, attributes: bool = True) -> None:
        self.value = value
        self.attributes = attributes_of(value) if attributes else None
        self.contents = array_state(value) if is_array(value) else None
        self.binding = binding(value)       # a partial or function: another binding the same is as good

    def __repr__(self) -> str:
        return f"{type(self.value).__name__} object"


def attributes_of(value: Any) -> tuple[tuple[str, Any, bool], ...]:
    """(name, value, compared by value) per attribute, in its __dict__ or its slots; a module's plain ones only
    (its tensors and submodules are guarded where the call reads them, and attributes it assigns are replayed)."""
    items = list(getattr(value, "__dict__", {}).items())
    items += [(name, getattr(value, name)) for name in slot_names(type(value)) if hasattr(value, name)]
    module = isinstance(value, torch.nn.Module)
    return tuple(sorted(((k, tuple(v) if isinstance(v, list) and is_plain_value(v) else v, is_plain_value(v))
                         for k, v in items if not module or is_plain_value(v)), key=lambda kv: kv[0]))


def slot_names(cls: type) -> list[str]:
    """The attribute names of a class's slots, each class's own once (a private one mangled, as its class stores
    it: `__x` of class Box is `_Box__x`)."""
    names = []
    for klass in cls.__mro__:
        declared = klass.__dict__.get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"
            if name not in ("__dict__", "__weakref__"):
                names.append(name)
    return names


def same_attributes(now: tuple[tuple[str, Any, bool], ...], expected: tuple[tuple[str, Any, bool], ...]) -> bool:
    return len(now) == len(expected) and all(
        a[0] == b[0] and a[2] == b[2] and (same_plain(a[1], b[1]) if b[2] else a[1] is b[1])
        for a, b in zip(now, expected))


class OfType:
    """A non-tensor argument read only through its fields (torch._dynamo.loose_arguments: a dataclass batch): any
    object of its type, the fields the call reads guarded one by one."""

    def __init__(self, value: Any) -> None:
        self.type = type(value)

    def __repr__(self) -> str:
        return f"a {self.type.__name__}"


def same_value(now: Any, expected: Any) -> bool:
    """Whether a non-tensor argument still holds what the graph was captured with."""
    if isinstance(expected, OfType):
        return type(now) is expected.type
    if isinstance(expected, Snapshot):
        same_object = now is expected.value or (type(now) is type(expected.value) and expected.binding is not None
                                                and same_binding(now, expected.binding))
        return same_object and (expected.attributes is None
                                or same_attributes(attributes_of(now), expected.attributes)) and \
            (expected.contents is None or array_state(now) == expected.contents)
    return same_plain(now, expected)


def offset_changed(flat: list[Any], position: int, expected: int) -> str | None:
    """None when the tensor argument at position starts where it did in its storage (a nones reader)."""
    offset = flat[position].storage_offset()
    return None if offset == expected else f"storage_offset() of tensor argument {position} == {expected}"


def aliasing_of(flat: list[Any], positions: list[int]) -> tuple[int, ...]:
    """Per tensor input, the index of the first tensor input that is the same object."""
    first: dict[int, int] = {}
    return tuple(first.setdefault(id(flat[p]), k) for k, p in enumerate(positions))


def weak_reader(owner: Any, read: Callable[[Any], Any]) -> Callable[[], Any]:
    """read(owner) without keeping owner alive (an owner that cannot be weakly referenced is held)."""
    try:
        ref = weakref.ref(owner)
    except TypeError:
        return lambda: read(owner)

    def reader() -> Any:
        alive = ref()
        if alive is None:
            raise ReferenceError("freed")
        return read(alive)
    return reader


@dataclass
class GuardSet:
    """Every check one captured graph needs."""
    tensors: list[tuple[int, TensorGuard]] = field(default_factory=list)      # (flat input position, guard)
    values: list[tuple[int, str, Any]] = field(default_factory=list)          # (position, name, value)
    state: tuple[Any, ...] = ()
    reads: list[ReadGuard] = field(default_factory=list)
    constants: list[tuple[torch.Tensor, TensorGuard]] = field(default_factory=list)
    # the constants that must have no gradient hooks (leaves a graph's own backward reaches), by id
    hookless: set[int] = field(default_factory=set)
    # per constant (by id), the attribute names it may carry (tensor_attributes: Ember's state and names the call
    # does not read), checked with its layout
    attribute_keys: dict[int, frozenset[str]] = field(default_factory=dict)
    # inputs read from the program's objects (a parameter's .grad): (reader of the flat inputs, guard), passed
    # after the arguments
    sources: list[tuple[Callable[[list[Any]], Any], TensorGuard]] = field(default_factory=list)
    # per source, the leaf whose .grad it is (weakly), when it is not an argument's: the check reads it inline
    source_owners: list[Any] = field(default_factory=list)
    # tensor inputs that must be leaves (no autograd history): a graph holding its own backward stops at them
    leaves: list[int] = field(default_factory=list)
    # values read from the flat inputs that must be None (an argument's .grad): (description, reader)
    nones: list[tuple[str, Callable[[list[Any]], Any]]] = field(default_factory=list)
    # which tensor inputs were one object (per tensor input, the first position holding it): a graph captured with
    # f(x, x) binds both to one value
    aliasing: tuple[int, ...] = ()
    held: list[Any] = field(default_factory=list)     # what the guards read through, kept alive with them
    count: int = 0          # how many inputs the flattened call has
    structure: Any = None   # the pytree structure of (args, kwargs)
    # the guards as one generated function (torch._dynamo.guard_checks), made at the first replay
    fast: Callable[[list[Any], Any], tuple[Any, ...] | None] | None = field(default=None, repr=False)
    # after a graph break, the reads whose values changed since the previous capture broke the same way
    churning: set[tuple[str, int | None]] = field(default_factory=set)

    def add_read(self, description: str, owner: Any, read: Callable[[Any], Any], value: Any,
                 by_value: bool | None = None, weak: bool = True, path: str | None = None,
                 helpers: dict[str, Any] | None = None) -> None:
        plain = is_plain_value(value) if by_value is None else by_value
        reader = weak_reader(owner, read) if weak else (lambda: read(owner))
        owner_ref = None
        if weak:
            try:
                owner_ref = weakref.ref(owner)
            except TypeError:
                path = None
        self.reads.append(ReadGuard(description, reader,
                                     (list(value) if isinstance(value, list) else value) if plain else value, plain,
                                     path if owner_ref is not None else None, owner_ref, helpers))

    def describe(self) -> list[str]:
        """Every guard, one line each (explain()'s out_guards)."""
        lines = [f"TENSOR_MATCH {g.name}: {g.dtype} {list(g.shape)} stride {list(g.stride)} {g.device} "
                 f"requires_grad={g.requires_grad}" for _, g in self.tensors]
        lines += [f"CONSTANT_MATCH {name} == {value!r}" for _, name, value in self.values]
        lines.append("GLOBAL_STATE grad mode, default dtype, autocast, deterministic algorithms")
        lines += [f"{'EQUALS_MATCH' if r.by_value else 'ID_MATCH'} {r.description}" for r in self.reads]
        lines += [f"TENSOR_MATCH constant: {g.dtype} {list(g.shape)}" for _, g in self.constants]
        lines += [f"LEAF_MATCH input {position}" for position in self.leaves]
        lines += [f"NONE_MATCH {description}" for description, _ in self.nones]
        lines += [f"TENSOR_MATCH {g.name}: {g.dtype} {list(g.shape)} (an input read from the program)"
                  for _, g in self.sources]
        return lines

    def check(self, flat: list[Any], structure: Any, sizes: bool = True) -> str | None:
        """None when the graph may be replayed for these flattened inputs, else why not; sizes=False: None when
        only the tensor inputs' sizes and strides differ (a capture at other sizes)."""
        if structure != self.structure:
            return "the arguments' structure changed"
        for position, guard in self.tensors:
            failure = guard.failure(flat[position], sizes)
            if failure is not None:
                return failure
        for position, name, value in self.values:
            now = flat[position]
            if not same_value(now, value):
                return f"{name} == {value!r}" if is_plain_value(value) else \
                    f"{name} is not {value!r}" if isinstance(value, OfType) else f"{name} changed"
        if self.aliasing and aliasing_of(flat, [p for p, _ in self.tensors]) != self.aliasing:
            return "the tensor inputs alias each other differently"
        if global_state() != self.state:
            return "global state changed (grad mode, default dtype, autocast or deterministic algorithms)"
        for read in self.reads:
            failure = read.failure()
            if failure is not None:
                return failure
        for tensor, guard in self.constants:
            failure = guard.failure(tensor)
            if failure is not None:
                return failure
            if id(tensor) in self.hookless and tensor.__dict__.get("_leaf_hooks"):
                return f"{guard.name} has gradient hooks now (the graph's backward would skip them)"
            if id(tensor) in self.attribute_keys and not tensor.__dict__.keys() <= self.attribute_keys[id(tensor)]:
                return f"{guard.name} carries attributes the call reads"
        for position in self.leaves:
            if flat[position].grad_fn is not None:
                return f"input {position} has autograd history (the graph's backward stops at its inputs)"
        for description, reader in self.nones:
            found = reader(flat)
            if found is not None:       # (a reader may say itself what changed)
                return found if isinstance(found, str) else f"{description} == None"
        for reader, guard in self.sources:
            try:
                failure = guard.failure(reader(flat), sizes)
            except ReferenceError:
                failure = f"the owner of {guard.name} was freed"
            if failure is not None:
                return failure
        return None

    def drop(self, reads: list[Any], arguments: bool = True) -> None:
        """These reads no longer guarded, nor (arguments) the arguments that are not tensors (a graph break that
        changes them runs eagerly whatever they hold)."""
        dropped = set(map(id, reads))
        self.reads = [read for read in self.reads if id(read) not in dropped]
        if arguments:
            self.values = []
        self.fast = None

    def pin(self, objects: list[Any]) -> None:
        """The arguments among objects guarded as themselves, not on what they bind (a replay hands them back)."""
        handed = {id(o) for o in objects}
        for _, _, value in self.values:
            if isinstance(value, Snapshot) and id(value.value) in handed:
                value.binding = None

    def add_none(self, description: str, read: Callable[[list[Any]], Any]) -> None:
        self.nones.append((description, read))

    def add_source(self, description: str, read: Callable[[list[Any]], Any], tensor: torch.Tensor,
                   leaf: Any = None) -> None:
        """An input read from the program at each call: read(flat), or leaf's .grad (leaf held weakly)."""
        self.sources.append((read, TensorGuard.of(description, tensor)))
        self.source_owners.append(None if leaf is None else weakref.ref(leaf))
