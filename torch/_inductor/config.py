"""torch._inductor.config: the compiler's settings (torch.compile's options= sets them for one function)."""
from __future__ import annotations

import os
from typing import Any

# Elements a fused kernel handles before splitting its loop across threads (the eager loop engine's grain).
parallel_grain = 32768
# The C compiler and its flags; the kernels are compiled for the machine they run on.
cc = os.environ.get("CC", "gcc")
cflags = ("-O3", "-march=native", "-fPIC", "-shared", "-fopenmp", "-fno-math-errno", "-fno-trapping-math",
          "-ffp-contract=off")
# Where compiled kernels are kept, by their source's hash (PyTorch reads TORCHINDUCTOR_CACHE_DIR).
cache_dir: str | None = None
# Print nothing extra; TORCH_LOGS=output_code prints each graph's generated code.
debug = False
# Accepted for PyTorch's programs; Ember's compiler has no autotuning, epilogue fusion into matmuls or CUDA
# graphs yet, so these do not change what it generates.
max_autotune = False
epilogue_fusion = True
freezing = False
fx_graph_cache = True
compile_threads = 1

_OPTIONS = ("parallel_grain", "cc", "cflags", "cache_dir", "debug", "max_autotune", "epilogue_fusion", "freezing",
            "fx_graph_cache", "compile_threads", "triton.cudagraphs", "shape_padding", "trace.enabled",
            "trace.graph_diagram", "coordinate_descent_tuning", "max_autotune_gemm", "max_autotune_pointwise")


def check_options(options: dict[str, Any]) -> None:
    """PyTorch's error for an option the compiler does not know."""
    for name in options:
        if name not in _OPTIONS:
            raise RuntimeError(f"Unexpected optimization option {name}, known options are {list(_OPTIONS)}")


def kernel_cache_dir() -> str:
    """The directory compiled kernels are cached in: TORCHINDUCTOR_CACHE_DIR, else under EMBER_KERNEL_CACHE
    (where the CUDA kernels are cached too), else /tmp/emberinductor_<user>."""
    if cache_dir:
        return cache_dir
    explicit = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if explicit:
        return explicit
    kernels = os.environ.get("EMBER_KERNEL_CACHE")
    if kernels:
        return os.path.join(kernels, "inductor")
    user = os.environ.get("USER") or str(os.getuid())
    return os.path.join("/tmp", f"emberinductor_{user}")
