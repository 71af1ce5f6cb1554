# Type stub for the Cython module aten/native/meta/broadcast.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

def broadcast_shapes(*tensors: Any) -> tuple[int, ...]: ...
