"""torch.utils._pytree: nested containers (pytrees) flattened to a list of leaves and a TreeSpec
that rebuilds them, with PyTorch's registry, key paths, map helpers and JSON spec format.

Nodes are tuple, list, dict, OrderedDict, defaultdict, deque, namedtuples, structseqs
(torch.return_types) and the types given to register_pytree_node; everything else (None too) is a
leaf. A dict's children follow its insertion order, as in PyTorch."""
from __future__ import annotations

import collections
import dataclasses
import json
from typing import Any, Callable, Iterable, NamedTuple

__all__ = ["PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
           "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get",
           "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path", "tree_unflatten",
           "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_with_path",
           "tree_map_", "tree_map_only", "tree_map_only_", "tree_all", "tree_any", "tree_all_only", "tree_any_only",
           "treespec_dumps", "treespec_loads", "treespec_pprint", "is_namedtuple", "is_namedtuple_class",
           "is_namedtuple_instance", "is_structseq", "is_structseq_class", "is_structseq_instance",
           "SequenceKey", "MappingKey", "GetAttrKey"]

PyTree = Any
Context = Any
DumpableContext = Any
FlattenFn = Callable[[PyTree], "tuple[list[Any], Context]"]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
TREE_SPEC_PROTOCOL = 1


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Callable[[Any], tuple[list[Any], Any]]
    unflatten_fn: Callable[[Iterable[Any], Any], Any]
    flatten_with_keys_fn: Callable[[Any], tuple[list[tuple[Any, Any]], Any]] | None


class _Serialization(NamedTuple):
    name: str
    to_dumpable: Callable[[Any], Any] | None
    from_dumpable: Callable[[Any], Any] | None


SUPPORTED_NODES: dict[Any, NodeDef] = {}
_SERIALIZED: dict[Any, _Serialization] = {}
_BY_SERIALIZED_NAME: dict[str, Any] = {}


def register_pytree_node(cls: Any, flatten_fn: Callable[[Any], tuple[list[Any], Any]],
                         unflatten_fn: Callable[[Iterable[Any], Any], Any], *, serialized_type_name: str | None = None,
                         to_dumpable_context: Callable[[Any], Any] | None = None,
                         from_dumpable_context: Callable[[Any], Any] | None = None,
                         flatten_with_keys_fn: Callable[[Any], tuple[list[tuple[Any, Any]], Any]] | None = None
                         ) -> None:
    """Make cls a pytree node: flatten_fn(node) -> (children, context), unflatten_fn(children, context)."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or registered.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    if serialized_type_name is not None:
        _SERIALIZED[cls] = _Serialization(serialized_type_name, to_dumpable_context, from_dumpable_context)
        _BY_SERIALIZED_NAME[serialized_type_name] = cls


# ---- key paths ----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Any) -> Any:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


def keystr(kp: tuple[Any, ...]) -> str:
    """A key path as text: "['a'][1][0]"."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: tuple[Any, ...]) -> Any:
    for k in kp:
        obj = k.get(obj)
    return obj


# ---- the built-in nodes ---------------------------------------------------------------------------

def is_namedtuple_class(cls: Any) -> bool:
    fields = getattr(cls, "_fields", None)
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(fields, tuple) \
        and all(isinstance(f, str) for f in fields) and callable(getattr(cls, "_make", None))


def is_namedtuple_instance(obj: Any) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj: Any) -> bool:
    """Whether obj is a namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls: Any) -> bool:
    """A PyStructSequence type (torch.return_types, os.stat_result): a tuple subclass with n_fields."""
    return isinstance(cls, type) and issubclass(cls, tuple) and all(
        isinstance(getattr(cls, name, None), int) for name in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))


def is_structseq_instance(obj: Any) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj: Any) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _seq_keys(children: list[Any]) -> list[tuple[Any, Any]]:
    return [(SequenceKey(i), c) for i, c in enumerate(children)]


def _dict_flatten(d: dict[Any, Any]) -> tuple[list[Any], Any]:
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d: dict[Any, Any]) -> tuple[list[tuple[Any, Any]], Any]:
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _dict_unflatten(values: Iterable[Any], context: Any) -> dict[Any, Any]:
    return dict(zip(context, values))


def _namedtuple_keys(t: Any) -> tuple[list[tuple[Any, Any]], Any]:
    return [(GetAttrKey(name), getattr(t, name)) for name in t._fields], type(t)


def _defaultdict_flatten(d: Any) -> tuple[list[Any], Any]:
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_keys(d: Any) -> tuple[list[tuple[Any, Any]], Any]:
    return [(MappingKey(k), v) for k, v in d.items()], [d.default_factory, list(d.keys())]


register_pytree_node(tuple, lambda t: (list(t), None), lambda v, c: tuple(v), serialized_type_name="builtins.tuple",
                     flatten_with_keys_fn=lambda t: (_seq_keys(list(t)), None))
register_pytree_node(list, lambda t: (list(t), None), lambda v, c: list(v), serialized_type_name="builtins.list",
                     flatten_with_keys_fn=lambda t: (_seq_keys(list(t)), None))
register_pytree_node(dict, _dict_flatten, _dict_unflatten, serialized_type_name="builtins.dict",
                     flatten_with_keys_fn=_dict_flatten_with_keys)
register_pytree_node(collections.namedtuple, lambda t: (list(t), type(t)), lambda v, c: c(*v),
                     serialized_type_name="collections.namedtuple", flatten_with_keys_fn=_namedtuple_keys)
register_pytree_node(collections.OrderedDict, _dict_flatten, lambda v, c: collections.OrderedDict(zip(c, v)),
                     serialized_type_name="collections.OrderedDict", flatten_with_keys_fn=_dict_flatten_with_keys)
register_pytree_node(collections.defaultdict, _defaultdict_flatten,
                     lambda v, c: collections.defaultdict(c[0], zip(c[1], v)),
                     serialized_type_name="collections.defaultdict", flatten_with_keys_fn=_defaultdict_keys)
register_pytree_node(collections.deque, lambda d: (list(d), d.maxlen),
                     lambda v, c: collections.deque(v, maxlen=c), serialized_type_name="collections.deque",
                     flatten_with_keys_fn=lambda d: (_seq_keys(list(d)), d.maxlen))
_STRUCTSEQ = object()        # the registry key of every structseq type
SUPPORTED_NODES[_STRUCTSEQ] = NodeDef(_STRUCTSEQ, lambda s: (list(s), type(s)), lambda v, c: c(tuple(v)),
                                      lambda s: (_seq_keys(list(s)), type(s)))


def _node_type(tree: Any) -> Any:
    """The registry key of a node (None for a leaf)."""
    cls = type(tree)
    if cls in SUPPORTED_NODES:
        return cls
    if is_namedtuple_class(cls):
        return collections.namedtuple
    if is_structseq_class(cls):
        return _STRUCTSEQ
    return None


def _get_node_type(tree: Any) -> Any:
    """The registry key of tree's type, as PyTorch's: every namedtuple type has one key, every
    structseq type another; any other type is its own key (registered or not)."""
    key = _node_type(tree)
    return type(tree) if key is None else key


def tree_is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) is None


# ---- TreeSpec -------------------------------------------------------------------------------------

class TreeSpec:
    """The structure of a pytree: a node's type and context and its children's specs (a leaf: "*")."""

    def __init__(self, type: Any, context: Any, children_specs: list["TreeSpec"]) -> None:
        self.type = type
        self.context = context
        self._children = list(children_specs)
        self.num_nodes: int = 1 + sum(c.num_nodes for c in self._children)
        self.num_leaves: int = sum(c.num_leaves for c in self._children)
        self.num_children: int = len(self._children)

    @property
    def children_specs(self) -> list["TreeSpec"]:
        return self._children

    def is_leaf(self) -> bool:
        return self.type is None

    def children(self) -> list["TreeSpec"]:
        return list(self._children)

    def child(self, index: int) -> "TreeSpec":
        return self._children[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TreeSpec) and (self.type, self.context, self._children) == \
            (other.type, other.context, other._children)

    def __hash__(self) -> int:
        return hash((self.type, repr(self.context), tuple(self._children)))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        name = getattr(self.type, "__name__", "structseq" if self.type is _STRUCTSEQ else repr(self.type))
        text = ""
        if self._children:
            indent += 2
            text = self._children[0].__repr__(indent) + ("," if self.num_children > 1 else "")
            text += ",".join("\n" + " " * indent + child.__repr__(indent) for child in self._children[1:])
        return f"TreeSpec({name}, {self.context}, [{text}])"

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        return self._build(iter(leaves))

    def _build(self, leaves: Any) -> PyTree:
        if self.is_leaf():
            return next(leaves)
        children = [child._build(leaves) for child in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self.context)

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """tree's subtrees at this spec's leaves (tree must have this structure down to them)."""
        out: list[PyTree] = []
        self._up_to(tree, out)
        return out

    def _up_to(self, tree: PyTree, out: list[PyTree]) -> None:
        if self.is_leaf():
            out.append(tree)
            return
        kind = _node_type(tree)
        if kind != self.type:
            raise ValueError(f"Node type mismatch; expected {self.type}, but got {type(tree)}.")
        children, context = SUPPORTED_NODES[kind].flatten_fn(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
        if context != self.context:
            raise ValueError(f"Node context mismatch for custom node type {self.type}.")
        for child_spec, child in zip(self._children, children):
            child_spec._up_to(child, out)


class LeafSpec(TreeSpec):
    def __init__(self) -> None:
        super().__init__(None, None, [])
        self.num_leaves = 1


_LEAF = LeafSpec()
PyTreeSpec = TreeSpec


# ---- flatten, unflatten and maps ------------------------------------------------------------------

def _flatten(tree: PyTree, leaves: list[Any], is_leaf: Callable[[PyTree], bool] | None) -> TreeSpec:
    kind = None if is_leaf is not None and is_leaf(tree) else _node_type(tree)
    if kind is None:
        leaves.append(tree)
        return _LEAF
    children, context = SUPPORTED_NODES[kind].flatten_fn(tree)
    return TreeSpec(kind, context, [_flatten(child, leaves, is_leaf) for child in children])


def tree_flatten(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> tuple[list[Any], TreeSpec]:
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves, is_leaf)


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but "
                        f"got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_leaves(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> Iterable[Any]:
    return iter(tree_leaves(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
             is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """func applied to each leaf (with the leaves at the same places of rests), in tree's structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    columns = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*args) for args in zip(*columns))


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
              is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """func called on each leaf for its effect; returns tree itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    for args in zip(leaves, *[spec.flatten_up_to(r) for r in rests]):
        func(*args)
    return tree


def _only(type_or_types: Any, func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    types = tuple(type_or_types) if isinstance(type_or_types, (tuple, list, set)) else (type_or_types,)
    return lambda x: func(x) if isinstance(x, types) else x


def tree_map_only(type_or_types: Any, func: Callable[[Any], Any], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    return tree_map(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types: Any, func: Callable[[Any], Any], tree: PyTree,
                   is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    return tree_map_(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all_only(type_or_types: Any, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    types = tuple(type_or_types) if isinstance(type_or_types, (tuple, list, set)) else (type_or_types,)
    return all(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, types))


def tree_any_only(type_or_types: Any, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    types = tuple(type_or_types) if isinstance(type_or_types, (tuple, list, set)) else (type_or_types,)
    return any(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, types))


def _flatten_with_path(tree: PyTree, path: tuple[Any, ...], out: list[tuple[tuple[Any, ...], Any]],
                       is_leaf: Callable[[PyTree], bool] | None) -> TreeSpec:
    kind = None if is_leaf is not None and is_leaf(tree) else _node_type(tree)
    if kind is None:
        out.append((path, tree))
        return _LEAF
    node = SUPPORTED_NODES[kind]
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {kind}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    keyed, context = node.flatten_with_keys_fn(tree)
    return TreeSpec(kind, context, [_flatten_with_path(child, path + (key,), out, is_leaf) for key, child in keyed])


def tree_flatten_with_path(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
                           ) -> tuple[list[tuple[tuple[Any, ...], Any]], TreeSpec]:
    out: list[tuple[tuple[Any, ...], Any]] = []
    return out, _flatten_with_path(tree, (), out, is_leaf)


def tree_leaves_with_path(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
                          ) -> list[tuple[tuple[Any, ...], Any]]:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
                       is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    columns = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(path, leaf, *others) for (path, leaf), *others in zip(pairs, *columns))


# ---- JSON -----------------------------------------------------------------------------------------

def _spec_to_json(spec: TreeSpec) -> dict[str, Any]:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    entry = _SERIALIZED.get(spec.type)
    if entry is None:
        raise NotImplementedError(f"No registered serialization name for {spec.type} found. Please update your "
                                  "_register_pytree_node call with a `serialized_type_name` kwarg.")
    context = spec.context
    if spec.type is collections.namedtuple:
        context = f"{context.__module__}.{context.__qualname__}"
    elif entry.to_dumpable is not None:
        context = entry.to_dumpable(context)
    elif spec.type is collections.defaultdict:
        context = [f"{context[0].__module__}.{context[0].__qualname__}", context[1]]
    return {"type": entry.name, "context": json.dumps(context),
            "children_spec": [_spec_to_json(child) for child in spec.children_specs]}


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """The spec as PyTorch's JSON: [protocol, {"type", "context", "children_spec"}]."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"treespec_dumps(treespec, protocol): Expected `treespec` to be instance of TreeSpec but "
                        f"got item of type {type(treespec)}.")
    protocol = TREE_SPEC_PROTOCOL if protocol is None else protocol
    if protocol != TREE_SPEC_PROTOCOL:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [{TREE_SPEC_PROTOCOL}]")
    return json.dumps([protocol, _spec_to_json(treespec)])


def _spec_from_json(entry: dict[str, Any]) -> TreeSpec:
    if entry["type"] is None:
        return LeafSpec()
    kind = _BY_SERIALIZED_NAME.get(entry["type"])
    if kind is None:
        raise NotImplementedError(f"No registered serialization type for {entry['type']} found.")
    context = json.loads(entry["context"])
    serialization = _SERIALIZED[kind]
    if kind in (collections.namedtuple, collections.defaultdict):
        raise NotImplementedError(f"treespec_loads: a {entry['type']} context names a class by its path; "
                                  "load it by registering the class with from_dumpable_context")
    if serialization.from_dumpable is not None:
        context = serialization.from_dumpable(context)
    return TreeSpec(kind, context, [_spec_from_json(child) for child in entry["children_spec"]])


def treespec_loads(serialized: str) -> TreeSpec:
    protocol, entry = json.loads(serialized)
    if protocol != TREE_SPEC_PROTOCOL:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [{TREE_SPEC_PROTOCOL}]")
    return _spec_from_json(entry)


def treespec_pprint(treespec: TreeSpec) -> str:
    """The spec drawn as the tree it describes, "*" for each leaf: TreeSpec((*, [*, *]))."""
    leaves = ["*"] * treespec.num_leaves

    class _Star:
        def __repr__(self) -> str:
            return "*"

    return repr(treespec.unflatten([_Star() for _ in leaves]))
