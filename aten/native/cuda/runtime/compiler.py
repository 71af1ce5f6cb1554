"""The .cu sources compiled once per process (nvcc's results cached on disk by c10.cuda), their
kernels looked up once, and kept in PyCUDA's prepared form for the launches that pack their own
arguments. Sources are named relative to aten/native/cuda (generated `_gen_*.cu` beside the
launchers, handwritten ones under kernels/)."""
from __future__ import annotations

import os
import threading
from typing import Any

from c10 import cuda as c10_cuda

CUDA_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS_DIR = os.path.join(CUDA_DIR, "kernels")
# The repository root: kernels include the C headers the CPU loops share with them (c10/bfloat16.h)
ROOT_DIR = os.path.dirname(os.path.dirname(os.path.dirname(CUDA_DIR)))

_modules: dict[str, Any] = {}
_functions: dict[tuple[str, str], Any] = {}
_compiling = threading.RLock()      # one compile at a time: nvcc takes every core anyway


def compiled_module(source: str) -> Any:
    """The compiled module of a .cu file (compiled once per process, whichever threads ask at once)."""
    found = _modules.get(source)
    if found is None:
        with _compiling:
            found = _modules.get(source)
            if found is None:
                if not source.endswith(".cu"):
                    raise ValueError(f"CUDA sources are .cu files under {CUDA_DIR}, got {source!r}")
                with open(os.path.join(CUDA_DIR, source)) as f:
                    text = f.read()
                found = _modules[source] = c10_cuda.source_module(text, include_dirs=[KERNELS_DIR, ROOT_DIR])
    return found


def module_from_text(text: str) -> Any:
    """A module compiled from CUDA C++ text that is no file here (torch.compile's generated kernels), with the
    generated and handwritten kernels' headers on the include path; c10.cuda caches it on disk by its hash."""
    with _compiling:
        return c10_cuda.source_module(text, include_dirs=[CUDA_DIR, KERNELS_DIR, ROOT_DIR])


def kernel_function(source: str, name: str) -> Any:
    """A kernel of a compiled module, looked up in the module once per process."""
    found = _functions.get((source, name))
    if found is None:
        with _compiling:
            found = _functions.get((source, name))
            if found is None:
                found = _functions[(source, name)] = compiled_module(source).get_function(name)
    c10_cuda.lazy_init()                # this thread's context current before the launch
    return found


def prepared_kernel(source: str, name: str, arg_format: str) -> Any:
    """A kernel in PyCUDA's prepared form (arguments packed by one struct format, the launch's
    fast path); prepare() keeps the format on the function, so it is prepared once per process."""
    found = kernel_function(source, name)
    if getattr(found, "arg_format", None) is None:
        found.prepare(arg_format)
    return found


def launch_kernel(source: str, name: str, grid: tuple[int, ...], block: tuple[int, ...], *args: Any,
                  shared: int = 0) -> None:
    """Launch a kernel with numpy-typed arguments (np.int64, np.uintp, np.float64, ...), as PyCUDA's
    generic call takes them, through its prepared form: the struct format is the one that call
    would build (each argument's dtype character), read off the first launch, since a kernel's
    parameters never change; later launches skip inspecting every argument."""
    found = kernel_function(source, name)
    if getattr(found, "arg_format", None) is None:
        found.prepare("".join(a.dtype.char for a in args))
    found.prepared_call(grid, block, *args, shared_size=shared)
