"""What setup.py builds: run torchgen, then cythonize generated and handwritten modules.

Flags are explicit (-O3: gcc 12 does not vectorise these loops at Debian's default -O2;
-fwrapv: integer overflow wraps, as in PyTorch; -fno-math-errno: nothing reads errno, and with it
gcc keeps a branch in every sqrt, so no loop of them vectorises; OpenMP compiled *and* linked). All Cython
modules share one utility module, c10._cyutility (about -18% CPU and -46% .so size).
Cython's directives are set here, once, for every module (no source or template sets its own):
EMBER_CYTHON_DEBUG=1 turns bounds, wraparound and memoryview-initialisation checks back on in all
of them. Division stays C's (cdivision) in both builds: kernels implement PyTorch's integer
division and remainder themselves, so a debug build computes the same values.
EMBER_BUILD_JOBS=N cythonizes on N processes (default 2, this project's machines; a GPU box has
more cores).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HANDWRITTEN_DIRS = ("c10", "c10/cuda", "aten", "aten/native/meta", "aten/native/cpu", "aten/native/cuda/runtime",
                    "torch/_C", "torch/csrc/autograd", "torch/_dynamo")
CFLAGS = ["-O3", "-fopenmp", "-fwrapv", "-fno-math-errno", "-Wno-unused-function", "-Wno-unreachable-code"]
LDFLAGS = ["-fopenmp"]
SHARED_UTILITY = "c10._cyutility"


def directives() -> dict[str, object]:
    debug = os.environ.get("EMBER_CYTHON_DEBUG") == "1"
    return {"language_level": 3, "boundscheck": debug, "wraparound": debug, "initializedcheck": debug,
            "cdivision": True, "embedsignature": True}


def write_build_info(path: Path) -> None:
    """What torch.version.git_version and torch.__config__.show() report: the commit, the compiler
    and flags, and the versions of the build tools, recorded as the build runs."""
    import subprocess
    import sysconfig

    import Cython
    import numpy

    def output(*command: str) -> str:
        try:
            return subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "Unknown"

    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    info = {"GIT_VERSION": output("git", "rev-parse", "HEAD"),
            "COMPILER": output(compiler, "--version").splitlines()[0] if output(compiler, "--version") else "Unknown",
            "CFLAGS": " ".join(CFLAGS), "CYTHON_VERSION": Cython.__version__, "NUMPY_VERSION": numpy.__version__,
            "BUILD_TYPE": "Debug" if directives()["boundscheck"] else "Release"}
    text = "# Written by tools/setup_hook.py as the build runs (a _gen_ module: never committed).\n" + \
        "".join(f"{key} = {value!r}\n" for key, value in info.items())
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def extensions() -> list:  # type: ignore[type-arg]
    """Run torchgen and return the cythonized Extension list (run from the repo root)."""
    from Cython.Build import cythonize
    from setuptools import Extension

    sys.path.insert(0, str(ROOT))
    from torchgen.gen import GEN_DIR, generate

    result = generate(ROOT)
    write_build_info(ROOT / "torch" / "_gen_build_info.py")
    (ROOT / GEN_DIR / "c10").mkdir(parents=True, exist_ok=True)   # cythonize writes _cyutility.c there
    exts = [Extension(SHARED_UTILITY, [f"{GEN_DIR}/c10/_cyutility.c"], extra_compile_args=CFLAGS,
                      extra_link_args=LDFLAGS)]
    for directory in HANDWRITTEN_DIRS:
        for pyx in sorted((ROOT / directory).glob("*.pyx")):
            module = ".".join(pyx.relative_to(ROOT).with_suffix("").parts)
            exts.append(Extension(module, [str(pyx.relative_to(ROOT))], include_dirs=["."], extra_compile_args=CFLAGS,
                                  extra_link_args=LDFLAGS))
    # include_dirs: C headers are named from the root (c10/bfloat16.h, aten/native/cpu/vec_math.h)
    for module, source in result.extensions:
        exts.append(Extension(module, [source], include_dirs=["."], extra_compile_args=CFLAGS,
                              extra_link_args=LDFLAGS))
    return cythonize(exts, include_path=[".", GEN_DIR], compiler_directives=directives(), nthreads=int(os.environ.get("EMBER_BUILD_JOBS", "2")),
                     quiet=True, shared_utility_qualified_name=SHARED_UTILITY)
