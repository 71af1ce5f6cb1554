"""In-place views (t_, transpose_, squeeze_, ...): compute the view and move self onto its geometry
(views.restride_): metadata only, as PyTorch, so the version counter does not change."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta import views as _v

_op = find_operator
_transpose = _op("transpose.int")
_t = _op("t")
_squeeze = _op("squeeze")
_squeeze_dim = _op("squeeze.dim")
_squeeze_dims = _op("squeeze.dims")
_unsqueeze = _op("unsqueeze")
_as_strided = _op("as_strided")
_transpose_ = _op("transpose_")


def swapaxes_via_transpose(self: Any, axis0: int, axis1: int) -> Any:
    return _transpose_(self, axis0, axis1)


def swapdims_via_transpose(self: Any, dim0: int, dim1: int) -> Any:
    return _transpose_(self, dim0, dim1)


def transpose_(self: Any, dim0: int, dim1: int) -> Any:
    return _v.restride_(self, _transpose(self, dim0, dim1))


def t_(self: Any) -> Any:
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _v.restride_(self, _t(self))


def squeeze_(self: Any, dim: Any = None) -> Any:
    """squeeze_, squeeze_.dim and squeeze_.dims."""
    if dim is None:
        view = _squeeze(self)
    elif isinstance(dim, (list, tuple)):
        view = _squeeze_dims(self, dim)
    else:
        view = _squeeze_dim(self, dim)
    return _v.restride_(self, view)


def unsqueeze_(self: Any, dim: int) -> Any:
    return _v.restride_(self, _unsqueeze(self, dim))


def as_strided__symint(self: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    return _v.restride_(self, _as_strided(self, size, stride, storage_offset))
