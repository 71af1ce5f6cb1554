"""torch.linalg: generated from the schema's `python_module: linalg` entries (loaded lazily)."""
from torch._C._namespace import lazy_functions

__getattr__, __dir__ = lazy_functions(globals(), "linalg")
