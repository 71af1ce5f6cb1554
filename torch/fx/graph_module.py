"""torch.fx.graph_module: GraphModule, an nn.Module whose forward is generated from a Graph, holding
the submodules, parameters and buffers the graph's get_attr / call_module nodes name."""
from __future__ import annotations

import copy
import functools
import itertools
import linecache
import warnings
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch.fx._codegen import _custom_builtins
from torch.fx.graph import Graph, PythonCode

if TYPE_CHECKING:
    from torch.fx._symbolic_trace import Tracer
    from torch.fx.node import Node

__all__ = ["GraphModule", "reduce_graph_module"]


class _SourceCache:
    """Registers generated sources with linecache under '<eval_with_key>.N', so tracebacks through a
    generated forward show its lines."""

    def __init__(self) -> None:
        self.next_id = 0

    def register(self, src: str) -> str:
        key = f"<eval_with_key>.{self.next_id}"
        self.next_id += 1
        linecache.cache[key] = (len(src), None, src.splitlines(True), key)
        return key


_source_cache = _SourceCache()


def _method_from_src(method_name: str, src: str, globals: dict[str, Any]) -> Callable[..., Any]:
    namespace = dict(globals)
    exec(compile(src, _source_cache.register(src), "exec", dont_inherit=True), namespace)
    method: Callable[..., Any] = namespace[method_name]
    return method


def _forward_from_src(src: str, globals: dict[str, Any]) -> Callable[..., Any]:
    return _method_from_src("forward", src, globals)


def _format_import_statement(name: str, obj: Any) -> str:
    if name in _custom_builtins:
        return _custom_builtins[name].import_str
    module_name = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", getattr(obj, "__name__", None))
    if module_name is None or qualname is None or "<locals>" in qualname:
        raise RuntimeError(f"Cannot pickle a GraphModule that references {obj!r} ({name}): it is not importable")
    if "." in qualname:
        head, _, rest = qualname.partition(".")
        return f"from {module_name} import {head} as _{name}_owner; {name} = _{name}_owner.{rest}"
    return f"from {module_name} import {qualname} as {name}"


def _imports_source(globals: dict[str, Any]) -> str:
    """The import statements recreating globals, one a line, each once, in sorted order (so equal
    graphs pickle to equal text)."""
    ordered = sorted(_format_import_statement(name, obj) for name, obj in globals.items())
    return "\n".join(line for line, _ in itertools.groupby(ordered) if line)


def reduce_graph_module(body: dict[str, Any], import_block: str) -> torch.nn.Module:
    """Rebuild a pickled GraphModule from its attributes and generated code (by re-tracing the code)."""
    # pickles from before the code moved to "_code" keep it under "code"
    saved_code = next(body[key] for key in ("_code", "code") if body.get(key))
    return _revive(body, import_block + saved_code)


class _AttributeShell(torch.nn.Module):
    """A module that is nothing but a saved GraphModule's attribute dict (its children, parameters and
    buffers included); GraphModule.__init__ copies everything such a root holds."""

    @classmethod
    def around(cls, attributes: dict[str, Any], forward: Callable[..., Any] | None = None) -> _AttributeShell:
        shell_type = cls if forward is None else type(cls.__name__, (cls,), {"forward": forward})
        shell: _AttributeShell = torch.nn.Module.__new__(shell_type)
        object.__setattr__(shell, "__dict__", attributes)
        return shell


def _every_module_is_a_leaf(_module: torch.nn.Module, _qualified_name: str) -> bool:
    return True


def _retrace(shell: _AttributeShell, body: dict[str, Any]) -> Graph:
    """The graph of shell's forward, traced with the tracer class the module was made with."""
    from torch.fx._symbolic_trace import Tracer
    chosen: type[Tracer] = body.get("_tracer_cls") or Tracer
    tracer = chosen()
    # the code already calls each submodule exactly as the original graph did: record calls, don't inline them
    setattr(tracer, "is_leaf_module", _every_module_is_a_leaf)
    graph = tracer.trace(shell, **body.get("_tracer_extras", {}))
    graph._tracer_cls = chosen
    return graph


def _revive(body: dict[str, Any], source: str) -> torch.nn.Module:
    shell = _AttributeShell.around(body, _forward_from_src(source, {}))
    revived = GraphModule(shell, _retrace(shell, body), class_name=body.get("_graphmodule_cls_name", "GraphModule"))
    # plain attributes the graph never reads and __init__ did not set come back as they were
    vars(revived).update({key: value for key, value in body.items() if not hasattr(revived, key)})
    return revived


def _child_or_new(owner: Any, name: str) -> Any:
    existing = getattr(owner, name, None)
    if existing is None:
        existing = torch.nn.Module()
        setattr(owner, name, existing)
    return existing


def _install(gm: torch.nn.Module, dotted: str, value: Any) -> None:
    """Put value at dotted under gm (missing parents become empty Modules); a tensor that is not a
    Parameter is registered as a buffer, so state_dict and .to() see it."""
    *path, leaf = dotted.split(".")
    holder = functools.reduce(_child_or_new, path, gm)
    plain_tensor = isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter)
    if plain_tensor:
        holder.register_buffer(leaf, value)
    else:
        setattr(holder, leaf, value)


def _shares_a_parent(source_root: Any, gm: Any, path: list[str]) -> bool:
    """Whether gm already holds, at some prefix of path, the very object source_root has there."""
    here, there = source_root, gm
    for step in path:
        here, there = getattr(here, step), getattr(there, step, None)
        if there is None:
            return False
        if there is here:
            return True
    return False


def _mirror(source_root: torch.nn.Module, gm: torch.nn.Module, dotted: str) -> None:
    """Give gm what source_root holds at dotted, unless gm reaches it through a shared parent already."""
    path = dotted.split(".")
    if not _shares_a_parent(source_root, gm, path[:-1]):
        _install(gm, dotted, functools.reduce(getattr, path, source_root))


def _graph_targets(graph: Graph) -> Iterator[tuple[Node, str]]:
    """(node, dotted target) of every node that reads a module attribute (get_attr, call_module)."""
    for node in graph.nodes:
        if node.op == "get_attr" or node.op == "call_module":
            assert isinstance(node.target, str)
            yield node, node.target


def _populate_from_module(gm: GraphModule, root: torch.nn.Module, graph: Graph) -> None:
    gm.training = getattr(root, "training", gm.training)
    wanted: list[str] = []
    if isinstance(root, _AttributeShell):
        # an unpickled or deep-copied module keeps everything it had, whether the graph uses it or not
        for named in (root.named_children(), root.named_buffers(), root.named_parameters()):
            wanted.extend(name for name, _ in named)
    wanted.extend(target for _, target in _graph_targets(graph))
    for target in wanted:
        _mirror(root, gm, target)


def _populate_from_dict(gm: GraphModule, root: dict[str, Any], graph: Graph) -> None:
    # grouped by depth, each group in first-use order: storing "a" after "a.b" would replace the Module
    # that holds "a.b"
    by_depth: dict[int, dict[str, None]] = {}
    for node, target in _graph_targets(graph):
        if target not in root:
            raise RuntimeError("Node " + str(node) + " referenced target " + target
                               + " but that target was not provided in ``root``!")
        by_depth.setdefault(target.count("."), {})[target] = None
    for depth in sorted(by_depth):
        for target in by_depth[depth]:
            _install(gm, target, root[target])


# classes made by GraphModule.__new__, each mapped to the class the caller asked for
_per_instance_classes: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()

# the hook lists Graph consults on its owning module
_FX_HOOK_LISTS = ("_replace_hooks", "_create_node_hooks", "_erase_node_hooks", "_deepcopy_hooks")
# hook registries __init__ starts afresh that a deep copy takes over from the original
_KEPT_BY_DEEPCOPY = ("_state_dict_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     *_FX_HOOK_LISTS)
# meta[this key] names attributes (name -> value) a deep copy sets on the copy
_PRESERVED_KEY = "_user_preserved_attributes"
_READABLE_HINT = "# To see more debug info, please use `graph_module.print_readable()`"


def _deepcopy_extras(state: dict[str, Any]) -> dict[str, Any]:
    """The attributes a deep copy sets after __init__, from the original's (copied) state."""
    extras = {key: state[key] for key in _KEPT_BY_DEEPCOPY if key in state}
    meta = extras["meta"] = state.get("meta", {})
    extras.update(meta.get(_PRESERVED_KEY, {}))
    return extras


def _sharing_meta(new: GraphModule, old: GraphModule) -> GraphModule:
    new.meta = getattr(old, "meta", {})
    return new


class GraphModule(torch.nn.Module):
    """An nn.Module generated from a Graph: ``graph``, ``code`` and ``forward``. Assigning ``graph``
    regenerates the code; after editing the graph in place, call ``recompile()``."""

    _replace_hooks: list[Callable[..., Any]]
    _create_node_hooks: list[Callable[..., Any]]
    _erase_node_hooks: list[Callable[..., Any]]
    _deepcopy_hooks: list[Callable[..., Any]]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # recompile() installs forward on the class, so every instance gets a private subclass of the class
        # asked for (which, when copying an instance, is the one its private class was made from)
        visible = _per_instance_classes.get(cls, cls)
        private = type("GraphModuleImpl", (visible,), {
            "__module__": __name__,
            "__qualname__": "GraphModule.__new__.<locals>.GraphModuleImpl",
        })
        _per_instance_classes[private] = visible
        return super().__new__(private)

    def __init__(self, root: torch.nn.Module | dict[str, Any], graph: Graph, class_name: str = "GraphModule") -> None:
        super().__init__()
        type(self).__name__ = class_name
        if isinstance(root, torch.nn.Module):
            _populate_from_module(self, root, graph)
        elif isinstance(root, dict):
            _populate_from_dict(self, root, graph)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph
        # a tracer class defined inside a function could not be imported back when unpickling
        tracer_cls = graph._tracer_cls
        importable = tracer_cls is not None and "<locals>" not in tracer_cls.__qualname__
        self._tracer_cls: type[Tracer] | None = tracer_cls if importable else None
        self._tracer_extras: dict[str, Any] = graph._tracer_extras or {}
        self.meta: dict[str, Any] = {}
        for hook_list in _FX_HOOK_LISTS:
            setattr(self, hook_list, [])

    @property
    def graph(self) -> Graph:
        """The Graph this module's code is generated from."""
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of the generated forward."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self) -> PythonCode:
        """Regenerate code and forward from ``graph`` (needed after editing the graph in place)."""
        python_code = self._graph.python_code(root_module="self")
        info = getattr(self._graph._codegen, "pytree_info", None)
        if info is not None:                # nested inputs and outputs: the structures the code refers to
            self._in_spec, self._out_spec = info.in_spec, info.out_spec
        self._code = python_code.src
        self._lineno_map = python_code._lineno_map
        self._prologue_start = python_code._prologue_start
        type(self).forward = _forward_from_src(self._code, python_code.globals)
        for _, child in self.named_children():
            if isinstance(child, GraphModule):
                child.recompile()
        return python_code

    # -- editing the module hierarchy ---------------------------------------------------------------------------------
    def _module_owning(self, target: str, create_missing: bool) -> tuple[torch.nn.Module, str] | None:
        """(parent Module, last name) of dotted target; None when a parent is missing (and not created) or
        is not a Module."""
        *parents, leaf = target.split(".")
        owner: torch.nn.Module = self
        for name in parents:
            nested = getattr(owner, name, None)
            if nested is None and create_missing:
                nested = torch.nn.Module()
                setattr(owner, name, nested)
            if not isinstance(nested, torch.nn.Module):
                return None
            owner = nested
        return owner, leaf

    def add_submodule(self, target: str, m: torch.nn.Module) -> bool:
        """Install m at dotted target, creating empty parents; False if a parent is not a Module."""
        located = self._module_owning(target, create_missing=True)
        if located is None:
            return False
        owner, leaf = located
        owner.add_module(leaf, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Remove the submodule at dotted target; False if target does not name a submodule."""
        located = self._module_owning(target, create_missing=False)
        if located is None:
            return False
        owner, leaf = located
        if not isinstance(getattr(owner, leaf, None), torch.nn.Module):
            return False
        delattr(owner, leaf)
        return True

    def delete_all_unused_submodules(self) -> None:
        """Remove the submodules no call_module / get_attr node reaches (parents of used ones stay)."""
        kept: set[str] = set()
        called: list[str] = []
        for node, target in _graph_targets(self.graph):
            dotted = ""
            for part in target.split("."):
                dotted = f"{dotted}.{part}" if dotted else part
                kept.add(dotted)
            if node.op == "call_module":
                called.append(target + ".")  # whatever a called module holds, its forward may use

        def unused(name: str) -> bool:
            return bool(name) and name not in kept and not any(name.startswith(prefix) for prefix in called)

        for name in [name for name, _ in self.named_modules() if unused(name)]:
            self.delete_submodule(name)

    # -- copying and saving -------------------------------------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, ...]:
        # Saved as attributes plus generated code, not as a Graph: unpickling re-traces the code, so a pickle
        # does not depend on how Graph and Node are laid out.
        imports = _imports_source(GraphModule.recompile(self).globals)   # a lazy module's code too
        attributes = {name: value for name, value in self.__dict__.items() if name != "_graph"}
        return reduce_graph_module, (attributes, imports)

    def __deepcopy__(self, memo: dict[int, Any]) -> GraphModule:
        twin = type(self).__new__(type(self))
        memo[id(self)] = twin  # before copying the state, which may refer back to self
        state = copy.deepcopy(self.__dict__, memo)
        # the copied state (children, parameters, buffers) is the root; the copied graph is the graph
        GraphModule.__init__(twin, _AttributeShell.around(state), state["_graph"])
        for name, value in _deepcopy_extras(state).items():
            setattr(twin, name, value)
        for hook in getattr(self, "_deepcopy_hooks", ()):
            hook(twin)
        return twin

    def __copy__(self) -> GraphModule:
        # shares the children, the graph and the meta dict with self
        return _sharing_meta(GraphModule(self, self.graph), self)

    def to_folder(self, folder: str | Path, module_name: str = "FxModule") -> None:
        """Write this module as an importable package: ``from <folder> import <module_name>``."""
        from torch.fx._folder import write_module_folder
        pickled = write_module_folder(self, Path(folder), module_name)
        if pickled:
            warnings.warn("Was not able to save the following children modules as reprs -"
                          f"saved as pickled files instead: {pickled}")

    # -- printing -----------------------------------------------------------------------------------------------------
    def print_readable(self, print_output: bool = True, include_stride: bool = False, include_device: bool = False,
                       colored: bool = False) -> str:
        """The generated code of this module and its GraphModule children as a class, with tensor
        shapes where a pass recorded them."""
        output = "\n".join(_readable_lines(self, self._get_name(), include_stride, include_device))
        if print_output:
            print(output)
        return output

    def __str__(self) -> str:
        return f"{super().__str__()}\n{self._code}\n{_READABLE_HINT}"


def _indented(lines: list[str]) -> list[str]:
    return [f"    {line}" if line.strip() else "" for line in lines]


def _readable_lines(module: GraphModule, class_name: str, include_stride: bool, include_device: bool) -> list[str]:
    """module as a class: its verbose forward, then each GraphModule child as a nested class."""
    forward = module.graph.python_code(root_module="self", verbose=True, include_stride=include_stride,
                                       include_device=include_device).src
    lines = [f"class {class_name}(torch.nn.Module):", *_indented(forward.lstrip("\n").split("\n"))]
    for name, child in module.named_children():
        if isinstance(child, GraphModule):
            lines += _indented(_readable_lines(child, name, include_stride, include_device))
    return lines
