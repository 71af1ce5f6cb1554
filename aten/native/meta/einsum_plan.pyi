# Type stub for the Cython module aten/native/meta/einsum_plan.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

def einsum_plan(equation: str, tensors: tuple[Any, ...]) -> tuple[Any, Any, Any, Any]: ...
