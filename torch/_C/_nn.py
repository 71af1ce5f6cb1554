"""torch._C._nn: generated from the schema's `python_module: nn` entries (loaded lazily);
torch.nn.functional builds on these."""
from torch._C._namespace import lazy_functions

__getattr__, __dir__ = lazy_functions(globals(), "nn")
