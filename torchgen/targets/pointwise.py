"""What the CPU and CUDA pointwise targets share: an op's operands and its dtype loops."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import BAREBONES_UNSIGNED, COMPLEX, DTYPE_CLASSES, FLOAT8_LOOPS, DType
from torchgen.model import Argument, BaseTy, BaseType, SchemaError
from torchgen.native_yaml import NativeFunction
from torchgen.targets.bindings import python_default
from torchgen.targets.variants import Variants, variants_of


@dataclass(frozen=True)
class BoolInputs:
    """An op refused when all (`every`) or any of its tensor inputs are bool, with its message."""
    every: bool
    message: str


@dataclass(frozen=True)
class DtypeRules:
    """The schema's dtype rules for an op, which the CPU and CUDA kernels apply alike before they
    compute: refusals over bool inputs, arguments that must be bool, whether an integral
    computation runs in the default float dtype, and whether the result is bool."""
    base: str                          # the op's name in messages (where, sub...)
    bool_inputs: tuple[BoolInputs, ...]
    bool_args: tuple[str, ...]
    to_float: bool
    bool_out: bool


@dataclass(frozen=True)
class KernelParam:
    """A parameter of a generated pointwise kernel: a tensor, or a scalar with the schema's default
    (a Python literal, or None when it has none); templates/kernel_params.j2 spells the list."""
    name: str
    tensor: bool
    default: str | None


@dataclass(frozen=True, slots=True)
class PointwiseOp:
    fn: NativeFunction
    tensors: tuple[str, ...]          # tensor argument names, in schema order
    scalars: tuple[str, ...]          # Scalar argument names, in schema order
    args: tuple[Argument, ...]        # every argument, in schema order
    dtypes: tuple[DType, ...]         # the loops of every backend
    variants: Variants                # the dispatch-less in-place and out= entries it also serves

    @property
    def name(self) -> str:
        return str(self.fn.func.name)

    @property
    def cname(self) -> str:
        return self.fn.func.name.unambiguous_name()

    @property
    def table(self) -> str:
        """The Cython name of the op's loop table (one loop per compute dtype)."""
        return f"_{self.cname}_loops"

    @property
    def formula(self) -> str:
        assert self.fn.pointwise is not None
        return self.fn.pointwise.formula

    @property
    def loop_dtypes(self) -> tuple[DType, ...]:
        """The loops of every backend: the entry's dtypes, and complex64 / complex128 where it has a complex formula."""
        assert self.fn.pointwise is not None
        return self.dtypes + (COMPLEX if self.fn.pointwise.complex is not None else ())

    def formula_for(self, dt: DType) -> str:
        assert self.fn.pointwise is not None
        if dt.is_complex:
            formula = self.fn.pointwise.complex_formula
            assert formula is not None
            return formula
        if dt.is_bool and self.fn.pointwise.bool_formula is not None:
            return self.fn.pointwise.bool_formula
        return self.fn.pointwise.formula

    @property
    def promote(self) -> str:
        assert self.fn.pointwise is not None
        return self.fn.pointwise.promote

    @property
    def dtype_rules(self) -> DtypeRules:
        rules = self.fn.pointwise
        assert rules is not None
        return DtypeRules(base=str(self.fn.func.name.name),
                          bool_inputs=tuple(BoolInputs(when == "all", message) for when, message in rules.bool_inputs),
                          bool_args=tuple(rules.bool_args), to_float=rules.promote == "int_to_float",
                          bool_out=rules.promote == "always_bool")

    def names(self) -> dict[str, str]:
        """Argument name -> the variable a loop holds it in."""
        names = {t: f"x{i}" for i, t in enumerate(self.tensors)}
        names.update({s: f"c{i}" for i, s in enumerate(self.scalars)})
        return names

    def params(self) -> tuple[KernelParam, ...]:
        """The kernel's parameters, in schema order, with the schema's defaults."""
        return tuple(KernelParam(arg.name, arg.name in self.tensors,
                                 python_default(self.fn, arg) if arg.default is not None else None)
                     for arg in self.args)

    @property
    def complex_real_out(self) -> bool:
        """Whether a complex computation stores a real-valued result (abs, angle)."""
        assert self.fn.pointwise is not None
        return self.fn.pointwise.complex_result == "real"

    def out_dtype(self, compute: DType) -> DType:
        if self.promote == "always_bool":
            return next(d for d in DTYPE_CLASSES["AllAndBool"] if d.is_bool)
        if self.complex_real_out:
            return compute.component
        return compute


def pointwise_op(fn: NativeFunction, group: list[NativeFunction]) -> PointwiseOp | None:
    if fn.pointwise is None:
        return None
    tensors: list[str] = []
    scalars: list[str] = []
    for arg in fn.func.arguments.flat_all:
        if arg.type == BaseType(BaseTy.Tensor):
            tensors.append(arg.name)
        elif arg.type in (BaseType(BaseTy.Scalar), BaseType(BaseTy.int), BaseType(BaseTy.float), BaseType(BaseTy.bool)):
            scalars.append(arg.name)
        else:
            raise SchemaError(fn.loc, f"ember_pointwise: argument {arg.name} has type {arg.type}; "
                                      "a pointwise op takes Tensor, Scalar, int, float and bool arguments only")
    if not tensors:
        raise SchemaError(fn.loc, "ember_pointwise: the op needs at least one Tensor argument")
    dtypes = (DTYPE_CLASSES[fn.pointwise.dtypes] + (BAREBONES_UNSIGNED if fn.pointwise.barebones_unsigned else ())
              + FLOAT8_LOOPS.get(fn.pointwise.float8, ()))
    return PointwiseOp(fn, tuple(tensors), tuple(scalars), fn.func.arguments.flat_all, dtypes, variants_of(fn, group))
