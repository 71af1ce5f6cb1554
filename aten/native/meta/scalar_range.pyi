# Type stub for the Cython module aten/native/meta/scalar_range.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

from c10.scalar_type import dtype

def check_fits(value: Any, dt: dtype) -> None: ...
