# Type stub for the Cython module torch/_C/_tensor_new.pyx: keep in step with it.
from typing import Any

def tensor_from_python(data: Any, dt: Any) -> Any: ...
