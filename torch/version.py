"""torch.version: what this build is, with PyTorch's field names."""
from __future__ import annotations

import importlib

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

# The PyTorch release whose behaviour Ember matches, and Ember's local label (pyproject.toml's version;
# a test keeps the two equal).
__version__ = "2.13.0+ember"
debug = False
# Ember compiles no CUDA code when it is built (its GPU kernels are compiled at run time through PyCUDA),
# so like a CPU build of PyTorch it reports no CUDA version.
cuda = None
hip = None
rocm = None
xpu = None


def _git_version() -> str:
    """The commit the build was made from (recorded by the build, tools/setup_hook.py)."""
    try:
        return str(importlib.import_module("torch._gen_build_info").GIT_VERSION)
    except ImportError:
        return "Unknown"


git_version = _git_version()
