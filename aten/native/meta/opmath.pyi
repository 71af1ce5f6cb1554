# Type stub for the Cython module aten/native/meta/opmath.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any, Callable

def write_quietly(write: Callable[..., Any], target: Any, *args: Any) -> None: ...

class ComputeInOpmath:
    def __init__(self, kernel: Any, to_copy: Callable[..., Any], copy_: Callable[..., Any],
                 resize_: Callable[..., Any], label: str = "kernel", reduced: bool = True, float8: str = "refuse",
                 unsigned: str = "refuse", bitwise_xor: Callable[..., Any] | None = None,
                 view_dtype: Callable[..., Any] | None = None, accumulate_at: int = -1,
                 mixed_at: tuple[int, ...] = (), mixed_names: tuple[str, ...] = (),
                 float_results: tuple[int, ...] = ()) -> None: ...
    @property
    def __wrapped__(self) -> Callable[..., Any]: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
