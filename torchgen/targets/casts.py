"""Target: the dtype-conversion loops, the CPU ones the loop engine promotes operands with and the
CUDA kernels the device runtime converts with, from the same table and the same rules."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DTYPES, DType


@dataclass(frozen=True)
class Cast:
    """One conversion loop of cpu_cast.pyx.j2 (its code lives in the template): src values become
    dst ones as 0/1 ("bool"), through float ("via_float": the reduced floating dtypes convert
    through float both ways, as c10::Half and c10::BFloat16 do: double -> float -> half), by a
    plain C cast ("plain") or unchanged, bit for bit ("same": NaN payloads survive a copy). `load`
    and `store` name the C functions converting src to float and float to dst where a C cast
    cannot (bfloat16)."""
    name: str
    src: str
    dst: str
    src_st: int
    dst_st: int
    conversion: str
    load: str = ""
    store: str = ""
    component: str = ""     # the C type of a complex destination's parts ("float", "double")
    via_float: bool = False     # a complex source's real part converts through float (to half, bfloat16, float8)
    via_int64: bool = False     # a floating value becomes uint8 through int64, as c10's static_cast_with_inter_type


def _conversion(src: DType, dst: DType) -> str:
    if src is dst:
        return "same"
    if src.is_complex and dst.is_complex:
        return "complex_to_complex"
    if src.is_complex:
        # c10: the imaginary part is dropped (copy_ warns), the real one converts as a real would
        return "complex_to_bool" if dst.is_bool else "complex_to_real"
    if dst.is_complex:
        return "real_to_complex"
    if dst.is_bool:
        return "bool"
    if src.compute is not src or dst.compute is not dst or src.load or dst.store:
        return "via_float"
    return "plain"


def _store(src: DType, dst: DType, cuda: bool = False) -> str:
    store = dst.cuda_store if cuda else dst.store
    # PyTorch converts float16 to bfloat16 element by element through c10::BFloat16's constructor,
    # which writes NaN as 0x7FC0; its vectorised float and double conversions write 0xFFFF.
    if src.name == "float16" and dst.name == "bfloat16":
        return store + "_scalar"
    return store


def _via_int64(src: DType, dst: DType) -> bool:
    """uint8 from a floating or complex value: c10 converts through int64, so a negative value wraps
    (-3.0 -> 253) on both devices; a plain C conversion is undefined there and saturates on a GPU."""
    return dst.name == "uint8" and (src.is_floating or src.is_complex)


def _component(d: DType, cuda: bool = False) -> str:
    if not d.is_complex:
        return ""
    return d.component.cuda_type if cuda else d.component.ctype


def cast_context() -> tuple[Cast, ...]:
    return tuple(Cast(name=f"cast_{src.name}_to_{dst.name}", src=src.ctype, dst=dst.ctype, src_st=src.scalar_type,
                      dst_st=dst.scalar_type, conversion=_conversion(src, dst), load=src.load,
                      store=_store(src, dst), component=_component(dst),
                      via_float=dst.compute is not dst or bool(dst.store), via_int64=_via_int64(src, dst))
                 for src in DTYPES for dst in DTYPES)


def _on_cuda(d: DType) -> bool:
    """Whether CUDA tensors of d exist (a CUDA type in the table)."""
    return bool(d.cuda_type)


@dataclass(frozen=True)
class Fill:
    """One fill kernel of cuda_cast.cu.j2: a contiguous array of `dst` set to one value, passed as
    `arg` (float for the dtypes stored through `store`, which PyCUDA cannot pack) and stored as
    c10 converts a Scalar (bfloat16's NaN as its constructor writes it, as the CPU's fill_); a
    complex value as its two parts, of type `component`."""
    name: str
    dst: str
    arg: str
    store: str
    component: str = ""


def cuda_fill_context() -> tuple[Fill, ...]:
    return tuple(Fill(name=f"fill_{d.name}", dst=d.cuda_type, arg="float" if d.cuda_store else d.cuda_type,
                      store=d.cuda_store + ("_scalar" if d.name == "bfloat16" else ""),
                      component=_component(d, cuda=True)) for d in DTYPES
                 if _on_cuda(d))


def cuda_cast_context() -> tuple[Cast, ...]:
    """The same conversions over the CUDA types (cuda_cast.cu.j2), converted by cuda_load/cuda_store."""
    return tuple(Cast(name=f"cast_{src.name}_to_{dst.name}", src=src.cuda_type, dst=dst.cuda_type,
                      src_st=src.scalar_type, dst_st=dst.scalar_type, conversion=_conversion(src, dst),
                      load=src.cuda_load, store=_store(src, dst, cuda=True), component=_component(dst, cuda=True),
                      via_float=dst.compute is not dst or bool(dst.cuda_store), via_int64=_via_int64(src, dst))
                 for src in DTYPES for dst in DTYPES if _on_cuda(src) and _on_cuda(dst))
