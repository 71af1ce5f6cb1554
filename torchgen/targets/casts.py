"""Target: the CPU dtype-conversion loops the loop engine uses to promote operands."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DTYPES, DType


@dataclass(frozen=True)
class Cast:
    """One conversion loop of cpu_cast.pyx.j2 (its code lives in the template): src values become
    dst ones as 0/1 ("bool"), through float ("via_float": float16 converts through float both
    ways, as c10::Half does: double -> float -> half) or by a plain C cast ("plain")."""
    name: str
    src: str
    dst: str
    src_st: int
    dst_st: int
    conversion: str


def _conversion(src: DType, dst: DType) -> str:
    if dst.is_bool:
        return "bool"
    if src.compute is not src or dst.compute is not dst:
        return "via_float"
    return "plain"


def cast_context() -> tuple[Cast, ...]:
    return tuple(Cast(name=f"cast_{src.name}_to_{dst.name}", src=src.ctype, dst=dst.ctype, src_st=src.scalar_type,
                      dst_st=dst.scalar_type, conversion=_conversion(src, dst))
                 for src in DTYPES for dst in DTYPES)
