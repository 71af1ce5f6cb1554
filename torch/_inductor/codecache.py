"""The on-disk cache of compiled kernels: C source -> shared library, keyed by the hash of the source, the
compiler and its flags. A library is built once per machine (written under a temporary name and renamed,
so concurrent processes never load a half-written one) and loaded with ctypes. GPU kernels go through
c10.cuda's compiler and its cache."""
from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from typing import Any

from torch._inductor import config

__all__ = ["CompileError", "load_cuda_module", "load_library"]

_loaded: dict[str, Any] = {}
# Libraries this process built with the compiler (not found in the cache), for the tests of the cache.
builds = {"count": 0}


class CompileError(RuntimeError):
    """The C compiler is missing or rejected the generated source."""


def _include_dir() -> str:
    """Where vec_math.h lives: Ember's CPU kernels' directory."""
    import aten.native.cpu as cpu_kernels
    return os.path.dirname(os.path.abspath(cpu_kernels.__file__))


def _key(source: str, command: list[str]) -> str:
    digest = hashlib.sha256()
    for part in (source, " ".join(command), platform.machine(), _cpu_model()):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:40]


def _cpu_model() -> str:
    """The CPU's model line: the kernels are compiled with -march=native, for this CPU only."""
    try:
        with open("/proc/cpuinfo") as info:
            return next((line for line in info if line.startswith("model name")), "")
    except OSError:
        return platform.processor()


def load_library(source: str) -> Any:
    """The ctypes library compiled from source (from the cache when it is there)."""
    compiler = shutil.which(config.cc)
    if compiler is None:
        raise CompileError(f"torch.compile's inductor backend compiles C kernels at run time and needs a C compiler: "
                           f"{config.cc!r} was not found (set CC, or compile with backend='eager')")
    command = [compiler, *config.cflags, f"-I{_include_dir()}"]
    key = _key(source, command)
    if key in _loaded:
        return _loaded[key]
    directory = os.path.join(config.kernel_cache_dir(), key[:2])
    os.makedirs(directory, exist_ok=True)
    library = os.path.join(directory, f"{key}.so")
    if not os.path.exists(library):
        # this process's own source and library, renamed into place when built: processes compiling the same
        # kernel at once (the ranks of torchrun) never read a source another is writing
        fd, written = tempfile.mkstemp(suffix=".c", dir=directory)
        with os.fdopen(fd, "w") as handle:
            handle.write(source)
        os.chmod(written, 0o644)
        fd, partial = tempfile.mkstemp(suffix=".so", dir=directory)
        os.close(fd)
        try:
            done = subprocess.run([*command, "-o", partial, written, "-lm"], capture_output=True, text=True)
            os.replace(written, os.path.join(directory, f"{key}.c"))     # kept to read, as the errors name it
            if done.returncode != 0:
                stderr = done.stderr.replace(written, os.path.join(directory, f"{key}.c"))
                raise CompileError(f"compiling a generated kernel failed ({' '.join(command)}):\n{stderr}")
            os.replace(partial, library)
            builds["count"] += 1
        finally:
            for leftover in (written, partial):
                if os.path.exists(leftover):
                    os.unlink(leftover)
    _loaded[key] = ctypes.CDLL(library)
    return _loaded[key]


def load_cuda_module(source: str) -> Any:
    """The compiled module of a generated .cu source (PyCUDA's SourceModule, or the host emulator's), with
    the generated kernels' headers on the include path; c10.cuda caches the compiled code on disk by the
    source's hash."""
    found = _loaded.get(source)
    if found is None:
        from aten.native.cuda.runtime.compiler import module_from_text
        found = _loaded[source] = module_from_text(source)
    return found
