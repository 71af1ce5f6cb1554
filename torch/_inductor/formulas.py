"""Lowering: a graph node to the C expression of its scalar formula, or None when it cannot be fused.

The formulas come from the schema through the build (_gen_pointwise.FORMULAS: float32 C over x0, x1...
for the tensor arguments and c0, c1... for the scalar ones). A few operators that are composites or have
no formula of their own lower to the formulas they compute with (gelu and gelu_backward to _ember_gelu's,
clamp to clamp_min and clamp_max, pow by a small integer to products, rsub to a subtraction, masked_fill to
a select, clone to the value itself). Only float32
computations fuse (bool for comparisons and where's condition); any other dtype runs Ember's kernel."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import torch
from torch._inductor._gen_pointwise import FORMULAS
from torch._ops import OpOverload
from torch.fx.node import Node

__all__ = ["Lowered", "Reduction", "bind", "lower", "lower_reduction"]


@dataclass(frozen=True)
class Lowered:
    """A node as a fusible expression: `expr` names its operands {0}, {1}... (the nodes in `operands`,
    in order); `out` is the result's C type ("float" or "bool"); `bools` says which operands are bool."""
    expr: str
    operands: tuple[Any, ...]
    out: str
    bools: tuple[bool, ...]
    approximates: bool = False      # calls a vec_math.h approximation (exp, tanh...): its bits are its own


_NAME = re.compile(r"\b([xc])(\d+)\b")


def literal(value: Any) -> str | None:
    """A Python number as a float32 C constant (None for anything else)."""
    if isinstance(value, bool):
        return "((float)1)" if value else "((float)0)"
    if isinstance(value, (int, float)):
        number = float(value)
        if math.isnan(number):
            return "((float)NAN)"
        if math.isinf(number):
            return "((float)INFINITY)" if number > 0 else "(-(float)INFINITY)"
        return f"((float){value!r})"
    return None


def bind(target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The call's arguments by the schema's names (defaults left out)."""
    try:
        arguments = target._schema.arguments
    except Exception:
        return None
    positional = [a for a in arguments if not a.kwarg_only]
    if len(args) > len(positional):
        return None
    bound = {arg.name: value for arg, value in zip(positional, args)}
    bound.update(kwargs)
    return bound


def _from_table(name: str, bound: dict[str, Any], target: str) -> Lowered | None:
    entry = FORMULAS.get(name)
    if entry is None:
        return None
    tensors, scalars, defaults, c_expr, cuda_expr, out, bool_args, approximates = entry
    assert isinstance(defaults, dict)
    expr = cuda_expr if target == "cuda" else c_expr
    if expr is None:
        return None
    operands: list[Any] = []
    bools: list[bool] = []
    names: dict[str, str] = {}
    for i, arg in enumerate(tensors):
        if arg not in bound:
            return None
        value = bound[arg]
        if isinstance(value, Node):
            names[f"x{i}"] = "{" + str(len(operands)) + "}"
            operands.append(value)
            bools.append(arg in bool_args)
        else:
            text = literal(value)       # a Python number the call passed for a tensor (a wrapped number)
            if text is None or arg in bool_args:
                return None
            names[f"x{i}"] = text
    for i, arg in enumerate(scalars):
        value = bound.get(arg, defaults.get(arg))
        text = literal(value)
        if text is None:
            return None
        names[f"c{i}"] = text
    body = _NAME.sub(lambda m: names[m.group(0)], str(expr))
    return Lowered(body, tuple(operands), "bool" if out == "bool" else "float", tuple(bools),
                   bool(approximates) and target == "c")


# The functions the handwritten lowerings spell, per target (vec_math.h's on the CPU, CUDA's and the ember_
# helpers on the GPU).
# exp_flush: e^z flushed to 0 below -87.3 and to inf above 88.3 on the CPU (vec_math.h's cheaper exp).
_SPELLING = {"c": {"sqrt": "ember_vm_sqrtf", "maximum": "ember_vm_maximumf", "minimum": "ember_vm_minimumf",
                   "exp_flush": "ember_vm_expf_flush"},
             "cuda": {"sqrt": "sqrtf", "maximum": "ember_maximum", "minimum": "ember_minimum", "exp_flush": "expf"}}


def _pow(bound: dict[str, Any], target: str) -> Lowered | None:
    exponent = bound.get("exponent")
    base = bound.get("self")
    if not isinstance(base, Node) or isinstance(exponent, bool):
        return None
    spelled = {1: "{0}", 2: "({0} * {0})", 3: "(({0} * {0}) * {0})", 4: "(({0} * {0}) * ({0} * {0}))",
               0.5: _SPELLING[target]["sqrt"] + "({0})", -1: "(((float)1) / {0})"}
    expr = spelled.get(exponent) if isinstance(exponent, (int, float)) else None
    return None if expr is None else Lowered(expr, (base,), "float", (False,))


def _clamp(bound: dict[str, Any], target: str) -> Lowered | None:
    base = bound.get("self")
    if not isinstance(base, Node):
        return None
    expr = "{0}"
    for name, spelling in (("min", _SPELLING[target]["maximum"]), ("max", _SPELLING[target]["minimum"])):
        value = bound.get(name)
        if value is None:
            continue
        text = literal(value)
        if text is None:
            return None
        expr = f"{spelling}({expr}, {text})"
    return Lowered(expr, (base,), "float", (False,))


def _rsub(bound: dict[str, Any]) -> Lowered | None:
    base, other, alpha = bound.get("self"), literal(bound.get("other")), literal(bound.get("alpha", 1))
    if not isinstance(base, Node) or other is None or alpha is None:
        return None
    return Lowered(f"({other} - ({alpha} * {{0}}))", (base,), "float", (False,))


def _one_plus_tanh(name: str, bound: dict[str, Any], target: str) -> Lowered | None:
    """1 + tanh(y) as 2 sigmoid(2y) = 2 / (1 + e^(-2y)), and 1 - tanh(y) as 2 / (1 + e^(2y)): the GELU-style
    chains' term (0.5 x (1 + tanh(...))) for one exp instead of a tanh, which costs twice as much, and without
    tanh's cancellation near -1. Only where the add is the tanh's one use, right after it: the tanh is then
    computed for nothing (the C compiler drops it)."""
    base, other = bound.get("self"), bound.get("other")
    if name == "add.Tensor" and isinstance(other, Node) and not isinstance(base, Node):
        base, other = other, base       # 1 + tanh(y)
    elif name == "sub.Tensor":          # 1 - tanh(y)
        base, other = other, base
    sign = "-" if name == "add.Tensor" else ""      # rsub.Scalar: other - self
    # the add right after the tanh: nothing in between writes y, which the add now reads in the tanh's place
    if not (isinstance(base, Node) and base.target is torch.ops.aten.tanh.default and len(base.users) == 1
            and base.next in base.users and isinstance(base.args[0], Node) and not base.kwargs
            and bound.get("alpha", 1) == 1
            and not isinstance(other, bool) and isinstance(other, (int, float)) and other == 1):
        return None
    if base.meta.get("example") is None or base.meta["example"][2] != torch.float32:
        return None
    # e^z flushed (_SPELLING): 2 / (1 + e^z) is 2 there in float32 anyway, and 0 where the exact result is below
    # float32's smallest normal number (2^-126)
    exp = _SPELLING[target]["exp_flush"]
    return Lowered(f"(((float)2) / (((float)1) + {exp}({sign}((float)2) * {{0}})))", (base.args[0],), "float",
                   (False,), target == "c")


def _gelu_tanh(bound: dict[str, Any], target: str) -> Lowered | None:
    """gelu(x, approximate="tanh") = 0.5 x (1 + tanh(u)) as x / (1 + e^(-2u)), as _one_plus_tanh (results below
    |x| 2^-127 flush to 0, where eager's 0.5 x (1 + tanh(u)) cancels to 0 from x = -5.5 on)."""
    base = bound.get("self")
    if not isinstance(base, Node):
        return None
    exp = _SPELLING[target]["exp_flush"]
    inner = "({0} + ((((float)0.044715) * {0}) * {0}) * {0})"
    return Lowered(f"({{0}} / (((float)1) + {exp}(((float){-2 * math.sqrt(2 / math.pi)!r}) * {inner})))", (base,),
                   "float", (False,), target == "c")


def _masked_fill(bound: dict[str, Any]) -> Lowered | None:
    base, mask, value = bound.get("self"), bound.get("mask"), literal(bound.get("value"))
    if not isinstance(base, Node) or not isinstance(mask, Node) or value is None:
        return None
    return Lowered(f"(({{1}}) ? ({value}) : ({{0}}))", (base, mask), "float", (False, True))


def _copy(bound: dict[str, Any]) -> Lowered | None:
    """clone (and a same-dtype _to_copy): the value itself, stored in the layout the graph recorded."""
    base = bound.get("self")
    if not isinstance(base, Node) or any(bound.get(k) is not None for k in ("dtype", "layout", "device")):
        return None
    return Lowered("{0}", (base,), "float", (False,))


@dataclass(frozen=True)
class Reduction:
    """A sum or mean of one float32 operand over `dims` (sorted, non-negative): a fused kernel's epilogue."""
    operand: Any
    dims: tuple[int, ...]
    kind: str                   # "sum" | "mean"


_REDUCTIONS = {"sum": "sum", "sum.dim_IntList": "sum", "mean": "mean", "mean.dim": "mean"}


def lower_reduction(node: Any) -> Reduction | None:
    """A node as a fusible reduction (sum or mean over dims, no dtype argument), or None."""
    op = node.target
    if not isinstance(op, OpOverload) or op.overloadpacket._namespace != "aten":
        return None
    name = f"{op.overloadpacket.__name__}" + ("" if op._overloadname == "default" else f".{op._overloadname}")
    kind = _REDUCTIONS.get(name)
    bound = bind(op, node.args, node.kwargs) if kind is not None else None
    if kind is None or bound is None or bound.get("dtype") is not None or not isinstance(bound.get("self"), Node):
        return None
    example = bound["self"].meta.get("example")
    if example is None:
        return None
    rank = len(example[0])
    dims = bound.get("dim")
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        dims = list(range(rank))           # every dim, as PyTorch reads an empty dim list
    if isinstance(dims, int):
        dims = [dims]
    if rank == 0 or not all(isinstance(d, int) and -rank <= d < rank for d in dims):
        return None
    return Reduction(bound["self"], tuple(sorted({d % rank for d in dims})), kind)


def lower(node: Any, target: str = "c") -> Lowered | None:
    """The node as a fusible expression for target ("c": the CPU, "cuda"), or None."""
    op = node.target
    if not isinstance(op, OpOverload) or op.overloadpacket._namespace != "aten":
        return None
    bound = bind(op, node.args, node.kwargs)
    if bound is None:
        return None
    name = f"{op.overloadpacket.__name__}" + ("" if op._overloadname == "default" else f".{op._overloadname}")
    rewritten = _one_plus_tanh(name, bound, target) if name in ("add.Tensor", "sub.Tensor", "rsub.Scalar") else None
    if rewritten is not None:
        return rewritten
    if name == "gelu" and bound.get("approximate", "none") == "tanh":
        return _gelu_tanh(bound, target)
    if name in ("gelu", "gelu_backward"):
        approximate = bound.get("approximate", "none")
        name = {"none": "_ember_gelu", "tanh": "_ember_gelu_tanh"}.get(approximate, "") + name[4:]
    elif name == "pow.Tensor_Scalar":
        return _pow(bound, target)
    elif name == "clamp":
        return _clamp(bound, target)
    elif name == "rsub.Scalar":
        return _rsub(bound)
    elif name == "masked_fill.Scalar":
        return _masked_fill(bound)
    elif name in ("clone", "_to_copy"):
        return _copy(bound)
    return _from_table(name, bound, target)
