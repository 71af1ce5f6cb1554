from typing import Any, Callable

def contiguous_launch(source: str, cname: str, tensors: tuple[Any, ...], scalars: tuple[Any, ...], compute: Any,
                      out_dtype: Any, into: Any, kernel_for: Callable[..., tuple[Any, Any]],
                      scalar_for: Callable[[Any, Any], Any], meta_for: Callable[[list[int]], Any]) -> Any: ...
