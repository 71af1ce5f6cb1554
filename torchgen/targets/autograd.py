"""Target: autograd, from tools/autograd/derivatives.yaml (PyTorch's format; formulas are
Python expressions over tensor methods and torch/csrc/autograd/functions_manual/).

For each entry, a backward Node class (`<Name>Backward<k>`) whose apply evaluates the formulas,
and an autograd kernel, registered at the Autograd key for the op and its in-place variant:
run the op below autograd, then record the node with exactly what its formulas read. Upstream's
`X.sym_sizes()`, `X.scalar_type()`, `X.dim()`, `X.sym_numel()` save only that fact about X,
not X. Ops with several outputs: `grad` is grads[0], outputs are read as `result` (a tuple),
`result0`, `result1`... or by their return names, and as upstream, an entry whose formulas read
only `grad` makes only the first output differentiable. Broadcasting is undone generically
(sum_to each input's shape). out= variants and ops without an entry get kernels that refuse, or
record a node that raises, as PyTorch's do.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torchgen.model import (BaseTy, BaseType, DispatchKey, ListType, Location, OptionalType, SchemaError,
                            SchemaErrors, SchemaKind)
from torchgen.native_yaml import NativeFunction, _load_yaml
from torchgen.targets.bindings import python_default

DERIVATIVES = "tools/autograd/derivatives.yaml"
KERNELS_MODULE = "torch.csrc.autograd._gen_variable_type"

# Upstream's metadata accessors, and the name each saved fact gets.
_META = {"sym_sizes": "sizes", "sizes": "sizes", "scalar_type": "scalar_type", "dim": "dim", "sym_numel": "numel",
         "numel": "numel", "sym_strides": "strides", "strides": "strides", "layout": "layout"}
_SPECIAL = {"grad", "grads", "result", "grad_input_mask"}


@dataclass
class Formula:
    input: str                  # the differentiable input it gives the gradient of
    kind: str                   # "tensor", "optional", "list"
    source: str                 # the Python expression, metadata accessors rewritten


@dataclass
class Derivative:
    fn: NativeFunction
    loc: Location
    node: str                                       # class name, e.g. AddBackward0
    formulas: list[Formula]
    saved_tensors: list[str] = field(default_factory=list)     # inputs saved whole (SavedVariable)
    saved_lists: list[str] = field(default_factory=list)       # tensor-list inputs saved whole (one SavedVariable each)
    saved_values: list[str] = field(default_factory=list)      # non-tensor inputs kept as they are
    saved_meta: list[tuple[str, str]] = field(default_factory=list)   # (input, fact)
    saves_result: bool = False
    result_aliases: list[tuple[str, int]] = field(default_factory=list)   # (name, output index) formulas read
    output_differentiability: list[bool] | None = None
    # Forward-mode formulas (torchgen/targets/forward_ad.py): (output names of the key, formula text, line)
    forward: list[tuple[tuple[str, ...], str, int]] = field(default_factory=list)


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.strip("_").split("_"))


def _kind(t: Any) -> str | None:
    if t == BaseType(BaseTy.Tensor):
        return "tensor"
    if t == OptionalType(BaseType(BaseTy.Tensor)):
        return "optional"
    if isinstance(t, ListType) and t.elem in (BaseType(BaseTy.Tensor), OptionalType(BaseType(BaseTy.Tensor))):
        return "list"
    return None


class _Rewrite(ast.NodeTransformer):
    """Collects what a formula reads; `X.sym_sizes()` and friends become saved facts."""

    def __init__(self, inputs: set[str]) -> None:
        self.inputs = inputs
        self.names: set[str] = set()
        self.meta: set[tuple[str, str]] = set()

    def visit_Call(self, node: ast.Call) -> Any:
        f = node.func
        if (isinstance(f, ast.Name) and f.id in ("to_args_sizes", "to_args_sizes_symint") and len(node.args) == 1
                and isinstance(node.args[0], ast.Name) and node.args[0].id in self.inputs):
            self.meta.add((node.args[0].id, "args_sizes"))
            return ast.copy_location(ast.Name(id=f"{node.args[0].id}_args_sizes", ctx=ast.Load()), node)
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in self.inputs
                and f.attr in _META and not node.args and not node.keywords):
            fact = _META[f.attr]
            self.meta.add((f.value.id, fact))
            return ast.copy_location(ast.Name(id=f"{f.value.id}_{fact}", ctx=ast.Load()), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> Any:
        self.names.add(node.id)
        return node


def load_derivatives(root: Path, fns: list[NativeFunction]) -> list[Derivative]:
    path = root / DERIVATIVES
    if not path.exists():        # a schema without derivatives (torchgen's own tests): nothing differentiable
        return []
    entries = _load_yaml(path.read_text(), str(path))
    by_schema = {str(fn.func): fn for fn in fns}
    counts: dict[str, int] = {}
    seen: dict[str, int] = {}
    errors: list[SchemaError] = []
    result: list[Derivative] = []
    for entry, line in zip(entries, entries.item_lines):
        loc = Location(DERIVATIVES, line)
        name = entry.get("name")
        fn = by_schema.get(name) if isinstance(name, str) else None
        if fn is None:
            errors.append(SchemaError(loc, f"derivatives.yaml: 'name' {name!r} is not a `func:` of "
                                           "aten/native/native_functions.yaml (it must match the schema text exactly)"))
            continue
        if name in seen:
            errors.append(SchemaError(loc, f"derivatives.yaml: {name} has a second entry (first at line {seen[name]})"))
            continue
        seen[name] = line
        if fn.func.kind() is SchemaKind.out:
            errors.append(SchemaError(loc, f"derivatives.yaml: {name} is an out= variant: those are never "
                                           "differentiable"))
            continue
        args = {a.name: a for a in fn.func.arguments.flat_all}
        base = fn.func.name.name.base
        node = f"{_pascal(base)}Backward{counts.get(base, 0)}"
        counts[base] = counts.get(base, 0) + 1
        derivative = Derivative(fn, loc, node, [])
        non_differentiable = set()
        used: set[str] = set()
        meta: set[tuple[str, str]] = set()
        outputs = {"result"} | {f"result{i}" for i in range(len(fn.func.returns))} | \
            {r.name for r in fn.func.returns if r.name}
        for key, value in entry.items():
            if key in ("name", "dispatch"):
                continue
            names = tuple(part.strip() for part in key.split(","))
            if all(n in outputs and n not in args for n in names):
                derivative.forward.append((names, str(value), entry.key_lines.get(key, line)))
                continue
            if key == "output_differentiability":
                derivative.output_differentiability = [bool(v) for v in value]
                continue
            if key not in args:
                errors.append(SchemaError(Location(DERIVATIVES, entry.key_lines.get(key, line)),
                                          f"derivatives.yaml: {name} has no input named {key!r}"))
                continue
            kind = _kind(args[key].type)
            if kind is None:
                errors.append(SchemaError(loc, f"derivatives.yaml: {name}: {key!r} is not a tensor input"))
                continue
            if value == "non_differentiable":
                non_differentiable.add(key)
                continue
            try:
                tree = ast.parse(str(value), mode="eval")
            except SyntaxError as e:
                errors.append(SchemaError(Location(DERIVATIVES, entry.key_lines.get(key, line)),
                                          f"derivatives.yaml: formula for {key!r} is not a Python expression: {e.msg}"))
                continue
            rewrite = _Rewrite(set(args))
            tree = rewrite.visit(tree)
            used |= rewrite.names
            meta |= rewrite.meta
            derivative.formulas.append(Formula(key, kind, ast.unparse(tree)))
        for a in fn.func.arguments.flat_all:
            if _kind(a.type) in ("tensor", "optional") and a.name not in non_differentiable \
                    and a.name not in {f.input for f in derivative.formulas}:
                errors.append(SchemaError(loc, f"derivatives.yaml: {name}: tensor input {a.name!r} needs a formula or "
                                               "`non_differentiable`"))
        order = {a.name: i for i, a in enumerate(fn.func.arguments.flat_all)}
        derivative.formulas.sort(key=lambda f: order[f.input])
        derivative.saved_tensors = [n for n in args if n in used and _kind(args[n].type) in ("tensor", "optional")]
        derivative.saved_values = [n for n in args if n in used and _kind(args[n].type) is None]
        derivative.saved_meta = sorted(meta)
        # Several outputs (a tuple, or a Tensor[] return): `result` is the tuple; `result<i>` and
        # the returns' names (upstream's `indices`...) are its elements.
        if _multi_output(fn):
            for i, r in enumerate(fn.func.returns):
                for alias in (f"result{i}", r.name):
                    if alias and alias in used and alias not in args:
                        derivative.result_aliases.append((alias, i))
            # Upstream's rule: formulas that read only `grad` make only the first of several
            # outputs differentiable (native_layer_norm's mean and rstd do not require grad).
            if (len(fn.func.returns) > 1 and derivative.output_differentiability is None
                    and "grads" not in used):
                derivative.output_differentiability = [i == 0 for i in range(len(fn.func.returns))]
        derivative.saves_result = "result" in used or bool(derivative.result_aliases)
        # A tensor list a formula reads (index's indices, einsum's operands) is saved whole, one
        # SavedVariable per tensor.
        derivative.saved_lists = [n for n in args if n in used and _kind(args[n].type) == "list"]
        result.append(derivative)
    if errors:
        raise SchemaErrors(errors)
    return result


def _multi_output(fn: NativeFunction) -> bool:
    """Several outputs: more than one return, or one Tensor[] return (split, unbind...)."""
    returns = fn.func.returns
    return len(returns) > 1 or (len(returns) == 1 and isinstance(returns[0].type, ListType))


@dataclass(frozen=True)
class FormulaContext:
    input: str
    kind: str
    source: str


@dataclass(frozen=True)
class SavedContext:
    kind: str                    # a variable_type.SAVE_KINDS name
    index: int                   # the argument's position
    local: str                   # its name in the formulas
    readers: tuple[int, ...] | None = None   # a saved tensor: the formulas reading it (saved only if one is needed)


@dataclass(frozen=True)
class ResultAlias:
    name: str
    index: int


@dataclass(frozen=True)
class VariantContext:
    """An in-place or out= sibling whose autograd kernel the derivative also gives."""
    op: str
    kernel: str
    inplace_view: bool = False
    base: str = ""


@dataclass(frozen=True)
class MissingFormula:
    """A differentiable op without a formula: its kernel raises PyTorch's error on backward."""
    op: str
    kernel: str
    inplace: bool


@dataclass(frozen=True)
class KernelContext:
    """One derivative's node and autograd kernels in autograd_functions.py.j2."""
    op: str
    kernel: str
    node: str
    names: tuple[str, ...]
    names_tuple: str
    defaults: tuple[str, ...]
    formulas: tuple[FormulaContext, ...]
    saved_tensors: tuple[str, ...]
    saved_lists: tuple[str, ...]
    saved_values: tuple[str, ...]
    saves: tuple[SavedContext, ...]
    inputs: tuple[int, ...]
    saves_result: int
    is_view: bool
    output_differentiability: Any
    multi_output: bool
    result_aliases: tuple[ResultAlias, ...]
    inplace: tuple[VariantContext, ...]
    inplace_entry: bool          # an in-place op with its own entry (copy_, t_): its kernel is its own in-place form
    inplace_view: bool           # t_, squeeze_...: they change self's geometry only, never the memory a view shares
    out: tuple[VariantContext, ...]


def kernel_context(d: Derivative, variants: list[NativeFunction]) -> KernelContext:
    fn = d.fn
    params = [a for a in fn.func.arguments.flat_all]
    defaults = [python_default(fn, a) if a.default is not None else "_REQUIRED" for a in params]
    differentiable = [f.input for f in d.formulas]
    is_view = any(r.annotation is not None and not r.annotation.is_write for r in fn.func.returns)
    names = [a.name for a in params]
    # What the node saves, in the order its apply unpacks `node._saved`: (kind, argument, local
    # name in the formulas). Kinds are variable_type.SAVE_KINDS.
    saves = ([("sizes", f.input, f"sizes_{f.input}") for f in d.formulas if f.kind in ("tensor", "optional")]
             + [("needs", f.input, f"needs_{f.input}") for f in d.formulas if f.kind == "list"]
             + [("tensor", n, f"saved_{n}") for n in d.saved_tensors]
             + [("list", n, f"saved_{n}") for n in d.saved_lists]
             + [("value", n, n) for n in d.saved_values]
             + [(fact, i, f"{i}_{fact}") for i, fact in d.saved_meta])
    # PyTorch saves an input only when a formula that reads it will run (its input needs a gradient): a tensor
    # saved for nothing would still refuse backward after an in-place write to it.
    reads = [{n.id for n in ast.walk(ast.parse(f.source, mode="eval")) if isinstance(n, ast.Name)} for f in d.formulas]

    def readers(kind: str, arg: str) -> tuple[int, ...] | None:
        if kind not in ("tensor", "list"):
            return None
        return tuple(k for k, names in enumerate(reads) if arg in names)
    return KernelContext(
        op=str(fn.func.name), kernel=fn.func.name.unambiguous_name().replace(".", "_"), node=d.node,
        names=tuple(names), names_tuple=repr(tuple(names)), defaults=tuple(defaults),
        formulas=tuple(FormulaContext(f.input, f.kind, f.source) for f in d.formulas),
        saved_tensors=tuple(d.saved_tensors), saved_lists=tuple(d.saved_lists), saved_values=tuple(d.saved_values),
        saves=tuple(SavedContext(kind, names.index(arg), local, readers(kind, arg)) for kind, arg, local in saves),
        inputs=tuple(names.index(n) for n in differentiable),
        saves_result=d.saves_result, is_view=is_view,
        output_differentiability=d.output_differentiability,
        multi_output=_multi_output(fn), result_aliases=tuple(ResultAlias(n, i) for n, i in d.result_aliases),
        inplace=tuple(VariantContext(str(v.func.name), v.func.name.unambiguous_name().replace(".", "_"),
                                     inplace_view="inplace_view" in v.tags)
                      for v in variants if v.func.kind() is SchemaKind.inplace),
        inplace_entry=fn.func.kind() is SchemaKind.inplace,
        inplace_view="inplace_view" in fn.tags,
        out=tuple(VariantContext(str(v.func.name), v.func.name.unambiguous_name().replace(".", "_"),
                                 base=str(v.func.name.name.base))
                  for v in variants if v.func.kind() is SchemaKind.out),
    )


# Ops with floating results that never require grad (PyTorch's DONT_REQUIRE_DERIVATIVE in
# tools/autograd/gen_variable_type.py): the results are new values, not functions of the inputs.
DONT_REQUIRE_DERIVATIVE = frozenset({
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like",
    "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full", "multinomial",
    "histc", "bincount", "one_hot", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit",
})


# Autograd kernels written by hand (PyTorch's VariableTypeManual.cpp): op name -> (module, kernel).
MANUAL_KERNELS = {"detach_": ("torch.csrc.autograd.variable_type", "detach_"),
                  "as_strided_": ("torch.csrc.autograd.view_nodes", "as_strided_")}

# Ops whose backend kernel itself refuses a tensor that requires grad, in grad mode or not
# (resize_: PyTorch's "cannot resize variables that require grad"): no autograd kernel.
REFUSES_GRAD = frozenset({"resize_"})


def differentiable_without_formula(fns: list[NativeFunction], covered: set[str]) -> list[NativeFunction]:
    """Ops that get the 'not implemented' autograd kernel: a kernel below autograd exists (not
    CompositeImplicitAutograd, whose decomposition autograd sees), a tensor input, and a result
    that can be floating."""
    chosen = []
    for fn in fns:
        name = str(fn.func.name)
        keys = {k for k, _ in fn.dispatch}
        if name in covered or not keys or keys == {DispatchKey.parse("CompositeImplicitAutograd")}:
            continue
        if (fn.func.name.name.base in DONT_REQUIRE_DERIVATIVE or str(fn.func.name) in REFUSES_GRAD
                or str(fn.func.name) in MANUAL_KERNELS):
            continue
        if not any(_kind(a.type) for a in fn.func.arguments.flat_all):
            continue
        if not any(_kind(r.type) in ("tensor", "list") for r in fn.func.returns):
            continue
        chosen.append(fn)
    return chosen
