"""What the CPU and CUDA pointwise targets share: an op's operands and its dtype loops."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DTYPE_CLASSES, DType
from torchgen.model import BaseTy, BaseType, NativeFunction, SchemaError


@dataclass(frozen=True, slots=True)
class PointwiseOp:
    fn: NativeFunction
    tensors: tuple[str, ...]          # tensor argument names, in schema order
    scalars: tuple[str, ...]          # Scalar argument names, in schema order
    defaults: dict[str, str | None]   # argument name -> schema default text
    dtypes: tuple[DType, ...]

    @property
    def name(self) -> str:
        return str(self.fn.func.name)

    @property
    def cname(self) -> str:
        return self.fn.func.name.unambiguous_name()

    @property
    def formula(self) -> str:
        assert self.fn.pointwise is not None
        return self.fn.pointwise.formula

    @property
    def promote(self) -> str:
        assert self.fn.pointwise is not None
        return self.fn.pointwise.promote

    def names(self) -> dict[str, str]:
        """Argument name -> the variable a loop holds it in."""
        names = {t: f"x{i}" for i, t in enumerate(self.tensors)}
        names.update({s: f"c{i}" for i, s in enumerate(self.scalars)})
        return names

    def out_dtype(self, compute: DType) -> DType:
        if self.promote == "always_bool":
            return next(d for d in DTYPE_CLASSES["AllAndBool"] if d.is_bool)
        return compute


def pointwise_op(fn: NativeFunction) -> PointwiseOp | None:
    if fn.pointwise is None:
        return None
    tensors: list[str] = []
    scalars: list[str] = []
    defaults: dict[str, str | None] = {}
    for arg in fn.func.arguments.flat_all:
        defaults[arg.name] = arg.default
        if arg.type == BaseType(BaseTy.Tensor):
            tensors.append(arg.name)
        elif arg.type == BaseType(BaseTy.Scalar):
            scalars.append(arg.name)
        else:
            raise SchemaError(fn.loc, f"ember_pointwise: argument {arg.name} has type {arg.type}; "
                                      "a pointwise op takes Tensor and Scalar arguments only")
    if not tensors:
        raise SchemaError(fn.loc, "ember_pointwise: the op needs at least one Tensor argument")
    return PointwiseOp(fn, tuple(tensors), tuple(scalars), defaults, DTYPE_CLASSES[fn.pointwise.dtypes])
