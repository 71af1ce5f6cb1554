"""torch.fft: generated from the schema's `python_module: fft` entries (loaded lazily)."""
from typing import TYPE_CHECKING

from torch._C._namespace import lazy_functions

if TYPE_CHECKING:
    # Types only: the functions' stubs (torchgen/templates/stubs_functions.pyi.j2, build output).
    from torch._C._gen_fft_functions import *  # noqa: F403

__getattr__, __dir__ = lazy_functions(globals(), "fft")
