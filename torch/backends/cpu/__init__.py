"""torch.backends.cpu: the vector code path Ember's CPU kernels take on this machine."""
from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """"AVX2" where the CPU has AVX2 and FMA, else "DEFAULT"; ATEN_CPU_CAPABILITY=default forces the
    latter, as in PyTorch. Ember has no AVX-512 kernels, so it never answers "AVX512"."""
    from aten.native.cpu.nn_softmax import cpu_capability
    return "AVX2" if cpu_capability() == "avx2" else "DEFAULT"
