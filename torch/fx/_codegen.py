"""Python source generation for torch.fx graphs: the naming rules shared with Graph, the operator
spellings, and CodeGen, which turns a node list into the ``forward`` function of a GraphModule in
PyTorch 2.x's layout (each value freed after its last use, torch functions by qualified name)."""
from __future__ import annotations

import builtins
import enum
import functools
import itertools
import keyword
import re
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import torch
from torch.fx._tensor_text import _stringify_shape, dtype_abbrs
from torch.fx.node import Argument, Node, _annotation_text, _get_qualified_name, _is_tensor_method, _public_torch_path

__all__ = ["CodeGen", "PythonCode"]


@dataclass(frozen=True)
class _Preloaded:
    """A global every generated module starts with: the statement binding it, and what it binds."""

    import_str: str
    value: object

    @classmethod
    def run(cls, statement: str) -> tuple[str, _Preloaded]:
        """(bound name, entry) for a statement binding exactly one name."""
        scope: dict[str, Any] = {}
        exec(statement, scope)
        del scope["__builtins__"]
        ((bound, value),) = scope.items()
        return bound, cls(statement, value)


# the statements also head every saved module (to_folder), in this order
_custom_builtins: dict[str, _Preloaded] = dict(map(_Preloaded.run, (
    "from math import inf", "from math import nan", "NoneType = type(None)", "import torch",
    "from torch import device", "import torch.fx._pytree as fx_pytree", "import torch.utils._pytree as pytree")))

# Names generated code may not bind, each with the one object it may still stand for: keywords stand for
# nothing, builtins and the preset globals for themselves (later entries win: vars(builtins) has "None").
_RESERVED: dict[str, object] = {
    **{word: object() for word in keyword.kwlist},
    **vars(builtins),
    **{name: preset.value for name, preset in _custom_builtins.items()},
}

reflectable_magic_methods = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
    "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}",
    "and_": "{} & {}", "or_": "{} | {}", "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
}
magic_methods = {
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
    "pos": "+{}", "neg": "-{}", "invert": "~{}", **reflectable_magic_methods,
}
inplace_methods = {
    "iadd": "{} += {}", "iand": "{} &= {}", "ifloordiv": "{} //= {}", "ilshift": "{} <<= {}", "imod": "{} %= {}",
    "imul": "{} *= {}", "imatmul": "{} @= {}", "ior": "{} |= {}", "ipow": "{} **= {}", "irshift": "{} >>= {}",
    "isub": "{} -= {}", "itruediv": "{} /= {}", "ixor": "{} ^= {}", "setitem": "{}[{}] = {}",
}

# A parametrised typing alias keeps its typing spelling (typing.List[int] -> typing_List[int]); its
# __origin__ is the builtin, so each alias is found from that.
_ALIAS_OF_BUILTIN: dict[Any, Any] = {
    typing.get_origin(alias): alias for alias in (typing.List, typing.Dict, typing.Set, typing.FrozenSet, typing.Tuple)}


# -- naming ---------------------------------------------------------------------------------------------------------

_CAMEL_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NOT_IDENTIFIER_CHARS = re.compile(r"[^0-9A-Za-z_]+")


def _snake_case(s: str) -> str:
    """'pascalCase' -> 'pascal_case', 'ALL_CAPS' -> 'all_caps'."""
    return _CAMEL_HUMP.sub("_", s).lower()


def _is_magic(x: str) -> bool:
    return x.startswith("__") and x.endswith("__")


def _identifier(text: str) -> str:
    """text as an ASCII identifier: each run of other characters becomes '_', a leading digit gets one."""
    cleaned = _NOT_IDENTIFIER_CHARS.sub("_", text) or "_unnamed"
    return "_" + cleaned if cleaned[0].isdigit() else cleaned


def _stem_and_counter(ident: str) -> tuple[str, int | None]:
    """'add_2' -> ('add', 2), 'add' -> ('add', None); the stem is never empty ('_1' has no counter)."""
    stem, underscore, digits = ident.rpartition("_")
    if underscore and stem and digits.isdigit():
        return stem, int(digits)
    return ident, None


class _NameTable:
    """The names of one graph (or one generated function): each object gets one name, no name is given
    twice, and no name rebinds a keyword or builtin unless the object is that builtin. Clashes are
    resolved with numeric suffixes counted per stem: add, add_1, add_2; sum_1 for a node named sum."""

    def __init__(self) -> None:
        self._name_of: dict[Any, str] = {}
        self._in_use: set[str] = set()
        self._suffix_floor: dict[str, int] = {}  # stem -> the suffix most recently settled on for it

    def claim(self, candidate: str, obj: object | None) -> str:
        """A fresh name close to candidate (obj's existing name, if it has one)."""
        known = None if obj is None else self._name_of.get(obj)
        if known is not None:
            return known
        name = self._fresh(_identifier(candidate), obj)
        self._in_use.add(name)
        if obj is not None:
            self._name_of[obj] = name
        return name

    def _fresh(self, wanted: str, obj: object | None) -> str:
        stem, suffix = _stem_and_counter(wanted)
        unused = wanted not in self._in_use
        # a suffix the caller asked for counts only while that spelling is unused
        floor = suffix if unused and suffix is not None else self._suffix_floor.get(stem, 0)
        if unused and _RESERVED.get(wanted, obj) is obj:
            self._suffix_floor[stem] = floor
            return wanted
        floor = next(n for n in itertools.count(floor + 1) if f"{stem}_{n}" not in self._in_use)
        self._suffix_floor[stem] = floor
        return f"{stem}_{floor}"

    def attach(self, name: str, obj: object) -> None:
        """Record name (already handed out by claim) as obj's."""
        previous = self._name_of.setdefault(obj, name)
        if previous != name:
            raise AssertionError(f"{obj!r} already has the name {previous!r}, not {name!r}")


# -- which objects generated code reaches through the ``torch`` global -----------------------------------------------

def _module_under_torch(module_name: str) -> bool:
    """Whether module_name is torch or a module below it, leaving out those below torch._dynamo and
    torch._inductor (those packages themselves still count)."""
    head, *below = module_name.split(".")
    if head != "torch" or "" in below:
        return False
    return not {"_dynamo", "_inductor"}.intersection(below[:-1])

# Tensor methods PyTorch writes in Python (torch/_tensor.py) are named through ``torch``; its C++ ones
# have no module and become globals of their own ("torch_Tensor_add").
_PYTHON_TENSOR_METHODS = frozenset({
    "__array__", "__array_wrap__", "__contains__", "__deepcopy__", "__dir__", "__dlpack__", "__dlpack_device__",
    "__floordiv__", "__format__", "__hash__", "__ipow__", "__iter__", "__len__", "__pow__", "__rdiv__",
    "__reduce_ex__", "__repr__", "__reversed__", "__rfloordiv__", "__rlshift__", "__rmatmul__", "__rmod__",
    "__rpow__", "__rrshift__", "__rsub__", "__rtruediv__", "__setstate__", "__torch_dispatch__",
    "__torch_function__", "_clear_non_serializable_cached_data", "_reduce_ex_internal", "_typed_storage",
    "backward", "dim_order", "eig", "index", "is_shared", "istft", "lstsq", "lu", "module_load", "norm",
    "register_hook", "register_post_accumulate_grad_hook", "reinforce", "resize", "resize_as", "share_memory_",
    "solve", "split", "stft", "storage", "storage_type", "symeig", "to_sparse_coo", "unflatten", "unique",
    "unique_consecutive",
})


def _is_from_torch(obj: object) -> bool:
    """Whether generated code may reach obj through the ``torch`` global instead of a global of its own."""
    name = getattr(obj, "__name__", None)
    if isinstance(name, str) and _is_tensor_method(obj, name):
        return name in _PYTHON_TENSOR_METHODS
    module_name = getattr(obj, "__module__", None)
    # Ember's C-level modules (aten.*, c10.*) stand where PyTorch's objects say "torch"
    if isinstance(module_name, str) and module_name.partition(".")[0] not in ("aten", "c10"):
        return _module_under_torch(module_name)
    return _public_torch_path(obj) is not None


# -- text helpers ---------------------------------------------------------------------------------------------------

@dataclass
class PythonCode:
    """Generated source of a graph's function and the globals it must run with."""

    src: str
    globals: dict[str, Any]
    _lineno_map: dict[int, int | None] | None = None
    _prologue_start: int = 0


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first; blank lines stay empty (PyTorch 2.x's layout)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join((spaces * " ") + line if line.strip() else "" for line in lines)


def _attribute_path(base: str, dotted: str) -> str:
    """base.a.b for the target 'a.b'; a part that is no identifier is fetched with getattr(..., "part")."""
    def step(expr: str, part: str) -> str:
        return f"{expr}.{part}" if part.isidentifier() else f'getattr({expr}, "{part}")'

    return functools.reduce(step, dotted.split("."), base)


def _stack_trace_summary(stack_trace: str | None) -> str:
    """'File: <file>:<line> in <fn>, code: <line>' for the innermost frame of a recorded trace."""
    lines = (stack_trace or "").strip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        frame = re.match(r'\s*File "(.+)", line (\d+), in (.+)', lines[i])
        if frame is not None:
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return f"File: {frame.group(1)}:{frame.group(2)} in {frame.group(3)}, code: {code}"
    return "No stacktrace found for following nodes"


def _release_schedule(order: list[Node]) -> dict[Node, list[Node]]:
    """For each statement node, the values to set to None right after it: those it reads last (in its
    argument order), then itself when nothing reads it (a call kept for its side effect)."""
    final_reader = {value: node for node in order for value in node._input_nodes}
    schedule: dict[Node, list[Node]] = {}
    for node in order:
        if node.op in ("placeholder", "output"):
            continue
        schedule[node] = [value for value in node._input_nodes if final_reader[value] is node]
        if not node.users:
            schedule[node].append(node)
    return schedule


def _torch_spelling(obj: Any) -> str | None:
    """The torch.* path generated code reaches obj by, if any (torch.device is a global of its own)."""
    return _get_qualified_name(obj) if obj is not torch.device and _is_from_torch(obj) else None


def _generic_container(annotation: Any) -> Any:
    """The class a parametrised annotation specialises, or None if it is not one; a typing alias of a builtin
    (typing.List[int]) gives the alias, a builtin's own (list[int]) the builtin."""
    origin = getattr(annotation, "__origin__", None)
    via_typing = not isinstance(annotation, types.GenericAlias) and hasattr(annotation, "__args__")
    return _ALIAS_OF_BUILTIN.get(origin, origin) if via_typing and origin is not None else origin


class _Emitter:
    """What one code generation accumulates: the globals table, the statements, the parameters, and
    the functions registered with fx.wrap."""

    def __init__(self, namespace: _NameTable, verbose: bool, include_stride: bool, include_device: bool) -> None:
        self.namespace = namespace
        self.verbose = verbose
        self.include_stride = include_stride
        self.include_device = include_device
        self.previous_origin: str | None = None
        self.globals: dict[str, Any] = {}
        self.body: list[str] = []
        self.free_vars: list[str] = []
        self.return_annotation = ""
        self.wrapped_fns: dict[str, None] = {}
        for name, preset in _custom_builtins.items():
            self.global_name(name, preset.value)

    def global_name(self, hint: str, obj: Any) -> str:
        """How the generated code names obj: its torch path, or a global registered under a name from hint."""
        spelled = _torch_spelling(obj)
        if spelled is None:
            # claim gives equal objects one name and never gives a name to two objects
            spelled = self.namespace.claim(hint, obj)
            self.globals.setdefault(spelled, obj)
        return spelled

    def type_source(self, annotation: Any) -> str:
        """An annotation as source: classes and generic origins become globals, parameters recurse."""
        if isinstance(annotation, types.UnionType):
            return "|".join(map(self.type_source, typing.get_args(annotation)))
        if isinstance(annotation, tuple) and not annotation:
            return "()"
        container = _generic_container(annotation)
        if container is None:
            return self.global_name(_annotation_text(annotation), annotation)
        spelled = self.global_name(_annotation_text(container), container)
        params = [self.type_source(param) for param in typing.get_args(annotation)]
        return f"{spelled}[{','.join(params)}]" if params else spelled

    def annotation(self, node: Node) -> str:
        """The ' : type' after a variable; verbose output shows the recorded tensor metadata instead."""
        plain = "" if node.type is None else f" : {self.type_source(node.type)}"
        if not self.verbose:
            return plain
        meta_val = node.meta.get("val", node.meta.get("tensor_meta", node.meta.get("example_value", None)))
        if isinstance(meta_val, torch.Tensor):
            stride = _stringify_shape(meta_val.stride()) if self.include_stride else ""
            device = f"{meta_val.device}" if self.include_device else ""
            core = f"{dtype_abbrs[meta_val.dtype]}{_stringify_shape(meta_val.shape)}{stride}{device}"
            return f': "{core}"' if type(meta_val) is torch.Tensor else f': "{type(meta_val).__name__}({core})"'
        # ShapeProp's TensorMetadata, known by its fields (importing the pass here would make a cycle)
        if isinstance(meta_val, tuple) and hasattr(meta_val, "shape") and hasattr(meta_val, "memory_format"):
            tensor_meta: Any = meta_val
            return f': "{dtype_abbrs[tensor_meta.dtype]}{_stringify_shape(tensor_meta.shape)}"'
        return plain

    def note_origin(self, node: Node) -> None:
        """Verbose output heads each run of nodes from the same source line with that line."""
        if node.op in ("placeholder", "output"):
            return
        origin = f"\n# {_stack_trace_summary(node.stack_trace)}\n"
        if origin != self.previous_origin:
            self.previous_origin = origin
            self.body.append(origin)

    def literal(self, value: object) -> str:
        """Python source that evaluates to value (a Node stands for its variable)."""
        if isinstance(value, Node):
            return repr(value)
        if isinstance(value, torch.Tensor):
            return f"torch.Tensor(size={list(value.size())}, dtype={str(value.dtype).rpartition('.')[2]})"
        if isinstance(value, enum.Enum):
            return f"{self.global_name(type(value).__name__, type(value))}.{value.name}"
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return self.global_name(_get_qualified_name(type(value)), type(value)) + repr(tuple(value))
        if isinstance(value, slice):
            return f"slice({self.literal(value.start)}, {self.literal(value.stop)}, {self.literal(value.step)})"
        if isinstance(value, list):
            return f"[{self.listing(value)}]"
        if isinstance(value, tuple):
            return f"({self.literal(value[0])},)" if len(value) == 1 else f"({self.listing(value)})"
        spelled = repr(value)
        if spelled.startswith("<"):         # no source spells it (a torch.Generator, say): the object, as a global
            return self.global_name(f"_{type(value).__name__.lower()}", value)
        return spelled

    def listing(self, items: Iterable[object], keywords: dict[str, Argument] | None = None) -> str:
        """Comma-separated literals, then 'key = value' pairs: an argument list or a container's body."""
        parts = [self.literal(item) for item in items]
        parts += [f"{key} = {self.literal(value)}" for key, value in (keywords or {}).items()]
        return ", ".join(parts)


class CodeGen:
    """Turns a Graph's nodes into the source of a Python function (overridable hooks as PyTorch's)."""

    def __init__(self) -> None:
        self._body_transformer: Callable[[list[str]], list[str]] | None = None
        self._func_name: str = "forward"

    def gen_fn_def(self, free_vars: list[str], maybe_return_annotation: str) -> str:
        """The ``def`` line; ``self`` is added when the graph's inputs do not start with it."""
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def {self._func_name}({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args: Argument, *, repr_fn: Callable[[object], str] | None = None) -> str:
        """The ``return`` statement (not indented)."""
        return f"return {(repr_fn or repr)(output_args)}"

    def process_inputs(self, *args: Any) -> Any:
        return args

    def process_outputs(self, outputs: Any) -> Any:
        return outputs

    def additional_globals(self) -> list[tuple[str, Any]]:
        """(name, object) pairs the generated code needs beyond those its nodes reference."""
        return []

    def _gen_python_code(self, nodes: Iterable[Node], root_module: str, namespace: _NameTable, *,
                         verbose: bool = False, include_stride: bool = False,
                         include_device: bool = False) -> PythonCode:
        order = list(nodes)
        em = _Emitter(namespace, verbose, include_stride, include_device)
        releases = _release_schedule(order)
        for node in order:
            if verbose:
                em.note_origin(node)
            statement = self._statement(node, root_module, em)
            if node.op == "placeholder":
                # a parameter: only a renamed one ("*args" bound as args_1) needs a statement
                if statement:
                    em.body.append(statement + "\n")
                continue
            released = releases.get(node)
            tail = f";  {' = '.join([*map(repr, released), 'None'])}" if released else ""
            em.body.append(statement)
            em.body.append(tail + "\n")
        lines = em.body or ["pass\n"]
        wrap_block = ""
        if em.wrapped_fns:
            register = em.global_name("wrap", torch.fx.wrap)
            wrap_block = "\n".join(f'{register}("{fn_name}")' for fn_name in em.wrapped_fns)
        if self._body_transformer:
            lines = self._body_transformer(lines)
        for name, value in self.additional_globals():
            em.global_name(name, value)
        signature = self.gen_fn_def(em.free_vars, em.return_annotation)
        body_text = "    " + "".join(lines).lstrip("\n").replace("\n", "\n    ")
        return PythonCode(f"\n{wrap_block}\n\n{signature}\n{body_text}", em.globals, _lineno_map=None,
                          _prologue_start=wrap_block.count("\n") + 4)

    def _statement(self, node: Node, root_module: str, em: _Emitter) -> str:
        """The source line for node, without its release suffix ('' for a plain parameter)."""
        # Names are claimed on first use (types, the node's variable, globals its arguments need), and
        # that order decides who gets a contested name: each f-string below keeps PyTorch's order.
        target, args, kwargs = node.target, node.args, node.kwargs
        annotation = em.annotation(node)
        if node.op == "placeholder":
            assert isinstance(target, str)
            default = f" = {em.literal(args[0])}" if args else ""
            em.free_vars.append(f"{target}{annotation}{default}")
            bare = target.replace("*", "")
            return "" if bare == repr(node) else f"{node!r} = {bare}"
        if node.op == "output":
            if node.type is not None:
                em.return_annotation = f" -> {em.type_source(node.type)}"
            return self.generate_output(args[0], repr_fn=em.literal)
        if node.op == "call_function":
            assert callable(target)
            return self._function_call(node, annotation, em)
        if not isinstance(target, str) or node.op not in ("get_attr", "call_module", "call_method"):
            raise NotImplementedError(f"node: {node.op} {node.target}")
        if node.op == "get_attr":
            return f"{node!r}{annotation} = {_attribute_path(root_module, target)}"
        if node.op == "call_module":
            return f"{node!r}{annotation} = {_attribute_path(root_module, target)}({em.listing(args, kwargs)})"
        receiver = f"{node!r}{annotation} = {_attribute_path(em.literal(args[0]), target)}"
        return f"{receiver}({em.listing(args[1:], kwargs)})"

    @staticmethod
    def _function_call(node: Node, annotation: str, em: _Emitter) -> str:
        fn: Any = node.target
        if getattr(fn, "__module__", None) == "_operator":
            # operator.add(a, b) is spelled a + b; operator.iadd(a, b) updates a and binds the node to it
            operator_name = getattr(fn, "__name__", "")
            spelled_args = [em.literal(a) for a in node.args]
            if operator_name in magic_methods:
                return f"{node!r}{annotation} = {magic_methods[operator_name].format(*spelled_args)}"
            if operator_name in inplace_methods:
                update = inplace_methods[operator_name].format(*spelled_args)
                return f"{update};  {node!r}{annotation} = {spelled_args[0]}"
        callee = em.global_name(_get_qualified_name(fn), fn)
        attr = node.args[1] if len(node.args) == 2 else None
        if callee == "getattr" and isinstance(attr, str) and attr.isidentifier():
            return f"{node!r}{annotation} = {_attribute_path(em.literal(node.args[0]), attr)}"
        if node.meta.get("is_wrapped", False):
            em.wrapped_fns.setdefault(callee)
        return f"{node!r}{annotation} = {callee}({em.listing(node.args, node.kwargs)})"


class _PyTreeInfo(typing.NamedTuple):
    """A graph whose function took nested inputs: the function's parameter names, and the structures of its
    inputs and (when the output node holds its leaves) outputs."""
    orig_args: list[str]
    in_spec: Any
    out_spec: Any


class _PyTreeCodeGen(CodeGen):
    """Code for a graph whose placeholders are the leaves of nested inputs (make_fx of f(dict, tuple)): the
    forward takes the original parameters and flattens them against the traced structure (``self._in_spec``),
    and rebuilds the output's structure from the leaves the output node holds (``self._out_spec``)."""

    def __init__(self, pytree_info: _PyTreeInfo) -> None:
        super().__init__()
        self.pytree_info = pytree_info

    def process_inputs(self, *inputs: Any) -> Any:
        import torch.utils._pytree as pytree
        return pytree.tree_flatten(inputs)[0]

    def process_outputs(self, outputs: Any) -> Any:
        import torch.utils._pytree as pytree
        if self.pytree_info.out_spec is None:
            return outputs
        return pytree.tree_unflatten(outputs, self.pytree_info.out_spec)

    def gen_fn_def(self, free_vars: list[str], maybe_return_annotation: str) -> str:
        if self.pytree_info.in_spec is None:
            return super().gen_fn_def(free_vars, maybe_return_annotation)
        params = list(self.pytree_info.orig_args)
        definition = super().gen_fn_def(params, maybe_return_annotation)
        leaves = [v for v in free_vars if v != "self"]
        if leaves:
            definition += (f"\n    {', '.join(leaves)}, = fx_pytree.tree_flatten_spec("
                           f"[{', '.join(self.pytree_info.orig_args)}], self._in_spec)")
        return definition

    def generate_output(self, output_args: Argument, *, repr_fn: Callable[[object], str] | None = None) -> str:
        if self.pytree_info.out_spec is None:
            return super().generate_output(output_args, repr_fn=repr_fn)
        return f"return pytree.tree_unflatten({(repr_fn or repr)(output_args)}, self._out_spec)"
