"""OpInfo and SampleInput, and the helpers the runner uses to call an op and compare it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

import torch
from dtype_cases import ALL_DTYPES, NUMPY_OF, TORCH_OF

FLOATING = (torch.float32, torch.float64)
INTEGRAL = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
ALL_AND_BOOL = tuple(ALL_DTYPES)
ALL = tuple(d for d in ALL_DTYPES if d is not torch.bool)


@dataclass
class SampleInput:
    """One call: numpy arrays among args/kwargs become tensors (the first arg is `input`)."""
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    name: str = ""


@dataclass
class OpInfo:
    """An op's test entry.

    name          torch.<name> (dots reach submodules: "linalg.vector_norm")
    ref           NumPy reference: called with the sample's args and kwargs (arrays as arrays)
    sample_inputs (dtype, rng) -> samples; arrays must already have dtype's numpy twin
    dtypes        the dtypes to run
    method        Tensor.<name> exists (called as args[0].<name>(*args[1:]))
    inplace       name of the in-place method (Tensor.<inplace>), checked on samples whose
                  result keeps the input's shape and dtype
    supports_out  torch.<name>(..., out=) exists
    variant       a distinct id when one op has several entries ("div_floor")
    tol           dtype -> (rtol, atol); defaults by dtype below
    """
    name: str
    ref: Callable[..., Any]
    sample_inputs: Callable[[torch.dtype, np.random.Generator], Iterable[SampleInput]]
    dtypes: tuple[torch.dtype, ...] = ALL_AND_BOOL
    method: bool = True
    inplace: str | None = None
    supports_out: bool = True
    variant: str = ""
    tol: dict[torch.dtype, tuple[float, float]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.variant or self.name

    def function(self) -> Callable[..., Any]:
        target: Any = torch
        for part in self.name.split("."):
            target = getattr(target, part)
        return target

    def tolerance(self, dtype: np.dtype) -> tuple[float, float]:
        torch_dtype = TORCH_OF.get(dtype)
        if torch_dtype in self.tol:
            return self.tol[torch_dtype]
        return {np.dtype(np.float32): (1.3e-6, 1e-5), np.dtype(np.float64): (1e-12, 1e-12),
                np.dtype(np.complex64): (2e-6, 1e-5), np.dtype(np.complex128): (1e-12, 1e-12)}.get(dtype, (0.0, 0.0))


def to_torch(value: Any, noncontiguous: bool = False) -> Any:
    """numpy arrays (also inside lists and tuples) as tensors; non-contiguous views on request."""
    if isinstance(value, np.ndarray):
        return torch.from_numpy(strided_copy(value) if noncontiguous else value.copy())
    if isinstance(value, list):
        return [to_torch(v, noncontiguous) for v in value]
    if isinstance(value, tuple):
        return tuple(to_torch(v, noncontiguous) for v in value)
    return value


def strided_copy(a: np.ndarray) -> np.ndarray:
    """The same values in a non-contiguous array: every dim of size > 1 steps over a gap."""
    if a.ndim == 0 or a.size == 0:
        return a.copy()
    big = np.zeros(tuple(2 * s for s in a.shape), dtype=a.dtype)
    view = big[tuple(slice(None, None, 2) for _ in a.shape)]
    view[...] = a
    return view


def to_numpy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy(v) for v in value) if not hasattr(value, "_fields") else \
            tuple(to_numpy(v) for v in value)
    return value


def assert_same(actual: Any, expected: Any, rtol: float, atol: float, where: str = "") -> None:
    """Tensors (or tuples of them) equal to NumPy results: same dtype, shape and values."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)), f"{where}: expected a sequence, got {type(actual).__name__}"
        assert len(actual) == len(expected), f"{where}: {len(actual)} results, expected {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, rtol, atol, f"{where}[{i}]")
        return
    expected = np.asarray(expected)
    assert isinstance(actual, torch.Tensor), f"{where}: expected a Tensor, got {type(actual).__name__}"
    assert actual.dtype == TORCH_OF[expected.dtype], f"{where}: dtype {actual.dtype}, expected {expected.dtype}"
    assert tuple(actual.shape) == expected.shape, f"{where}: shape {tuple(actual.shape)}, expected {expected.shape}"
    got = actual.numpy()
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=where)


__all__ = ["ALL", "ALL_AND_BOOL", "ALL_DTYPES", "FLOATING", "INTEGRAL", "NUMPY_OF", "OpInfo", "SampleInput",
           "assert_same", "strided_copy", "to_numpy", "to_torch"]
