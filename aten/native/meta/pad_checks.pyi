# Type stub for the Cython module aten/native/meta/pad_checks.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

def check_gather_pad(self: Any, padding: Any, reflect: bool, spatial: int) -> tuple[Any, ...]: ...
