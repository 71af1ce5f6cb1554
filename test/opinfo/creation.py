"""Creation operators against NumPy: arange, linspace, logspace, eye, scalar_tensor and the
*_like ops, in every dtype they support (samples pass dtype=; the reference converts)."""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import NUMPY_OF, random_values
from opinfo.core import ALL, ALL_AND_BOOL, OpInfo, SampleInput


def _np(dtype: object) -> np.dtype:
    return NUMPY_OF[dtype] if dtype is not None else np.dtype(np.float32)


def _arange_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [SampleInput((5,), {"dtype": dtype}, name="end"),
           SampleInput((2, 9), {"dtype": dtype}, name="start, end"),
           SampleInput((1, 10, 3), {"dtype": dtype}, name="start, end, step"),
           SampleInput((10, 1, -3), {"dtype": dtype}, name="negative step"),
           SampleInput((0,), {"dtype": dtype}, name="empty"),
           SampleInput((), {"end": 4, "dtype": dtype}, name="end="),
           SampleInput((3, 3), {"dtype": dtype}, name="start == end")]
    if dtype.is_floating_point:
        out += [SampleInput((0, 1, 0.1), {"dtype": dtype}, name="float step"),
                SampleInput((-2.5, 7.25, 0.75), {"dtype": dtype}, name="float start"),
                SampleInput((1.0, -1.0, -0.125), {"dtype": dtype}, name="float negative step")]
    return out


def _arange_ref(*args: object, end: object = None, dtype: object = None) -> np.ndarray:
    if end is not None:
        args = (end,)
    return np.arange(*args, dtype=np.float64).astype(_np(dtype))


def _linspace_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [SampleInput((0, 10, 5), {"dtype": dtype}, name="ints"),
           SampleInput((10, 0, 3), {"dtype": dtype}, name="decreasing"),
           SampleInput((2, 9, 1), {"dtype": dtype}, name="one step"),
           SampleInput((2, 9, 0), {"dtype": dtype}, name="no steps"),
           SampleInput((0, 100, 11), {"dtype": dtype}, name="eleven")]
    if dtype.is_floating_point:
        out += [SampleInput((-1.5, 2.25, 16), {"dtype": dtype}, name="floats"),
                SampleInput((0.0, 1.0), {"steps": 7, "dtype": dtype}, name="steps=")]
    return out


def _logspace_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [SampleInput((0, 2, 3), {"dtype": dtype}, name="powers of ten"),
           SampleInput((0, 6, 7, 2.0), {"dtype": dtype}, name="base 2"),
           SampleInput((1, 1, 1), {"dtype": dtype}, name="one step"),
           SampleInput((0, 1, 0), {"dtype": dtype}, name="no steps")]
    if dtype.is_floating_point:
        out += [SampleInput((-1.5, 2.25, 9), {"dtype": dtype}, name="floats"),
                SampleInput((0.0, 3.0, 5), {"base": 1.5, "dtype": dtype}, name="base=")]
    return out


def _eye_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((3,), {"dtype": dtype}, name="n"), SampleInput((2, 4), {"dtype": dtype}, name="n, m"),
            SampleInput((4, 2), {"dtype": dtype}, name="tall"), SampleInput((0,), {"dtype": dtype}, name="empty"),
            SampleInput((3,), {"m": 0, "dtype": dtype}, name="m=0")]


def _like_samples(dtype: torch.dtype, rng: np.random.Generator, *extra: object) -> list[SampleInput]:
    return [SampleInput((random_values(dtype, (2, 3), rng), *extra), name="2x3"),
            SampleInput((random_values(dtype, (), rng), *extra), name="0-dim"),
            SampleInput((random_values(dtype, (0, 4), rng), *extra), name="empty"),
            SampleInput((random_values(dtype, (2, 3), rng), *extra), {"dtype": torch.float64}, name="dtype="),
            SampleInput((random_values(dtype, (2, 3), rng), *extra), {"memory_format": torch.contiguous_format},
                        name="memory_format=")]


def _like_ref(fill: object):
    def ref(a: np.ndarray, value: object = None, dtype: object = None, memory_format: object = None) -> np.ndarray:
        v = fill if value is None else value
        return np.full(a.shape, v).astype(a.dtype if dtype is None else _np(dtype))
    return ref


def _scalar_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    value = True if dtype is torch.bool else 3
    return [SampleInput((value,), {"dtype": dtype}, name="int"), SampleInput((value,), name="default dtype")]


OPS = [
    OpInfo("arange", _arange_ref, _arange_samples, ALL, method=False, supports_out=False),
    OpInfo("linspace", lambda s, e, steps=None, dtype=None: np.linspace(s, e, steps).astype(_np(dtype)),
           _linspace_samples, ALL, method=False, supports_out=False),
    OpInfo("logspace", lambda s, e, steps, base=10.0, dtype=None: np.logspace(s, e, steps, base=base).astype(_np(dtype)),
           _logspace_samples, ALL, method=False, supports_out=False),
    OpInfo("eye", lambda n, m=None, dtype=None: np.eye(n, m, dtype=_np(dtype)), _eye_samples, ALL_AND_BOOL,
           method=False, supports_out=False),
    OpInfo("zeros_like", _like_ref(0), _like_samples, ALL_AND_BOOL, method=False, supports_out=False),
    OpInfo("ones_like", _like_ref(1), _like_samples, ALL_AND_BOOL, method=False, supports_out=False),
    OpInfo("full_like", _like_ref(None), lambda dt, rng: _like_samples(dt, rng, True if dt is torch.bool else 7),
           ALL_AND_BOOL, method=False, supports_out=False),
    OpInfo("scalar_tensor", lambda s, dtype=None: np.array(s, dtype=_np(dtype)), _scalar_samples, ALL_AND_BOOL,
           method=False, supports_out=False),
]
