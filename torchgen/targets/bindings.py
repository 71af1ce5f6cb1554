"""Target: Python bindings (torch.<op>, Tensor.<op>), one Cython module per op base name.

Like PyTorch's gen_python_functions: `self` is called `input` in functions, out= overloads and
the `.Scalar` forms of add/sub/mul/div are not bound, overloads are tried Tensor before Scalar
(sort_overloads), factory and *_like functions take `requires_grad=`, and a Tensor parameter of a
pointwise op accepts Python numbers when no overload takes them as they are.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from torchgen.model import Argument, BaseTy, BaseType, ListType, OptionalType, SchemaError, SchemaKind, Type, Variant
from torchgen.native_yaml import NativeFunction

_BASE_PARAM = {BaseTy.Tensor: "TENSOR", BaseTy.Scalar: "SCALAR", BaseTy.int: "INT", BaseTy.SymInt: "INT",
               BaseTy.float: "FLOAT", BaseTy.bool: "BOOL", BaseTy.ScalarType: "DTYPE", BaseTy.str: "STRING"}
_OPTIONAL_ONLY = {BaseTy.Layout: "P_LAYOUT", BaseTy.Device: "P_DEVICE", BaseTy.MemoryFormat: "P_MEMORY_FORMAT"}
_LIST_PARAM: dict[Type, str] = {BaseType(BaseTy.Tensor): "P_TENSOR_LIST",
                                OptionalType(BaseType(BaseTy.Tensor)): "P_OPT_TENSOR_LIST",
                                BaseType(BaseTy.bool): "P_BOOL_LIST"}
_DTYPE_DEFAULTS = {"long": "int64", "int": "int32", "float": "float32", "double": "float64", "bool": "bool"}
# at::Reduction, the symbolic default of the losses' `int reduction=Mean`.
REDUCTION_DEFAULTS = {"None": 0, "Mean": 1, "Sum": 2}


def param_type(fn: NativeFunction, arg: Argument) -> str:
    t: Type = arg.type
    optional = isinstance(t, OptionalType)
    inner = t.elem if isinstance(t, OptionalType) else t
    if isinstance(inner, BaseType) and inner.name in _OPTIONAL_ONLY:
        return _OPTIONAL_ONLY[inner.name]
    if isinstance(inner, BaseType) and inner.name in _BASE_PARAM:
        return ("P_OPT_" if optional else "P_") + _BASE_PARAM[inner.name]
    if isinstance(inner, ListType) and inner.elem in (BaseType(BaseTy.int), BaseType(BaseTy.SymInt)):
        return "P_OPT_INT_LIST" if optional or inner.size is not None else "P_INT_LIST"
    if isinstance(inner, ListType) and not optional and inner.elem in _LIST_PARAM:
        return _LIST_PARAM[inner.elem]
    if isinstance(inner, ListType) and optional and inner.elem == BaseType(BaseTy.float):
        return "P_FLOAT_LIST"
    if t == OptionalType(BaseType(BaseTy.Generator)):
        return "P_GENERATOR"
    raise SchemaError(fn.loc, f"python bindings: argument '{arg.name}' of type {t} is not supported yet")


def python_default(fn: NativeFunction, arg: Argument) -> str:
    text = arg.default
    assert text is not None
    if arg.type == BaseType(BaseTy.int) and text in ("Mean", "Sum"):
        return str(REDUCTION_DEFAULTS[text])
    if text in ("None", "True", "False") or re.fullmatch(r"-?\d+", text) or re.fullmatch(r"-?[\d.]+(e-?\d+)?", text):
        return text
    if text.startswith("[") and text.endswith("]"):
        items = [i for i in text[1:-1].split(",") if i]
        return "(" + "".join(f"{i}, " for i in items) + ")"
    if text[0] in "'\"":
        return text
    if text in _DTYPE_DEFAULTS:
        return f'_dtype("{_DTYPE_DEFAULTS[text]}")'
    if text in ("contiguous_format", "preserve_format", "channels_last"):
        return f"_layout.{text}"
    raise SchemaError(fn.loc, f"python bindings: default {text!r} of argument '{arg.name}' is not supported yet")


def binding_default(fn: NativeFunction, arg: Argument) -> str:
    """The default a Python binding (torch.X, torch._C._nn.X) applies. PyTorch's argument parser
    reads an int's default with atol, so the losses' `int reduction=Mean` defaults to 0 ("none")
    there, while torch.ops.aten and the composites keep the schema's Mean: kept, since programs
    calling torch.ctc_loss(...) or torch.hinge_embedding_loss(...) bare see unreduced losses."""
    if arg.type == BaseType(BaseTy.int) and arg.default in ("Mean", "Sum"):
        return "0"
    return python_default(fn, arg)


# python_module -> the prefix upstream's names carry there (linalg_vector_norm is torch.linalg.vector_norm).
NAMESPACE_PREFIXES = {"linalg": "linalg_", "special": "special_", "fft": "fft_", "nn": ""}


def python_name(fn: NativeFunction) -> str:
    name = str(fn.func.name.name)
    if fn.python_module is not None:
        return name.removeprefix(NAMESPACE_PREFIXES.get(fn.python_module, ""))
    return name


# A factory's TensorOptions arguments, which its out= overload does not take: the out tensor has them
# (upstream's python bindings check them against it: check_out_type_matches).
TENSOR_OPTIONS = {"dtype": "ScalarType?", "layout": "Layout?", "device": "Device?", "pin_memory": "bool?"}


def is_tensor_option(arg: Argument) -> bool:
    return TENSOR_OPTIONS.get(arg.name) == str(arg.type)


def out_variant(fn: NativeFunction, fns: list[NativeFunction]) -> NativeFunction | None:
    """The out= overload taking fn's arguments plus out tensors (torch.<op>(..., out=) calls it);
    a factory's out= overload takes them less its TensorOptions."""
    if fn.func.kind() is not SchemaKind.functional:
        return None
    mine = [(a.name, str(a.type), a.default) for a in fn.func.arguments.flat_all]
    without_options = [(a.name, str(a.type), a.default) for a in fn.func.arguments.flat_all if not is_tensor_option(a)]
    for cand in fns:
        if cand.func.kind() is SchemaKind.out and \
                [(a.name, str(a.type), a.default) for a in cand.func.arguments.flat_non_out] in (mine, without_options):
            return cand
    return None


def return_type(fn: NativeFunction) -> tuple[str, tuple[str, ...]] | None:
    """(name, fields) of the torch.return_types structseq for ops with several named returns."""
    names = tuple(r.name for r in fn.func.returns)
    if len(names) < 2 or not all(names):
        return None
    return str(fn.func.name.name.base), tuple(n for n in names if n)


# Ops without generated Python bindings, as upstream's gen_python_functions skips them: `index` is
# reached through Tensor.__getitem__ (and its module name would shadow torch._C._gen_index); `to`
# is bound by hand (torch/_tensor.py) for its device-or-dtype positional forms.
SKIP_BINDINGS = frozenset({"index", "to"})
# Upstream's `.*_backward` patterns: backward kernels are reached through autograd and torch.ops.aten.
SKIP_BINDING_PATTERN = re.compile(r".*_backward(_(out|input|weight|bias))?")


# Upstream's SKIP_PYTHON_BINDINGS_SIGNATURES: the Tensor overloads take Python numbers for these.
SKIP_SIGNATURES = frozenset({
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    "mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    "div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
})


def bound_functions(fns: list[NativeFunction]) -> list[NativeFunction]:
    """The overloads that get a Python binding, in schema order."""
    out = []
    for f in fns:
        if f.func.kind() in (SchemaKind.out, SchemaKind.scratch) or str(f.func.name.name) in SKIP_BINDINGS:
            continue
        if SKIP_BINDING_PATTERN.fullmatch(str(f.func.name.name.base)):
            continue
        if str(f.func) in SKIP_SIGNATURES:
            continue
        out.append(f)
    return out


def _type_smaller(t1: Type, t2: Type) -> bool:
    """Upstream's is_arg_smaller: an overload taking t1 is tried after one taking t2 at that place."""
    a, b = str(t1), str(t2)
    return ((a == "Scalar" and b == "Tensor") or (a == "Scalar?" and b == "Tensor?")
            or (a == "int[]" and b in ("int", "int?")) or (a == "Tensor[]" and "[]" in b)
            or (a == "SymInt[]" and b == "int[]") or (a in ("SymInt", "int") and b == "Tensor"))


def _smaller(f1: NativeFunction, f2: NativeFunction) -> bool:
    a1, a2 = f1.func.arguments.flat_non_out, f2.func.arguments.flat_non_out
    if len(a1) != len(a2):
        return False
    pairs = list(zip(a1, a2))
    return (all(str(x.type) == str(y.type) or _type_smaller(x.type, y.type) for x, y in pairs)
            and not all(x.type == y.type for x, y in pairs))


def sort_overloads(fns: list[NativeFunction]) -> list[NativeFunction]:
    """The order the parser tries overloads in: upstream's partial order (a Scalar overload after
    the Tensor overload it shadows, `lerp.Tensor` before `lerp.Scalar`), schema order otherwise."""
    remaining = list(fns)
    ordered: list[NativeFunction] = []
    while remaining:
        # The first overload (in schema order) that no remaining overload must precede.
        pick = next(f for f in remaining if not any(_smaller(f, g) for g in remaining if g is not f))
        ordered.append(pick)
        remaining.remove(pick)
    return ordered


@dataclass(frozen=True)
class BindingParam:
    """One parameter of a bound overload, as torch/_C/arg_parser.pyx's Param takes it."""
    name: str
    type: str                    # the parser's P_* kind
    kwonly: bool
    has_default: bool
    default: str                 # a Cython expression
    allow_numbers: bool          # a Tensor parameter of a pointwise op also takes Python numbers


@dataclass(frozen=True)
class CallArg:
    """An argument a binding passes to its operator: a method's receiver (`self`, index None) or
    the parsed value v[index]. `keys` is what it adds to the dispatch key set: "tensor",
    "optional" (a tensor or None), "list" (of tensors), or "" (nothing). `option`: one of a
    factory's TensorOptions, which its out= overload does not take."""
    index: int | None
    keys: str
    option: bool = False


@dataclass(frozen=True)
class OutCall:
    """The out= overload a functional signature dispatches to when out (v[index]) is given:
    one tensor, or several (`multi`, passed unpacked). A factory's (`options`: the parsed
    positions of its dtype, layout and device) is called without its TensorOptions, which are
    checked against out instead."""
    op_var: str
    index: int
    multi: bool
    options: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class BoundSignature:
    """One overload of a binding: what bindings.pyx.j2 parses, dispatches on and calls with. A
    signature with no tensor argument dispatches on its device= argument (v[device_index]), or on
    the default device."""
    op: str
    op_var: str
    params: tuple[BindingParam, ...]
    args: tuple[CallArg, ...]
    device_index: int | None
    out: OutCall | None
    wrap: str                    # the structseq wrapping a tuple return, or ""
    requires_grad_index: int | None   # the parsed value to set a factory's requires_grad from


@dataclass(frozen=True)
class Binding:
    """torch.<name> (or Tensor.<name>): its parser and its overloads."""
    python_name: str
    parser: str
    function: str
    self_param: str
    doc: str
    namespace: str
    signatures: tuple[BoundSignature, ...]


@dataclass(frozen=True)
class Operator:
    name: str
    var: str


@dataclass(frozen=True)
class ReturnType:
    name: str
    fields: list[str]


@dataclass(frozen=True)
class ModuleContext:
    """What bindings.pyx.j2 renders for one base name."""
    operators: tuple[Operator, ...]
    bindings: tuple[Binding, ...]
    return_types: tuple[ReturnType, ...]


def takes_requires_grad(fn: NativeFunction) -> bool:
    """Upstream adds `requires_grad=False` to factory functions (a Tensor return and no Tensor
    argument) and to new_*/*_like functions."""
    func = fn.func
    name = str(func.name.name)
    if name.startswith("new_") or name.endswith("_like"):
        return True
    return (any(r.type.is_tensor_like() for r in func.returns)
            and not any(a.type.is_tensor_like() for a in func.arguments.flat_non_out))


def _signature(fn: NativeFunction, method: bool, op_var: str, out: tuple[NativeFunction, str] | None = None,
               pointwise: bool = False) -> BoundSignature:
    # Tensor parameters of pointwise ops (and of their in-place forms) also take Python numbers.
    allow_numbers = pointwise or "pointwise" in fn.tags
    params: list[BindingParam] = []
    call_args = []
    device_index = None
    args = fn.func.arguments
    index = 0
    keys_of = {"P_TENSOR": "tensor", "P_OPT_TENSOR": "optional", "P_TENSOR_LIST": "list", "P_OPT_TENSOR_LIST": "list"}
    for arg in args.flat_non_out:
        if method and args.self_arg is not None and arg is args.self_arg:
            call_args.append(CallArg(None, "tensor"))
            continue
        kind = param_type(fn, arg)
        params.append(BindingParam(
            name="input" if arg.name == "self" else arg.name, type=kind, kwonly=arg not in args.flat_positional,
            # As PyTorch's parser: an optional type without a default (`Scalar? p`, batch_norm's
            # `Tensor? weight`) accepts None but must still be given.
            has_default=arg.default is not None,
            default=binding_default(fn, arg) if arg.default is not None else "None",
            allow_numbers=allow_numbers and kind in ("P_TENSOR", "P_OPT_TENSOR")))
        call_args.append(CallArg(index, keys_of.get(kind, ""), is_tensor_option(arg)))
        if kind == "P_DEVICE":
            device_index = index
        index += 1
    out_context = None
    if out is not None:
        out_fn, out_var = out
        multi = len(out_fn.func.arguments.out) > 1
        params.append(BindingParam("out", "P_TENSOR_LIST" if multi else "P_OPT_TENSOR", True, True, "None", False))
        options = None
        if len(out_fn.func.arguments.flat_non_out) < len(args.flat_non_out):      # a factory's
            position = {p.name: i for i, p in enumerate(params)}
            options = (position["dtype"], position["layout"], position["device"])
        out_context = OutCall(out_var, index, multi, options)
        index += 1
    requires_grad_index = None
    if takes_requires_grad(fn):
        params.append(BindingParam("requires_grad", "P_OPT_BOOL", True, True, "False", False))
        requires_grad_index = index
    ret = return_type(fn)
    return BoundSignature(op=str(fn.func.name), op_var=op_var, params=tuple(params), args=tuple(call_args),
                          device_index=device_index, out=out_context, wrap=f"_rt_{ret[0]}" if ret else "",
                          requires_grad_index=requires_grad_index)


def module_context(fns: list[NativeFunction]) -> ModuleContext:
    """Bindings for all overloads sharing one base name (functions and methods)."""
    bound = bound_functions(fns)
    outs = {str(f.func.name): o for f in bound if (o := out_variant(f, fns)) is not None}
    operators = [Operator(str(f.func.name), f"_op_{f.func.name.unambiguous_name()}")
                 for f in bound + list(outs.values())]
    var_of = {o.name: o.var for o in operators}
    return_types = sorted({rt for f in bound if (rt := return_type(f)) is not None})
    bindings = []
    names = sorted({python_name(f) for f in bound})
    for name in names:
        group = sort_overloads([f for f in bound if python_name(f) == name])
        for method in (False, True):
            variant = Variant.method if method else Variant.function
            chosen = [f for f in group if variant in f.variants]
            if not chosen:
                continue
            if method and any(f.func.arguments.self_arg is None for f in chosen):
                raise SchemaError(chosen[0].loc, f"{name}: a method variant needs a `self` argument")
            bindings.append(Binding(
                python_name=name, parser=("_m_" if method else "_f_") + name.replace("_", "__"),
                function=("Tensor_" if method else "") + name, self_param="TensorImpl self, " if method else "",
                doc=("Tensor." if method else "torch.") + name + ": " + ", ".join(f"aten::{f.func.name}" for f in chosen),
                namespace=chosen[0].python_module or "",
                signatures=tuple(_signature(f, method, var_of[str(f.func.name)],
                                            None if method or str(f.func.name) not in outs else
                                            (outs[str(f.func.name)], var_of[str(outs[str(f.func.name)].func.name)]),
                                            pointwise=any("pointwise" in g.tags for g in fns))
                                 for f in chosen)))
    return ModuleContext(tuple(operators), tuple(bindings), tuple(ReturnType(n, list(f)) for n, f in return_types))


def text_signature(signature: BoundSignature, method: bool) -> str:
    """The Python signature of one bound overload, as `inspect` would print it: `(input, *, alpha=1)`.

    Read by tools (the architecture audit's surface manifest), not at run time.
    """
    parts = ["self"] if method else []
    star = False
    # A positional parameter shows its default only when every later positional one has one
    # (batch_norm's `Tensor? weight` comes before required ones), as Python requires.
    shown = {}
    required_after = False
    for p in reversed(signature.params):
        if p.kwonly:
            shown[p.name] = p.has_default
            continue
        shown[p.name] = p.has_default and not required_after
        required_after = required_after or not p.has_default
    for p in signature.params:
        if p.kwonly and not star:
            parts.append("*")
            star = True
        text = p.name
        if shown[p.name]:
            default = re.sub(r'_dtype\("(\w+)"\)', r"torch.\1", p.default).replace("_layout.", "torch.")
            text += "=" + default
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def index_entries(module: str, context: ModuleContext
                  ) -> tuple[dict[str, str], dict[str, tuple[str, str]], dict[str, dict[str, str]]]:
    """torch.<name> functions, Tensor.<name> methods, and functions of python_module namespaces."""
    functions: dict[str, str] = {}
    methods: dict[str, tuple[str, str]] = {}
    namespaces: dict[str, dict[str, str]] = {}
    for b in context.bindings:
        if b.function.startswith("Tensor_"):
            methods[b.python_name] = (module, b.function)
        elif b.namespace:
            namespaces.setdefault(b.namespace, {})[b.python_name] = module
        else:
            functions[b.python_name] = module
    return functions, methods, namespaces


def signature_entries(context: ModuleContext) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Text signatures of every overload, by function name and by method name."""
    functions: dict[str, list[str]] = {}
    methods: dict[str, list[str]] = {}
    for b in context.bindings:
        if b.namespace:
            continue   # torch.linalg and friends: not yet in the audited surfaces
        method = b.function.startswith("Tensor_")
        texts = [text_signature(s, method) for s in b.signatures]
        (methods if method else functions)[b.python_name] = texts
    return functions, methods
