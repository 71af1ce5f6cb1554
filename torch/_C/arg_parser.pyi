# Type stub for the Cython module torch/_C/arg_parser.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

class Param:
    name: str
    type: int
    kwonly: bool
    has_default: bool
    default: Any
    allow_numbers: bool
    def __init__(self, name: str, type: int, kwonly: bool, has_default: bool, default: Any,
                 allow_numbers: bool) -> None: ...

class Signature:
    name: str
    display: str
    def __init__(self, name: str, params: list[Param]) -> None: ...

class ArgParser:
    name: str
    def __init__(self, name: str, signatures: list[Signature]) -> None: ...
    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, list[Any]]: ...

def set_default_device(device: Any) -> None: ...
def get_default_device() -> Any: ...
