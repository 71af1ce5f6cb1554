"""The dtypes kernels are generated for, with their C types per target.

This mirrors c10/scalar_type.pyx (torchgen may not import c10); test/torchgen checks that the
two tables agree.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DType:
    name: str          # torch name: float32
    scalar_type: int   # c10 ScalarType number
    ctype: str         # Cython/C type of one element
    cuda_type: str     # CUDA C type of one element
    kind: str          # "b" bool, "i" integral, "f" floating
    opmath: str = ""   # the dtype loops compute in (PyTorch's opmath_type), when not this one

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def compute(self) -> DType:
        """The dtype a loop over this one computes in: float16 loads widen to float32 and the
        result rounds once on the store, as PyTorch's CPU kernels do."""
        return next(d for d in DTYPES if d.name == self.opmath) if self.opmath else self


DTYPES: tuple[DType, ...] = (
    DType("bool", 11, "uint8_t", "unsigned char", "b"),
    DType("uint8", 0, "uint8_t", "unsigned char", "i"),
    DType("int8", 1, "int8_t", "signed char", "i"),
    DType("int16", 2, "int16_t", "short", "i"),
    DType("int32", 3, "int32_t", "int", "i"),
    DType("int64", 4, "int64_t", "long long", "i"),
    # `half` is C's _Float16 (c10/half.pxd); CUDA's __half comes from cuda_fp16.h.
    DType("float16", 5, "half", "__half", "f", opmath="float32"),
    DType("float32", 6, "float", "float", "f"),
    DType("float64", 7, "double", "double", "f"),
)

#: The dtype sets an `ember_pointwise.dtypes` value names (PyTorch's AT_DISPATCH groups).
DTYPE_CLASSES: dict[str, tuple[DType, ...]] = {
    "AllAndBool": DTYPES,
    "All": tuple(d for d in DTYPES if not d.is_bool),
    "Floating": tuple(d for d in DTYPES if d.is_floating),
    "Integral": tuple(d for d in DTYPES if d.kind == "i"),
    "IntegralAndBool": tuple(d for d in DTYPES if d.kind in "ib"),
}

NUM_SCALAR_TYPES = 12
