"""Target: the CPU dtype-conversion loops the loop engine uses to promote operands."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DTYPES, DType


@dataclass(frozen=True)
class Cast:
    """One conversion loop of cpu_cast.pyx.j2 (Cython expressions for each read)."""
    name: str
    src: str
    dst: str
    src_st: int
    dst_st: int
    contiguous: str
    first: str
    strided: str


def _convert(value: str, src: DType, dst: DType) -> str:
    if dst.is_bool:
        return f"<uint8_t>({value} != 0)"
    if src.compute is not src or dst.compute is not dst:
        # float16 converts through float both ways, as c10::Half does (double -> float -> half).
        return f"<{dst.ctype}>(<float>{value})"
    return f"<{dst.ctype}>{value}"


def cast_context() -> tuple[Cast, ...]:
    casts = []
    for src in DTYPES:
        for dst in DTYPES:
            strided = f"(<const {src.ctype}*>(data[1] + i * steps[1]))[0]"
            casts.append(Cast(
                name=f"cast_{src.name}_to_{dst.name}", src=src.ctype, dst=dst.ctype,
                src_st=src.scalar_type, dst_st=dst.scalar_type,
                contiguous=_convert("inp[i]", src, dst), first=_convert("inp[0]", src, dst),
                strided=_convert(strided, src, dst)))
    return tuple(casts)
