"""The process-wide switches that PyTorch keeps in at::globalContext() and that kernels read:
deterministic algorithms (torch.use_deterministic_algorithms, with warn_only), and whether the
empty ops fill the memory they hand out while that mode is on
(torch.utils.deterministic.fill_uninitialized_memory).

Every CPU kernel of Ember is deterministic at any thread count. The kernels that are not
(CUDA accumulations with floating atomics, put_ with repeated indices) call alert_not_deterministic,
which raises PyTorch's error, or warns under warn_only, while the mode is on."""
from __future__ import annotations

import warnings

from aten.native.meta.errors import _user_stacklevel

_deterministic = False
_warn_only = False
_fill_memory = True
# Read by the empty kernels on every call: one attribute, true only while both switches are on.
filling = False


def set_deterministic_algorithms(mode: bool, warn_only: bool) -> None:
    global _deterministic, _warn_only
    _deterministic, _warn_only = bool(mode), bool(warn_only)
    _refresh()


def deterministic_algorithms() -> bool:
    return _deterministic


def deterministic_warn_only() -> bool:
    return _warn_only


def set_fill_uninitialized_memory(mode: bool) -> None:
    global _fill_memory
    _fill_memory = bool(mode)
    _refresh()


def fill_uninitialized_memory() -> bool:
    return _fill_memory


def _refresh() -> None:
    global filling
    filling = _deterministic and _fill_memory


def alert_not_deterministic(caller: str) -> None:
    """at::globalContext().alertNotDeterministic: PyTorch's error (or, under warn_only, its
    warning) for a kernel without a deterministic implementation; nothing while the mode is off."""
    if not _deterministic:
        return
    if _warn_only:
        warnings.warn(f"{caller} does not have a deterministic implementation, but you set "
                      "'torch.use_deterministic_algorithms(True, warn_only=True)'. You can file an issue at "
                      "https://github.com/pytorch/pytorch/issues to help us prioritize adding deterministic "
                      "support for this operation.", UserWarning, stacklevel=_user_stacklevel())
        return
    raise RuntimeError(f"{caller} does not have a deterministic implementation, but you set "
                       "'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this "
                       "operation, or you can use the 'warn_only=True' option, if that's acceptable for your "
                       "application. You can also file an issue at https://github.com/pytorch/pytorch/issues to "
                       "help us prioritize adding deterministic support for this operation.")
