"""torch._dynamo.made_results: the objects a compiled call makes and hands back, made anew by each replay.

A call may return an object it made that pytree does not flatten (a transformers DynamicCache holding the keys and
values it computed, a plain class or dataclass instance, a set), or assign one to a module attribute. Eager hands
each caller a new one, holding that call's tensors; a replay handing back the captured object would share it
between callers and hold stale tensors. So each replay copies the captured objects deeply, all of them through one
memo (an object reached twice, from two leaves or from a leaf and an attribute, is one object in the copy): the
tensors in them become the replay's graph outputs, and the objects that existed before the call (a module, a
config, a device) stay themselves, as eager would hand them out. (Not through copy.deepcopy: its protocol caches
__slotnames__ on the class, a change the guards on the class see.)

What existed before is told from what the call made by the cyclic garbage collector: a capture runs with the older
objects frozen (utils.older_objects_frozen), so gc.get_objects() then lists only objects made since (a container
the collector does not track, a dict of plain values, counts as made: copied). Only objects that copy by their
fields are made again: the builtin containers, bound methods, and instances of classes defined in Python that keep
the default copy protocol (no __deepcopy__, __copy__, __reduce__, __reduce_ex__, __getstate__ or __setstate__ of
their own, none registered with copyreg). Anything else the call made stays a graph break: a NumPy array, a
module, a class it defined or an instance of one, a subclass of a builtin, a function holding tensors or objects
it made, an object holding an argument's container (not guarded by identity: a replay's must be the caller's) or
one of the result's own lists or dicts (pytree makes those anew), and a dict of the result keyed by such an
object."""
from __future__ import annotations

import copyreg
import gc
import sys
import types
from typing import Any, Callable

import torch
from torch._dynamo.guards import slot_names
from torch._dynamo.plain_values import is_plain_value
from torch._dynamo.tensor_attributes import public_attributes

__all__ = ["MadeObjects", "plan", "result_problem"]

# handed back as themselves, never copied: values that cannot change (exactly these types: a subclass may carry
# attributes), modules and builtin functions
_ATOM_TYPES: tuple[type, ...] = (int, float, bool, str, bytes, complex, type(None), torch.dtype, torch.device, range,
                                 slice, types.ModuleType, types.BuiltinFunctionType)
_BUILTIN_ATOMS = (int, float, bool, str, bytes, complex, type(None))
_PROTOCOL = ("__deepcopy__", "__copy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")
_CONTAINERS = (list, tuple, dict, set, frozenset)
_MOST_OBJECTS = 10_000          # a result reaching more objects than this the call made stays a graph break
_HEAP_TYPE = 1 << 9             # Py_TPFLAGS_HEAPTYPE: a class defined in Python


class _Slot:
    """Where the template holds the graph output `index` (the captured tensor itself is not kept alive)."""
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class MadeObjects:
    """The objects a call made and hands back (result leaves, values it assigned to module attributes), made anew
    at each replay, together (one object reached from two of them is one object in both), from a template whose
    slots the replay's outputs fill."""

    def __init__(self, roots: list[Any], kept: dict[int, Any], tensors: list[torch.Tensor]) -> None:
        self.tensors = tensors          # the captured tensors they hold, in the order of their graph outputs
        self.kept = kept                # id -> an object that existed before the call, handed back as itself
        self.index = {id(root): i for i, root in enumerate(roots)}      # (ids of the captured call's objects)
        self.slots = [_Slot(i) for i in range(len(tensors))]
        memo = dict(kept)
        for tensor, slot in zip(tensors, self.slots):
            memo[id(tensor)] = slot
        self.template = _copy(tuple(roots), memo)

    def output_of(self, value: Any) -> int | None:
        """Where a replay finds its copy of value (one of the roots): counted from the end of the outputs, which
        a replay extends with the made objects."""
        at = self.index.get(id(value))
        return None if at is None else at - len(self.index)

    def place(self, first: int) -> list[torch.Tensor]:
        """The tensors they hold, to be the graph outputs from `first` on (the made objects let them go)."""
        for slot in self.slots:
            slot.index += first
        tensors, self.tensors = self.tensors, []
        return tensors

    def __call__(self, outputs: Any) -> tuple[Any, ...]:
        memo = dict(self.kept)
        for slot in self.slots:
            memo[id(slot)] = outputs[slot.index]
        return _copy(self.template, memo)


def plan(values: list[Any], known: Callable[[Any], bool], arguments: tuple[Any, ...],
         result: Any, inside: set[int] | frozenset[int] = frozenset()) -> MadeObjects | str | None:
    """How a replay makes again the values among `values` (result leaves, values assigned to module attributes)
    that are objects the call made: None when there are none, or why one cannot be (a graph break's reason).
    `arguments`: the call's (args, kwargs); `result`: what it returned; `inside`: the ids of the objects of the
    library arguments guarded on their structure (a replay's are the caller's, as an argument's containers). Called
    during the capture (the objects older than it frozen)."""
    containers, keys = _structure(result)
    candidates = {id(v): v for v in values if not (isinstance(v, torch.Tensor) or _atom(v) or known(v))}
    if not (keys or candidates):
        return None
    made = {id(o) for o in gc.get_objects()}
    key = next((k for k in keys if id(k) in made or not (gc.is_tracked(k) or _static(k) or known(k))), None)
    if key is not None:
        return f"the result is a dict keyed by a {type(key).__name__} the call made (a replay would hand back the " \
               "captured key)"
    roots = [v for key, v in candidates.items() if key in made or not (gc.is_tracked(v) or _static(v))]
    if not roots:           # all older than the call: handed back as themselves
        return None
    given = _argument_objects(arguments)
    kept: dict[int, Any] = {}
    tensors: dict[int, torch.Tensor] = {}
    reason = _walk(roots, made, known, {key for key, value in given.items() if not isinstance(value, torch.Tensor)}
                   | inside, containers, kept, tensors)
    if reason is None:
        reason = result_problem(list(tensors.values()), set(given))
    if reason is not None:
        return reason
    try:
        return MadeObjects(roots, kept, list(tensors.values()))
    except Exception as error:          # a class whose instances cannot be made without arguments
        return f"the result holds an object the call made that a replay cannot make again " \
               f"({type(error).__name__}: {error})"


def result_problem(leaves: list[Any], given: set[int]) -> str | None:
    """What in a result's leaves (or the tensors a made object holds) a replay would not give as eager does."""
    lazy = next((leaf for leaf in leaves if isinstance(leaf, (types.GeneratorType, types.CoroutineType))), None)
    if lazy is not None:
        return f"the result is a {type(lazy).__name__}, whose body runs as it is iterated (a replay would return " \
               "the captured one)"
    tensors = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
    if any(t.grad_fn is not None and t.retains_grad for t in tensors):
        return "the result is a tensor that retains its gradient (retain_grad): a replay's output would not"
    if any(id(t) not in given and public_attributes(t) for t in tensors):
        return "a tensor of the result carries attributes set in the call (a replay's result would not)"
    return None


def _structure(result: Any) -> tuple[set[int], list[Any]]:
    """The lists and dicts a result is made of (pytree rebuilds them at each replay: an object the call made must
    not hold one too), and the keys of its dicts that are not plain values."""
    containers: set[int] = set()
    keys: list[Any] = []
    stack = [result]
    while stack:
        value = stack.pop()
        if type(value) in (list, tuple) and id(value) not in containers:
            if type(value) is list:
                containers.add(id(value))
            stack.extend(value)
        elif isinstance(value, dict) and id(value) not in containers:
            containers.add(id(value))
            keys.extend(k for k in value if not _atom(k))
            stack.extend(value.values())
    return containers, keys


def _argument_objects(arguments: tuple[Any, ...]) -> dict[int, Any]:
    """The call's arguments and the lists, tuples and dicts holding them (by id): not guarded by identity (a new
    list of new tensors replays), so a replay's made object must not hold the captured call's."""
    found: dict[int, Any] = {}
    stack = list(arguments)
    while stack:
        value = stack.pop()
        if id(value) in found or _atom(value):
            continue
        found[id(value)] = value
        if type(value) in (list, tuple):
            stack.extend(value)
        elif type(value) is dict:
            stack.extend(value.values())
    return found


def _atom(value: Any) -> bool:
    """A value handed back as itself: one that cannot change (a number, a string, a torch.Size, a tuple of them),
    or a NumPy scalar."""
    kind = type(value)
    if kind in _ATOM_TYPES or (kind in (tuple, torch.Size) and is_plain_value(value)):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.generic)


def _walk(roots: list[Any], made: set[int], known: Callable[[Any], bool], arguments: set[int], structure: set[int],
          kept: dict[int, Any], tensors: dict[int, torch.Tensor]) -> str | None:
    """Sorts what the roots reach: tensors (to become graph outputs), objects from before the call (kept), and the
    objects the call made (copied: each must copy by its fields). The reason they cannot be made again, or None."""
    stack, seen = list(roots), set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, torch.Tensor):
            tensors[id(item)] = item
        elif _atom(item):
            if type(item) not in _BUILTIN_ATOMS:
                kept[id(item)] = item           # (a device, a dtype, a torch.Size: as itself)
        elif id(item) in structure:
            return f"the result's own {type(item).__name__} is also held by an object the call made or assigned " \
                   "(a replay would make two)"
        elif id(item) in arguments:
            return f"the result holds an argument (a {type(item).__name__}) inside an object the call made: a " \
                   "replay's would hold the captured call's"
        elif known(item) or (gc.is_tracked(item) and id(item) not in made) or _static(item):
            kept[id(item)] = item
        elif isinstance(item, types.FunctionType):      # made by the call: as itself if it holds nothing it made
            if any(isinstance(m, torch.Tensor) or id(m) in arguments
                   or not (_atom(m) or known(m) or (gc.is_tracked(m) and id(m) not in made)) for m in _held(item)):
                return "the result holds a function the call made, holding tensors or objects the call made " \
                       "(a replay would hand back the captured ones)"
            kept[id(item)] = item
        elif id(type(item)) in made:
            return f"the result holds an instance of {type(item).__name__}, a class the call defined (a replay " \
                   "would hand out the captured class)"
        else:
            members = _members(item)
            if members is None:
                return f"the result holds a {type(item).__name__} the call made, which a replay cannot make " \
                       "again (only containers and objects that copy by their fields are)"
            if len(seen) > _MOST_OBJECTS:
                return f"the result reaches more than {_MOST_OBJECTS} objects the call made"
            stack.extend(members)
    return None


def _static(item: Any) -> bool:
    """A class defined in C (int, a library's extension type): never made by a call, and not tracked by the
    collector."""
    return isinstance(item, type) and not item.__flags__ & _HEAP_TYPE


def _held(function: types.FunctionType) -> list[Any]:
    """What a function holds: its closure's values, its defaults and its attributes."""
    cells = []
    for cell in function.__closure__ or ():
        try:
            cells.append(cell.cell_contents)
        except ValueError:          # a cell not filled yet
            continue
    return [*cells, *(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values(),
            *vars(function).values()]


def _members(item: Any) -> list[Any] | None:
    """What a made object holds, as _copy copies it; None for one that does not copy by its fields (a class or a
    function the call made, a subclass of a builtin container, an object with a copy protocol of its own)."""
    kind = type(item)
    if kind in _CONTAINERS:
        return [*item.keys(), *item.values()] if kind is dict else list(item)
    if kind is types.MethodType:        # bound to an object: made again bound to that object's copy
        return [item.__func__, item.__self__]
    if isinstance(item, (type, types.FunctionType, torch.nn.Module, torch.Tensor, *_CONTAINERS, *_ATOM_TYPES)) \
            or kind in copyreg.dispatch_table \
            or not kind.__flags__ & _HEAP_TYPE:
        return None
    if any(getattr(kind, name, None) is not getattr(object, name, None) for name in _PROTOCOL):
        return None
    slots = [getattr(item, name) for name in slot_names(kind) if hasattr(item, name)]
    return [*getattr(item, "__dict__", {}).values(), *slots]


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    """value copied deeply as copy.deepcopy copies containers and objects of the default protocol (a new instance
    of its class, its __dict__ and slots copied), memo giving what an object already is in the copy."""
    key = id(value)
    if key in memo:
        return memo[key]
    kind: Any = type(value)
    if kind in _BUILTIN_ATOMS:
        return value
    if kind is list:
        out: Any = memo.setdefault(key, [])
        out.extend(_copy(v, memo) for v in value)
    elif kind is dict:
        out = memo.setdefault(key, {})
        for k, v in value.items():
            out[_copy(k, memo)] = _copy(v, memo)
    elif kind is set:
        out = memo.setdefault(key, set())
        out.update(_copy(v, memo) for v in value)
    elif kind in (tuple, frozenset):
        out = memo.setdefault(key, kind(_copy(v, memo) for v in value))
    elif kind is types.MethodType:
        out = memo.setdefault(key, types.MethodType(_copy(value.__func__, memo), _copy(value.__self__, memo)))
    else:
        out = memo.setdefault(key, kind.__new__(kind))
        if isinstance(getattr(value, "__dict__", None), dict):
            vars(out).update({k: _copy(v, memo) for k, v in vars(value).items()})
        for name in slot_names(kind):
            if hasattr(value, name):
                object.__setattr__(out, name, _copy(getattr(value, name), memo))
    return out
