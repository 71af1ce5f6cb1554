"""torch.linalg: generated from the schema's `python_module: linalg` entries (loaded lazily)."""
from typing import TYPE_CHECKING

from torch._C import _LinAlgError as LinAlgError  # noqa: F401
from torch._C._namespace import lazy_functions

if TYPE_CHECKING:
    # Types only: the functions' stubs (torchgen/templates/stubs_functions.pyi.j2, build output).
    from torch._C._gen_linalg_functions import *  # noqa: F403

__getattr__, __dir__ = lazy_functions(globals(), "linalg")
