"""torch.backends.cpu: the vector code path Ember's CPU kernels take on this machine."""
from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """"AVX512" where the CPU has AVX-512 (F, BW, VL, DQ), "AVX2" where it has AVX2 and FMA, else "DEFAULT";
    ATEN_CPU_CAPABILITY=avx2 or =default asks for less, as in PyTorch."""
    from aten.native.cpu.nn_softmax import cpu_capability
    return {"avx512": "AVX512", "avx2": "AVX2"}.get(cpu_capability(), "DEFAULT")
