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
# A CPU kernel that starts from an mm or addmm result runs inside the product (torch._inductor.epilogues).
epilogue_fusion = True
# Print nothing extra; TORCH_LOGS=output_code prints each graph's generated code.
debug = False
# Accepted for PyTorch's programs (with PyTorch's defaults; gpt-fast sets triton.unique_kernel_names, nanoGPT-like
# scripts coordinate_descent_tuning); Ember's compiler has no autotuning, Triton or CUDA graphs yet, so these do
# not change what it generates.
max_autotune = False
max_autotune_gemm = False
max_autotune_pointwise = False
coordinate_descent_tuning = False
freezing = False
fx_graph_cache = True
compile_threads = 1
shape_padding = True
benchmark_kernel = False
aggressive_fusion = False
layout_optimization = True
allow_buffer_reuse = True
size_asserts = True
cpp_wrapper = False
fallback_random = False
split_reductions = True
unroll_reductions_threshold = 8


class triton:  # noqa: N801 (PyTorch's name: torch._inductor.config.triton.cudagraphs)
    cudagraphs = False
    cudagraph_trees = True
    unique_kernel_names = True
    autotune_pointwise = True
    autotune_cublasLt = True
    cudagraph_skip_dynamic_graphs = False
    max_tiles: int | None = None
    descriptive_names = "original_aten"
    use_block_ptr = False
    cooperative_reductions = False
    multi_kernel = 0


class cpp:  # noqa: N801
    threads = -1
    simdlen: int | None = None
    min_chunk_size = 512
    dynamic_threads = False
    enable_kernel_profile = False
    weight_prepack = True
    vec_isa_ok: bool | None = None
    enable_unsafe_math_opt_flag = False
    fallback_scatter_reduce_sum = True


class trace:  # noqa: N801
    enabled = False
    debug_log = False
    info_log = False
    fx_graph = True
    ir_pre_fusion = True
    output_code = True
    graph_diagram = False
    compile_profile = False
    upload_tar = None


_OPTIONS = ("parallel_grain", "cc", "cflags", "cache_dir", "debug", "max_autotune", "max_autotune_gemm",
            "max_autotune_pointwise", "coordinate_descent_tuning", "epilogue_fusion", "freezing", "fx_graph_cache",
            "compile_threads", "shape_padding", "benchmark_kernel", "aggressive_fusion", "layout_optimization",
            "allow_buffer_reuse", "size_asserts", "cpp_wrapper", "fallback_random", "split_reductions",
            "unroll_reductions_threshold",
            *(f"{space.__name__}.{name}" for space in (triton, cpp, trace) for name in vars(space)
              if not name.startswith("_")))


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
