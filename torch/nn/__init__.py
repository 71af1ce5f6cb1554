"""torch.nn: modules, parameters, functional, init and utils (PyTorch's API).

Loaded on first access of `torch.nn` (torch/__init__.py's _SUBMODULES)."""
from torch.nn import functional, init, utils
from torch.nn.modules import *  # noqa: F403
from torch.nn.modules import __all__ as _modules_all
from torch.nn.parallel import DataParallel
from torch.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from torch.nn import parallel

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "DataParallel", "functional",
           "init", "parallel", "utils", *_modules_all]
