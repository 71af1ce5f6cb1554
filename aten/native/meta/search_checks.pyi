# Type stub for the Cython module aten/native/meta/search_checks.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

def check_searchsorted(bd: Any, self: Any, right: Any, side: Any, sorter: Any) -> bool: ...
