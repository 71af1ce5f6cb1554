"""trapezoid / trapz: the trapezoidal rule along a dimension, written with other operators (as
upstream's CompositeImplicitAutograd kernels), so autograd sees the ops it is made of."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.views import wrap as wrap_dim

_slice = find_operator("slice.Tensor")
_select = find_operator("select.int")
_sum = find_operator("sum.dim_IntList")
_view = find_operator("view")
_zeros = find_operator("zeros")


def _empty_along(y: Any, dim: int) -> Any:
    """The result for no samples along dim: zeros of y's shape without dim."""
    shape = [s for i, s in enumerate(y.shape) if i != dim]
    return _zeros(shape, dtype=y.dtype, device=y.device)


def trapezoid_x(y: Any, x: Any, dim: int = -1) -> Any:
    d = wrap_dim(dim, y.dim())
    if y.shape[d] == 0:
        return _empty_along(y, d)
    if y.dtype.name == "bool" or x.dtype.name == "bool":
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        x = _view(x, [x.shape[0] if i == d else 1 for i in range(y.dim())])
    elif x.dim() < y.dim():
        x = _view(x, [1] * (y.dim() - x.dim()) + list(x.shape))
    dx = _slice(x, d, 1, None) - _slice(x, d, 0, -1)
    return _sum(dx * (_slice(y, d, 1, None) + _slice(y, d, 0, -1)), [d]) / 2.0


def trapezoid_dx(y: Any, dx: Any = 1, dim: int = -1) -> Any:
    d = wrap_dim(dim, y.dim())
    if y.shape[d] == 0:
        return _empty_along(y, d)
    if y.dtype.name == "bool":
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, (bool, complex)):
        raise RuntimeError("trapezoid: Currently, we only support dx as a real number.")
    return (_sum(y, [d]) - (_select(y, d, 0) + _select(y, d, -1)) * 0.5) * float(dx)


def trapz_x(y: Any, x: Any, dim: int = -1) -> Any:
    return trapezoid_x(y, x, dim)


def trapz_dx(y: Any, dx: float = 1, dim: int = -1) -> Any:
    return trapezoid_dx(y, dx, dim)
