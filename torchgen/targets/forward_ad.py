"""Target: forward-mode AD kernels (torch/csrc/autograd/_gen_forward_ad.py), from the forward formulas of
tools/autograd/derivatives.yaml: upstream's `result:` keys (`result0`, `result1`... or the returns' names for
several outputs, comma-joined for a formula giving several), each a Python expression or a marker:
  - auto_element_wise: the entry's backward formula for its one differentiable input X, with `grad` replaced by
    conj(X_t) and the whole conjugated (upstream derives it so);
  - auto_linear: the op itself on the differentiable inputs' tangents (an in-place op on a copy of self's).
An expression reads X_p (a tensor input's primal), X_t (its tangent: zeros when it has none, None for an absent
optional tensor, lists for a tensor list), X alone for the primal, the other arguments by name, and `result`
(`result0`..., the returns' names). Each op with formulas gets a ForwardKernel (torch/csrc/autograd/forward_grad.py),
its in-place variants too (the formula read with self as it was before the write, `result` as after); a
differentiable op without one gets the kernel that raises PyTorch's "not implemented" error, out= variants the one
that refuses tangents.
"""
from __future__ import annotations

import ast
import keyword
from dataclasses import dataclass
from typing import Any

from torchgen.model import Location, SchemaError, SchemaErrors, SchemaKind
from torchgen.native_yaml import NativeFunction
from torchgen.targets.autograd import _META, Derivative, KernelContext, MissingFormula, _kind, _multi_output
from torchgen.targets.variants import functional_of

MODULE = "torch.csrc.autograd._gen_forward_ad"
# Ops whose outputs never carry a tangent, as PyTorch's (detach drops it): no ForwardAD kernel at all.
NO_TANGENT = frozenset({"detach", "detach_"})
# ForwardAD kernels written by hand (torch/csrc/autograd/forward_kernels.py): op -> kernel.
MANUAL_FORWARD = {"as_strided_": "fw_as_strided_", "detach_": "fw_detach_", "resize_": "fw_resize_"}
MANUAL_MODULE = "torch.csrc.autograd.forward_kernels"


@dataclass(frozen=True)
class Variant:
    op: str
    kernel: str
    inplace_view: bool = False
    base: str = ""
    functional: str = ""        # an in-place view op's out-of-place twin (squeeze_.dim: squeeze.dim)


@dataclass(frozen=True)
class ForwardContext:
    """One derivative entry's forward kernels in forward_ad.py.j2."""
    op: str
    kernel: str
    function: str
    handles: tuple[tuple[str, str], ...]        # (operator, module-level name) auto_linear formulas call
    lines: tuple[str, ...]                      # the body of function(values, tangents, result)
    names_tuple: str
    defaults: tuple[str, ...]
    tensors: tuple[int, ...]
    needs: tuple[int, ...]
    reads_self: bool
    inplace_entry: bool
    inplace_view: bool
    functional: str             # for an in-place view entry (t_): its out-of-place twin
    inplace: tuple[Variant, ...]


@dataclass(frozen=True)
class Missing:
    op: str
    kernel: str
    name: str                                   # what PyTorch's error names: the op's base name


def _output_index(d: Derivative, name: str) -> int:
    if name == "result":
        return 0
    if name.startswith("result") and name[6:].isdigit():
        return int(name[6:])
    return [r.name for r in d.fn.func.returns].index(name)


class _Tangent(ast.NodeTransformer):
    """auto_element_wise: `grad` -> conj(X_t)."""

    def __init__(self, input: str) -> None:
        self.input = input

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == "grad":
            return ast.copy_location(ast.Call(func=ast.Name(id="conj", ctx=ast.Load()),
                                              args=[ast.Name(id=f"{self.input}_t", ctx=ast.Load())], keywords=[]),
                                     node)
        return node


def _expression(d: Derivative, text: str, loc: Location, handles: dict[str, str]) -> str:
    fn = d.fn
    if text == "auto_element_wise":
        if len(d.formulas) != 1 or d.formulas[0].kind != "tensor":
            raise SchemaError(loc, f"derivatives.yaml: {fn.func}: auto_element_wise needs exactly one "
                                   "differentiable tensor input")
        f = d.formulas[0]
        tree = _Tangent(f.input).visit(ast.parse(f.source, mode="eval"))
        return f"conj({ast.unparse(tree)})"
    if text == "auto_linear":
        differentiable = {f.input for f in d.formulas}
        inplace = fn.func.kind() is SchemaKind.inplace
        var = f"_OP_{fn.func.name.unambiguous_name().replace('.', '_')}"
        handles[str(fn.func.name)] = var
        parts = []
        for i, a in enumerate(fn.func.arguments.flat_all):
            if a.name in differentiable:
                value = f"{a.name}_t.clone()" if inplace and i == 0 else f"{a.name}_t"
            elif _kind(a.type):
                value = f"{a.name}_p"
            else:
                value = f"values[{i}]"
            parts.append(value if a in fn.func.arguments.flat_positional else f"{a.name}={value}")
        return f"{var}({', '.join(parts)})"
    try:
        ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise SchemaError(loc, f"derivatives.yaml: forward formula of {fn.func} is not a Python expression: {e.msg}")
    return text


def forward_context(d: Derivative, ctx: KernelContext, group: list[NativeFunction]) -> ForwardContext | None:
    """The forward kernels of a derivative entry with forward formulas (None without any); group: the entries of
    its base name (an in-place view entry's out-of-place twin is among them)."""
    if not d.forward:
        return None
    fn = d.fn
    args = list(fn.func.arguments.flat_all)
    n_out = 1 if not _multi_output(fn) or len(fn.func.returns) == 1 else len(fn.func.returns)
    handles: dict[str, str] = {}
    body: list[str] = []
    outputs: list[str] = ["None"] * n_out
    for k, (names, text, line) in enumerate(d.forward):
        loc = Location("tools/autograd/derivatives.yaml", line)
        source = ast.unparse(_Methods().visit(ast.parse(_expression(d, text, loc, handles), mode="eval")))
        try:
            positions = [_output_index(d, n) for n in names]
        except ValueError:
            raise SchemaErrors([SchemaError(loc, f"derivatives.yaml: {fn.func}: no output named {names}")]) from None
        if len(names) == 1:
            outputs[positions[0]] = f"({source})"
        else:
            body.append(f"_out{k} = {source}")
            for j, p in enumerate(positions):
                outputs[p] = f"_out{k}[{j}]"
    used = set()
    for text in body + outputs:
        used |= {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    bind: list[str] = []
    needs: list[int] = []
    tensors: list[int] = []
    for i, a in enumerate(args):
        if _kind(a.type):
            tensors.append(i)
            if f"{a.name}_p" in used or a.name in used or any(f"{a.name}_{fact}" in used for fact in _FACTS):
                bind.append(f"{a.name}_p = values[{i}]")
            if a.name in used:
                bind.append(f"{a.name} = {a.name}_p")
            for fact, expression in _FACTS.items():
                if f"{a.name}_{fact}" in used:
                    bind.append(f"{a.name}_{fact} = {expression.format(f'{a.name}_p')}")
            if f"{a.name}_t" in used:
                bind.append(f"{a.name}_t = tangents[{i}]")
                needs.append(i)
        elif a.name in used:
            if keyword.iskeyword(a.name):
                raise SchemaError(Location("tools/autograd/derivatives.yaml", d.loc.line),
                                  f"derivatives.yaml: {fn.func}: a forward formula cannot read {a.name!r}")
            bind.append(f"{a.name} = values[{i}]")
    if _multi_output(fn) and len(fn.func.returns) > 1:
        for i, r in enumerate(fn.func.returns):
            for alias in (f"result{i}", r.name):
                if alias and alias in used and alias not in {a.name for a in args}:
                    bind.append(f"{alias} = result[{i}]")
    reads_self = bool(args) and (f"{args[0].name}_p" in used or args[0].name in used
                                 or any(f"{args[0].name}_{fact}" in used for fact in _FACTS))
    lines = bind + body + [f"return ({', '.join(outputs)},)"]
    return ForwardContext(
        op=ctx.op, kernel=kernel_name(ctx.kernel), function=f"_jvp_{ctx.kernel}",
        handles=tuple(sorted(handles.items())),
        lines=tuple(lines), names_tuple=ctx.names_tuple, defaults=ctx.defaults, tensors=tuple(tensors),
        needs=tuple(needs), reads_self=reads_self, inplace_entry=ctx.inplace_entry, inplace_view=ctx.inplace_view,
        functional=str(functional_of(fn, group).func.name) if ctx.inplace_view and ctx.inplace_entry else "",
        inplace=tuple(Variant(v.op, kernel_name(v.kernel), v.inplace_view, functional=ctx.op if v.inplace_view else "")
                      for v in ctx.inplace))


def kernel_name(kernel: str) -> str:
    """A kernel's name in the generated module: prefixed, so that no kernel shadows the formulas' helper of the
    same name (gelu_backward the op's kernel, gelu_backward the helper formulas call)."""
    return f"fw_{kernel}"


# What a backward formula's X.sym_sizes() (rewritten to X_sizes when loaded) reads, from the primal; the same
# accessors in a forward formula read the tensor they are called on.
_FACTS = {"sizes": "tuple({}.shape)", "scalar_type": "{}.dtype", "dim": "{}.dim()", "numel": "{}.numel()",
          "strides": "{}.stride()", "args_sizes": "[tuple(t.shape) for t in {}]", "layout": "None"}


class _Methods(ast.NodeTransformer):
    """Upstream's metadata accessors (x.sym_sizes(), x.scalar_type()...) as Tensor attributes."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in _META and not node.args and not node.keywords:
            inner = ast.unparse(self.visit(f.value))
            return ast.copy_location(ast.parse(_FACTS[_META[f.attr]].format(f"({inner})"), mode="eval").body, node)
        return self.generic_visit(node)


def missing(d: Derivative, ctx: KernelContext) -> list[Missing]:
    """The 'not implemented' kernels of an entry without forward formulas (its op and in-place variants)."""
    if d.forward or str(d.fn.func.name.name.base) in NO_TANGENT or not d.formulas:
        return []
    base = str(d.fn.func.name.name.base)
    return [Missing(ctx.op, kernel_name(ctx.kernel), base)] + [Missing(v.op, kernel_name(v.kernel), base)
                                                                for v in ctx.inplace]


def missing_formula(k: MissingFormula) -> Missing:
    return Missing(k.op, kernel_name(k.kernel), k.op.split(".")[0])


@dataclass(frozen=True)
class Plan:
    """What forward_ad.py.j2 renders and the ForwardAD key registers."""
    formulas: tuple[ForwardContext, ...]
    missing: tuple[Missing, ...]
    outs: tuple[Variant, ...]
    manual: tuple[tuple[str, str], ...]          # (op, kernel) written by hand, in MANUAL_MODULE

    def registrations(self) -> list[tuple[str, str, str]]:
        """(operator, module, kernel) of every ForwardAD kernel."""
        kernels = [(f.op, f.kernel) for f in self.formulas] + [(v.op, v.kernel) for f in self.formulas
                                                               for v in f.inplace]
        kernels += [(m.op, m.kernel) for m in self.missing] + [(v.op, v.kernel) for v in self.outs]
        return [(op, MODULE, kernel) for op, kernel in kernels] + [(op, MANUAL_MODULE, k) for op, k in self.manual]


def plan(derivatives: list[Derivative], contexts: list[KernelContext], missing_formulas: list[MissingFormula],
         outs: list[Any], groups: dict[str, list[NativeFunction]]) -> Plan:
    """The forward kernels of every derivative entry (contexts: their autograd kernels, in the same order) and of
    the differentiable ops without an entry; every out= variant (outs) refuses tangents, as PyTorch's."""
    formulas = [f for f in (forward_context(d, c, groups[d.fn.func.name.name.base])
                            for d, c in zip(derivatives, contexts)) if f is not None]
    schemas = {str(fn.func.name) for group in groups.values() for fn in group}
    absent = [m for d, c in zip(derivatives, contexts) for m in missing(d, c)]
    absent += [missing_formula(k) for k in missing_formulas]
    refusing = [Variant(v.op, kernel_name(v.kernel), base=v.base) for v in outs]
    manual = tuple((op, kernel) for op, kernel in MANUAL_FORWARD.items() if op in schemas)
    return Plan(tuple(formulas), tuple(absent), tuple(refusing), manual)
