"""The dtypes kernels are generated for, with their C types per target: the rows of c10's one dtype
table (c10/dtype_table.py), read as data (torchgen imports nothing of c10)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

TABLE_PATH = Path(__file__).resolve().parents[1] / "c10" / "dtype_table.py"


def read_table(path: Path = TABLE_PATH) -> dict[str, Any]:
    """The literal assignments of c10/dtype_table.py (DTYPES, PROMOTION), without importing it."""
    tree = ast.parse(path.read_text(), str(path))
    return {target.id: ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)}


@dataclass(frozen=True, slots=True)
class DType:
    name: str          # torch name: float32
    scalar_type: int   # c10 ScalarType number
    ctype: str         # Cython/C type of one element
    cuda_type: str     # CUDA C type of one element
    kind: str          # "b" bool, "i" signed integral, "u" unsigned integral, "f" floating, "c" complex
    opmath: str = ""   # the dtype loops compute in (PyTorch's opmath_type), when not this one
    load: str = ""     # C function converting one element to its opmath type ("": a C cast does)
    store: str = ""    # C function rounding an opmath value into one element ("": a C cast does)
    cuda_load: str = ""    # the same two for cuda_type in CUDA C
    cuda_store: str = ""
    arithmetic: bool = True    # False: a storage type (float8), converted and moved but never computed in
    barebones: bool = False    # uint16/32/64: loops only for the ops that opt in (PyTorch's barebones types)

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def component(self) -> DType:
        """The dtype of a complex dtype's real and imaginary parts (PyTorch's toRealValueType):
        float32 for complex64, float64 for complex128; a real dtype is its own."""
        if not self.is_complex:
            return self
        name = {"complex64": "float32", "complex128": "float64"}[self.name]
        return next(d for d in DTYPES if d.name == name)

    @property
    def compute(self) -> DType:
        """The dtype a loop over this one computes in: float16 loads widen to float32 and the
        result rounds once on the store, as PyTorch's CPU kernels do."""
        return next(d for d in DTYPES if d.name == self.opmath) if self.opmath else self


def _dtypes() -> tuple[DType, ...]:
    rows = read_table()["DTYPES"]
    # bool first: the order kernels and their tables are generated in
    rows = sorted(rows, key=lambda row: (row["kind"] != "b", row["scalar_type"]))
    return tuple(DType(row["name"], row["scalar_type"], row["ctype"], row["cuda_type"] or "", row["kind"],
                       row["opmath"] or "",
                       row["load"] or "", row["store"] or "", row["cuda_load"] or "", row["cuda_store"] or "",
                       row["arithmetic"], row["barebones"]) for row in rows)


DTYPES: tuple[DType, ...] = _dtypes()

#: The dtype sets an `ember_pointwise.dtypes` value names (PyTorch's AT_DISPATCH groups).
# not the storage types (float8) nor the barebones unsigned ones, which ops opt into (BAREBONES_UNSIGNED)
_COMPUTED: tuple[DType, ...] = tuple(d for d in DTYPES if d.arithmetic and not d.barebones)
BAREBONES_UNSIGNED: tuple[DType, ...] = tuple(d for d in DTYPES if d.barebones)
# Storage types in the table (not arithmetic), computed in by the CPU and CUDA loops of the ops whose
# entry gives a `complex` formula.
COMPLEX: tuple[DType, ...] = tuple(d for d in DTYPES if d.is_complex)
# The float8 storage types as loops of the few ops PyTorch gives them: computing in float32 between
# their table's load and store, as PyTorch's opmath does (abs, comparisons), or moving their bytes
# as they are, NaN payloads included (where).
_FLOAT8 = tuple(d for d in DTYPES if d.is_floating and not d.arithmetic)
FLOAT8_LOOPS: dict[str, tuple[DType, ...]] = {
    "float32": tuple(replace(d, opmath="float32") for d in _FLOAT8),
    "bits": tuple(replace(d, ctype="uint8_t", cuda_type="unsigned char", load="", store="", cuda_load="",
                          cuda_store="") for d in _FLOAT8),
}
DTYPE_CLASSES: dict[str, tuple[DType, ...]] = {
    "AllAndBool": _COMPUTED,
    "All": tuple(d for d in _COMPUTED if not d.is_bool),
    "Floating": tuple(d for d in _COMPUTED if d.is_floating),
    "Integral": tuple(d for d in _COMPUTED if d.kind in "iu"),
    "IntegralAndBool": tuple(d for d in _COMPUTED if d.kind in "iub"),
}

