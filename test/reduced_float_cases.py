"""The check test_float16.py and test_bfloat16.py share: every op of the operator database, run on
a reduced floating dtype, gives the float32 op's result on the same (exactly widened) values,
rounded to that dtype once, as PyTorch's opmath computes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import torch
from opinfo import all_ops
from opinfo.core import to_torch

RANDOM_OPS = {"bernoulli", "multinomial", "normal", "rand_like", "randn_like", "randint_like", "dropout",
              "native_dropout", "randperm"}
# Their results differ from the float32 ones by design: limits that depend on the dtype.
DTYPE_DEPENDENT = {"nan_to_num"}
# PyTorch refuses float16 and bfloat16 for them ("input tensor must be either float or double dtype"; LAPACK
# has no such routines: "Low precision dtypes not supported", matrix_power inverting for n < 0).
NO_REDUCED_FLOATS = {"quantile", "nanquantile", "linalg.inv", "inverse", "linalg.det", "det", "logdet", "linalg.solve",
                     "linalg.solve_triangular", "linalg.cholesky", "linalg.eigvalsh", "linalg.svdvals", "linalg.pinv",
                     "linalg.matrix_power", "linalg.householder_product", "orgqr"} | {
    # PyTorch's CPU FFTs: "Unsupported dtype Half" (half precision FFTs are CUDA's only)
    f"fft.{kind}{suffix}" for kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft") for suffix in ("", "2", "n")}
OPS = [op for op in all_ops()
       if torch.float32 in op.dtypes and op.name not in RANDOM_OPS | NO_REDUCED_FLOATS and op.id not in DTYPE_DEPENDENT]


@dataclass(frozen=True)
class ReducedFloat:
    dtype: Any
    round_values: Callable[[np.ndarray], np.ndarray]    # float32 values rounded to dtype, as float32
    as_tensor: Callable[[np.ndarray], Any]               # rounded float32 values as a tensor of dtype
    tolerances: tuple[float, float]                      # (rtol, atol) of one rounding
    several_roundings: frozenset[str]                    # composites that round between their steps
    several_tolerances: tuple[float, float]


def _as(value: Any, kind: str, r: ReducedFloat) -> Any:
    """float32 arrays rounded to the dtype: as its tensors ("reduced") or float32 arrays of the same
    values ("float"); a float32 dtype argument becomes the dtype for the reduced run."""
    if value is torch.float32 and kind == "reduced":
        return r.dtype
    if isinstance(value, dict):
        return {k: _as(v, kind, r) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        rounded = r.round_values(value)
        return r.as_tensor(rounded) if kind == "reduced" else rounded
    if isinstance(value, (list, tuple)):
        return type(value)(_as(v, kind, r) for v in value)
    return value


def _has_float32(value: Any) -> bool:
    if value is torch.float32 or (isinstance(value, np.ndarray) and value.dtype == np.float32):
        return True
    if isinstance(value, dict):
        return any(_has_float32(v) for v in value.values())
    return isinstance(value, (list, tuple)) and any(_has_float32(v) for v in value)


def _results(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def check_op_is_the_float32_op_rounded_once(op: Any, r: ReducedFloat) -> None:
    ran = 0
    rtol, atol = r.several_tolerances if op.id in r.several_roundings else r.tolerances
    for sample in op.sample_inputs(torch.float32, np.random.default_rng(7)):
        reduced_in = _has_float32(sample.args) or _has_float32(sample.kwargs)
        try:
            expected = op.function()(*to_torch(_as(sample.args, "float", r)),
                                     **to_torch(_as(sample.kwargs, "float", r)))
        except (RuntimeError, ValueError, IndexError, TypeError):
            continue   # an error case of the float32 op; its reduced twin is not this check's business
        got = op.function()(*to_torch(_as(sample.args, "reduced", r)), **to_torch(_as(sample.kwargs, "reduced", r)))
        for g, e in zip(_results(got), _results(expected)):
            if not isinstance(e, torch.Tensor):
                assert g == e
                continue
            assert isinstance(g, torch.Tensor)
            assert tuple(g.shape) == tuple(e.shape)
            if e.dtype == torch.float32 and reduced_in:
                assert g.dtype == r.dtype, f"{op.id}: a {r.dtype} input gives {g.dtype}"
                np.testing.assert_allclose(g.float().numpy(), r.round_values(e.numpy()), rtol=rtol, atol=atol,
                                           equal_nan=True, err_msg=op.id)
            else:
                assert g.dtype == e.dtype
                np.testing.assert_array_equal(g.numpy(), e.numpy(), err_msg=op.id)
        ran += 1
    if ran == 0:
        pytest.skip("no float32 sample runs without an error")
