"""torch.testing: comparing results (assert_close) and making test inputs (make_tensor), as in PyTorch."""
from torch.testing._comparison import assert_allclose, assert_close
from torch.testing._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
