"""torch._C._nn: generated from the schema's `python_module: nn` entries (loaded lazily);
torch.nn.functional builds on these."""
from typing import TYPE_CHECKING

from torch._C._namespace import lazy_functions

if TYPE_CHECKING:
    # Types only: the functions' stubs (torchgen/templates/stubs_functions.pyi.j2, build output).
    from torch._C._gen_nn_functions import *  # noqa: F403

__getattr__, __dir__ = lazy_functions(globals(), "nn")
