"""Target: the run-time table of pointwise formulas for Ember's compiler (torch/_inductor/_gen_pointwise.py).

The compiler fuses chains of `ember_pointwise` ops into one generated kernel; it must not import torchgen,
so each op's float32 formula is rendered here, at build time, over x0, x1... (its tensor arguments) and c0,
c1... (its scalar arguments): for the CPU in the "c" target of torchgen.formula (the branch-free vec_math.h
spellings the eager float32 loops vectorise with; None where a helper or a libm-only function has none, and
the compiler calls the op's kernel there), and for CUDA in the "cuda" target (CUDA's math functions and the
ember_ helpers of _gen_scalar_ops.cuh, which this target writes too)."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.formula import VECTOR_APPROXIMATED, render, tokenize
from torchgen.model import SchemaError
from torchgen.native_yaml import NativeFunction
from torchgen.targets.bindings import python_default
from torchgen.targets.pointwise import pointwise_op

MODULE_PATH = "torch/_inductor/_gen_pointwise.py"
CUDA_HELPERS_PATH = "aten/native/cuda/_gen_scalar_ops.cuh"


@dataclass(frozen=True)
class FusibleFormula:
    """One op's entry: its arguments, the C expression (None where the CPU has no plain-C spelling), the CUDA
    one, the result dtype (float32 or bool)."""
    name: str
    tensors: tuple[str, ...]
    scalars: tuple[str, ...]
    defaults: tuple[tuple[str, str], ...]      # (scalar argument, Python literal of its schema default)
    expr: str | None
    cuda: str
    out: str
    bool_args: tuple[str, ...]
    approximates: bool                         # calls a function vec_math.h approximates (exp, tanh...)

    @property
    def row(self) -> str:
        """The entry's value as Python source (the defaults are already Python literals)."""
        defaults = "{" + ", ".join(f"{name!r}: {value}" for name, value in self.defaults) + "}"
        fields = [repr(list(self.tensors)), repr(list(self.scalars)), defaults, repr(self.expr), repr(self.cuda),
                  repr(self.out), repr(list(self.bool_args)), repr(self.approximates)]
        return "(" + ",\n        ".join(fields) + ")"


def fusible_formulas(fns: list[NativeFunction], groups: dict[str, list[NativeFunction]]) -> list[FusibleFormula]:
    formulas: list[FusibleFormula] = []
    for fn in fns:
        op = pointwise_op(fn, groups[fn.func.name.name.base])
        if op is None:
            continue
        f32 = next((d for d in op.loop_dtypes if d.name == "float32"), None)
        if f32 is None or op.out_dtype(f32).name not in ("float32", "bool"):
            continue
        formula = op.formula_for(f32)
        expr: str | None
        try:
            expr = render(formula, op.names(), f32, "c")
        except SchemaError:         # no plain-C float32 spelling: on the CPU the compiler calls the op's kernel
            expr = None
        cuda = render(formula, op.names(), f32, "cuda")
        assert fn.pointwise is not None
        defaults = tuple((a.name, python_default(fn, a)) for a in op.args if a.name in op.scalars and a.default)
        formulas.append(FusibleFormula(
            name=op.name, tensors=op.tensors, scalars=op.scalars, defaults=defaults, expr=expr, cuda=cuda,
            out=op.out_dtype(f32).name, bool_args=tuple(fn.pointwise.bool_args),
            approximates=any(kind == "name" and text in VECTOR_APPROXIMATED for kind, text in tokenize(formula))))
    return sorted(formulas, key=lambda f: f.name)
