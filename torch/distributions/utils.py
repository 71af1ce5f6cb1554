"""torch.distributions.utils: the helpers PyTorch exposes under this public name (broadcasting
parameters, probs <-> logits, lazy_property, tril packing) plus the private ones the
distributions share (_standard_normal, _sum_rightmost)."""
from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from functools import update_wrapper
from typing import Any, Final, Generic, TypeVar, overload

import torch
from torch import Tensor

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant: Final[float] = 0.57721566490153286060  # Euler-Mascheroni constant

ShapeLike = Sequence[int]


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Number)


def broadcast_all(*values: Tensor | float) -> tuple[Tensor, ...]:
    """Broadcast tensors and Python numbers together; numbers take the first tensor's dtype and
    device (the default dtype when there is no tensor)."""
    if not all(isinstance(v, Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options: dict[str, Any] = {"dtype": torch.get_default_dtype()}
        for value in values:
            if isinstance(value, Tensor):
                options = {"dtype": value.dtype, "device": value.device}
                break
        values = tuple(v if isinstance(v, Tensor) else torch.tensor(v, **options) for v in values)
    return tuple(torch.broadcast_tensors(*values))


def _standard_normal(shape: ShapeLike, dtype: torch.dtype, device: torch.device) -> Tensor:
    # empty().normal_() draws exactly what PyTorch draws for the same seed
    return torch.empty(tuple(shape), dtype=dtype, device=device).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the dim rightmost dims of value."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    if is_binary:
        return torch.sigmoid(logits)
    return torch.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Keep probabilities off 0 and 1 by one machine epsilon so their logs stay finite."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(clamped) - torch.log1p(-clamped)
    return torch.log(clamped)


T = TypeVar("T", contravariant=True)
R = TypeVar("R", covariant=True)


class lazy_property(Generic[T, R]):
    """A property computed on first access and then stored on the instance (so an instance holds
    either probs or logits and derives the other only when asked)."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped: Callable[[T], R] = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> _lazy_property_and_property[T, R]: ...

    @overload
    def __get__(self, instance: T, obj_type: Any = None) -> R: ...

    def __get__(self, instance: T | None, obj_type: Any = None) -> R | _lazy_property_and_property[T, R]:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        # enable_grad: a parameter derived inside no_grad (e.g. in sample()) must still carry history
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property[T, R], property):
    """What a lazy_property looks like on the class: a property too, for introspection tools."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int, device: torch.device) -> Tensor:
    arange = torch.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (below diagonal diag) of mat, row by row, as a vector."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of tril_matrix_to_vec: a square matrix, zero above diagonal diag."""
    # n solves n * (n + 1) / 2 + diag-dependent offset = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > torch.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    size = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (size, size))
    mat[..., _tril_mask(size, diag, vec.device)] = vec
    return mat
