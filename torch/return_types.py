"""torch.return_types: the named tuples of ops with several named results (torch.return_types.max
...), made by the generated bindings in torch._C._return_types."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch._C import _return_types

if TYPE_CHECKING:
    # Types only: the named tuples' stubs (torchgen/templates/stubs_return_types.pyi.j2, build output).
    from torch._C._gen_return_types import *  # noqa: F403


def __getattr__(name: str) -> Any:
    try:
        return getattr(_return_types, name)
    except AttributeError:
        raise AttributeError(f"module 'torch.return_types' has no attribute '{name}'") from None
