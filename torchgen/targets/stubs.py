"""Target: .pyi type stubs for torch.<op> functions and Tensor.<op> methods (PyTorch's gen_pyi).

Built from the same binding signatures as the Cython parser (bindings.module_context), so a stub
accepts what the parser accepts, with PyTorch's Python type mapping (tools/pyi/gen_pyi.py):
Scalar is `int | float | bool` (PyTorch's Number, without complex), ScalarType is `_dtype`,
Device is `DeviceLikeType`, an `int[N]` also takes one int, several named results are the
torch.return_types named tuples. Overloads are listed in the parser's order: every overload as
the schema types it, then (pointwise ops) the forms taking Python numbers for Tensors, which the
parser tries only when nothing matched as-is; mypy, too, takes the first overload that matches.

Names that torch defines in Python over a binding (torch/functional.py's __all__, methods of
`class Tensor` in torch/_tensor.py) are left out: their handwritten signatures are the types.
"""
from __future__ import annotations

import ast
import keyword
from pathlib import Path
from typing import Any

from torchgen.model import Argument, BaseTy, BaseType, ListType, OptionalType, Type
from torchgen.native_yaml import NativeFunction
from torchgen.targets import bindings

NUMBER = "_Number"
# Tensor.float() ... bound by hand in torch/_tensor_conversions.py (typed in the template).
CONVERSIONS = ("float", "double", "half", "long", "int", "short", "char", "byte", "bool", "bfloat16")
TENSOR_LIST = "tuple[Tensor, ...] | list[Tensor]"

_BASE = {BaseTy.Tensor: "Tensor", BaseTy.Scalar: NUMBER, BaseTy.int: "_int", BaseTy.SymInt: "_int",
         BaseTy.float: "_float", BaseTy.bool: "_bool", BaseTy.str: "str", BaseTy.ScalarType: "_dtype",
         BaseTy.Layout: "_layout", BaseTy.Device: "DeviceLikeType", BaseTy.MemoryFormat: "memory_format",
         BaseTy.Generator: "Generator"}


def _union(*parts: str) -> str:
    seen: list[str] = []
    for part in parts:
        for atom in part.split(" | "):
            if atom not in seen:
                seen.append(atom)
    return " | ".join(seen)


def arg_type(arg: Argument, numbers: bool) -> str:
    """The Python type of one schema argument; numbers: a Tensor also takes a Python number."""
    t: Type = arg.type
    optional = isinstance(t, OptionalType)
    inner = t.elem if isinstance(t, OptionalType) else t
    if isinstance(inner, BaseType):
        text = _BASE[inner.name]
        if numbers and inner.name is BaseTy.Tensor:
            text = _union(text, NUMBER)
    elif isinstance(inner, ListType):
        elem = inner.elem
        if elem in (BaseType(BaseTy.int), BaseType(BaseTy.SymInt)):
            # int[N] (and an optional list) also take one int, as PyTorch's `_int | _size`.
            text = "Sequence[_int]" if inner.size is None and not optional else "_int | Sequence[_int]"
        elif elem == BaseType(BaseTy.Tensor):
            text = TENSOR_LIST
        elif elem == OptionalType(BaseType(BaseTy.Tensor)):
            text = "tuple[Tensor | None, ...] | list[Tensor | None]"
        elif elem == BaseType(BaseTy.float):
            text = "Sequence[_float]"
        elif elem == BaseType(BaseTy.bool):
            text = "Sequence[_bool]"
        else:
            raise ValueError(f"stubs: no Python type for {t}")
    else:
        raise ValueError(f"stubs: no Python type for {t}")
    return _union(text, "None") if optional else text


def return_annotation(fn: NativeFunction) -> str:
    rt = bindings.return_type(fn)
    if rt is not None:
        return f"_rt_{rt[0]}"
    types = [str(r.type) for r in fn.func.returns]
    simple = {"Tensor": "Tensor", "Tensor[]": "tuple[Tensor, ...]", "bool": "_bool", "int": "_int",
              "SymInt": "_int", "float": "_float", "Scalar": NUMBER, "ScalarType": "_dtype"}
    texts = [simple.get(t.split("(")[0], "Any") for t in types]
    if not texts:
        return "None"
    return texts[0] if len(texts) == 1 else f"tuple[{', '.join(texts)}]"


def _literal(text: str) -> str:
    """A default as the stub shows it: simple literals as they are, anything else `...`."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return "..."
    return text if isinstance(value, (int, float, bool, str, type(None))) else "..."


def _params(fn: NativeFunction, signature: bindings.BoundSignature, numbers: bool) -> list[dict[str, Any]]:
    """name, annotation, kwonly and default text of every parameter of one bound overload."""
    by_name = {("input" if a.name == "self" else a.name): a for a in fn.func.arguments.flat_non_out}
    out = []
    for param in signature.params:
        arg = by_name.get(param.name)
        if arg is not None:
            text = arg_type(arg, numbers and param.allow_numbers)
        elif param.name == "out":
            text = _union(TENSOR_LIST if param.type == "P_TENSOR_LIST" else "Tensor", "None")
        elif param.name == "requires_grad":
            text = "_bool"
        else:
            raise ValueError(f"stubs: parameter {param.name} of {fn.func.name} has no schema argument")
        # A parameter named after a Python keyword (random_'s `from`) is `from_`, as PyTorch's stubs.
        name = param.name + "_" if keyword.iskeyword(param.name) else param.name
        out.append(dict(name=name, type=text, kwonly=param.kwonly,
                        default=_literal(param.default) if param.has_default else None))
    # Python's rule: a positional parameter keeps its default only if every later one has one.
    required_after = False
    for p in reversed(out):
        if p["kwonly"]:
            continue
        if required_after:
            p["default"] = None
        required_after = required_after or p["default"] is None
    return out


def _render(params: list[dict[str, Any]], method: bool, varargs: bool) -> str:
    parts = ["self"] if method else []
    star = False
    for i, p in enumerate(params):
        if varargs and i == 0:
            parts.append(f"*{p['name']}: _int")
            star = True
            continue
        if p["kwonly"] and not star:
            parts.append("*")
            star = True
        text = f"{p['name']}: {p['type']}"
        if p["default"] is not None:
            text += f" = {p['default']}"
        parts.append(text)
    return ", ".join(parts)


def _overloads(group: list[NativeFunction], binding: bindings.Binding, method: bool) -> list[str]:
    """Parameter lists (rendered, with return annotation) of one torch.<name> / Tensor.<name>."""
    by_op = {str(f.func.name): f for f in group}
    rendered: list[str] = []
    # Bound once (add, mul, ...): the form taking numbers for Tensors also covers the plain one.
    passes = (True,) if len(binding.signatures) == 1 else (False, True)
    for numbers in passes:
        for sig in binding.signatures:
            fn = by_op[sig.op]
            params = _params(fn, sig, numbers)
            ret = return_annotation(fn)
            forms = [_render(params, method, False)]
            # The parser's torch.zeros(2, 3) rule: an int-list first parameter that is the only
            # positional one also takes its ints as separate arguments.
            positional = [p for p in sig.params if not p.kwonly]
            if sig.params and sig.params[0].type == "P_INT_LIST" and len(positional) == 1:
                forms.append(_render(params, method, True))
            for form in forms:
                line = f"({form}) -> {ret}"
                if line not in rendered:
                    rendered.append(line)
    return rendered


def python_overrides(root: Path) -> tuple[set[str], set[str]]:
    """Function names torch/functional.py defines (its __all__) and method names `class Tensor`
    defines in torch/_tensor.py: their handwritten signatures replace the generated ones."""
    functions: set[str] = set()
    methods: set[str] = set()
    functional = root / "torch" / "functional.py"
    if functional.exists():
        for node in ast.parse(functional.read_text()).body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                functions |= set(ast.literal_eval(node.value))
    tensor = root / "torch" / "_tensor.py"
    if tensor.exists():
        for node in ast.parse(tensor.read_text()).body:
            if isinstance(node, ast.ClassDef) and node.name == "Tensor":
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        methods.add(item.name)
                    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        for t in targets:
                            for n in ast.walk(t):
                                if isinstance(n, ast.Name):
                                    methods.add(n.id)
    return functions, methods


# python_module namespaces that get a stub of their own (torch.linalg, torch.special, torch._C._nn),
# written even when empty since their package imports it under TYPE_CHECKING.
NAMESPACES = ("linalg", "nn", "special")


def stub_entries(group: list[NativeFunction], context: bindings.ModuleContext, skip_functions: set[str],
                 skip_methods: set[str]) -> tuple[dict[str, dict[str, list[str]]], dict[str, list[str]],
                                                   dict[str, list[str]]]:
    """Overloads of each function (by namespace, "" for torch.<name>) and Tensor.<name> method of
    one op group, and the return_types (name -> fields) they name."""
    functions: dict[str, dict[str, list[str]]] = {}
    methods: dict[str, list[str]] = {}
    for b in context.bindings:
        method = b.function.startswith("Tensor_")
        name = b.python_name
        if method:
            if name not in skip_methods:
                methods[name] = _overloads(group, b, True)
        elif b.namespace or name not in skip_functions:
            functions.setdefault(b.namespace, {})[name] = _overloads(group, b, False)
    return_types = {rt.name: rt.fields for rt in context.return_types}
    return functions, methods, return_types
