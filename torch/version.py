"""torch.version: what this build is, with PyTorch's field names."""
from torch import __version__

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "xpu"]

debug = False
# Ember compiles no CUDA code when it is built (its GPU kernels are compiled at run time through PyCUDA),
# so like a CPU build of PyTorch it reports no CUDA version.
cuda = None
git_version = "Unknown"
hip = None
xpu = None
