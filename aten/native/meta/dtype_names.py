"""The C++ type names PyTorch's error messages give dtypes (c10's TypeMeta names): "to - 1 is out of
bounds for unsigned char", "input tensor dtype long int and output tensor dtype double". They live
in c10's dtype table; this is the name every backend's messages use, keyed by canonical dtype name."""
from __future__ import annotations

from c10.scalar_type import CPP_TYPE_NAMES

__all__ = ["CPP_TYPE_NAMES"]
