# Type stub for the Cython module aten/native/meta/promotion.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

from c10.scalar_type import dtype

def result_type_of(*tensors: Any) -> dtype: ...
