# Type stub for the Cython module aten/native/meta/index_checks.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

def check_index_copy(self: Any, d: int, index: Any, source: Any) -> int: ...
