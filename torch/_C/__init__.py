"""torch._C: the generated bindings (_gen_<op> modules) and the argument parser they use.

_gen_index maps every torch.<name> function and Tensor.<name> method to its module.
TensorBase is the extension type under torch.Tensor (c10's TensorImpl, as PyTorch's
torch._C.TensorBase is its C++ tensor's Python type).
"""

from c10.tensor_impl import TensorImpl as TensorBase  # noqa: F401
from torch._C.arg_parser import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401
                                 _disabled_torch_function_impl)
from torch._C.arg_parser import is_torch_function_enabled as _is_torch_function_enabled  # noqa: F401
from torch._C.arg_parser import is_torch_function_mode_enabled as _is_torch_function_mode_enabled  # noqa: F401
from torch._C import _nn  # noqa: E402,F401  (torch._C._nn: lazy, loads nothing until used)
from aten.native.meta.linalg_errors import _LinAlgError as _LinAlgError  # noqa: E402  (torch.linalg.LinAlgError)

_TensorMeta = type(TensorBase)      # the metaclass of Tensor, as PyTorch's torch._C._TensorMeta


def _set_grad_enabled(enabled: bool) -> None:
    """Switch grad mode for this thread (PyTorch's torch._C._set_grad_enabled): what captured graphs call
    where the program entered or left no_grad."""
    from c10 import grad_mode
    grad_mode.set_grad_enabled(bool(enabled))


class ScriptModule:
    """torch.ScriptModule: a TorchScript runtime's module object (apart from torch.jit.ScriptModule);
    Ember has no TorchScript runtime and makes none, so no object is one."""

    __module__ = "torch"


def _log_api_usage_once(event: str) -> None:
    """PyTorch's API-usage log: silent unless PYTORCH_API_USAGE_STDERR is set, then each event is
    printed to stderr once, as PyTorch's default logger does."""
    import os
    import sys
    if os.environ.get("PYTORCH_API_USAGE_STDERR") and event not in _logged_api_usage:
        _logged_api_usage.add(event)
        sys.stderr.write(f"PYTORCH_API_USAGE {event}\n")


_logged_api_usage: set[str] = set()
