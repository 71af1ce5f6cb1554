"""torch.Size lives in torch/_C/_size.pyx (compiled); TensorImpl builds it for `shape`/`size()`."""
from __future__ import annotations

from c10.tensor_impl import set_size_type
from torch._C._size import Size

set_size_type(Size)

__all__ = ["Size"]
