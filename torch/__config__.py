"""torch.__config__: how this build was made and how it runs (PyTorch's show() and parallel_info()),
from what the build recorded (tools/setup_hook.py) and what the running process reports."""
from __future__ import annotations

import importlib
import os

import numpy as np

__all__ = ["show", "parallel_info"]


def _build_info() -> dict[str, str]:
    try:
        module = importlib.import_module("torch._gen_build_info")
    except ImportError:
        return {}
    return {name: str(value) for name, value in vars(module).items() if name.isupper()}


def _blas() -> str:
    """The BLAS NumPy links (the CPU GEMMs call it), as numpy.show_config reports it."""
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip()
    except (TypeError, KeyError, AttributeError):
        return "unknown"


def show() -> str:
    """A human-readable description of this build's configuration."""
    from torch import version
    from aten.native.cpu.nn_softmax import cpu_capability
    info = _build_info()
    lines = [f"Ember {version.__version__} (PyTorch 2.13's API) built with:",
             f"  - {info.get('COMPILER', 'an unrecorded C compiler')}",
             f"  - Cython {info.get('CYTHON_VERSION', 'unknown')}, NumPy {info.get('NUMPY_VERSION', np.__version__)}",
             "  - OpenMP (compiled and linked with -fopenmp)",
             f"  - BLAS through NumPy: {_blas()}",
             f"  - CPU capability usage: {cpu_capability().upper()}",
             "  - CUDA kernels compiled at run time through PyCUDA (none compiled at build time)",
             f"  - Build settings: BUILD_TYPE={info.get('BUILD_TYPE', 'unknown')}, "
             f"COMMIT_SHA={version.git_version}, CFLAGS={info.get('CFLAGS', 'unknown')}, "
             f"TORCH_VERSION={version.__version__}, USE_OPENMP=ON", ""]
    return "\n".join(lines)


def parallel_info() -> str:
    """The thread settings of this process, as PyTorch's parallel_info()."""
    from aten.native.cpu.loops import get_num_interop_threads, get_num_threads
    lines = ["ATen/Parallel:",
             f"\tat::get_num_threads() : {get_num_threads()}",
             f"\tat::get_num_interop_threads() : {get_num_interop_threads()}",
             "OpenMP (compiled with -fopenmp)",
             f"\tOMP_NUM_THREADS : {os.environ.get('OMP_NUM_THREADS', '[not set]')}",
             f"\tATEN_NUM_THREADS : {os.environ.get('ATEN_NUM_THREADS', '[not set]')}",
             "ATen parallel backend: OpenMP", ""]
    return "\n".join(lines)
