# Partial type stub for the Cython module aten/native/meta/views.pyx (mypy cannot read .pyx): its
# Python-level functions are untyped kernels' helpers, reached as attributes of the module.
from typing import Any

def __getattr__(name: str) -> Any: ...
