"""torch.quantile / torch.nanquantile against numpy.quantile / numpy.nanquantile (float64, with
the matching `method=`): q as a float, a 0-dim and a 1-D tensor (its dim first in the result),
dim=None and each dim, keepdim, every interpolation, NaN slices, a 0-dim input and a long dim.
"""
from __future__ import annotations

import warnings

import numpy as np

from dtype_cases import random_values
from opinfo.core import FLOATING, OpInfo, SampleInput

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _ref(np_fn):
    def ref(a, q, dim=None, keepdim=False, interpolation="linear"):
        qs = np.asarray(q, dtype=np.float64)
        if a.ndim == 0:        # a 0-dim input takes dim 0 / -1 as PyTorch's dims do
            dim = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # numpy's "All-NaN slice encountered"
            got = np_fn(a.astype(np.float64), qs, axis=dim, keepdims=keepdim, method=interpolation)
        return np.asarray(got).astype(a.dtype)
    return ref


def _samples(with_nan: bool):
    def samples(dt, rng):
        def arr(shape):
            a = random_values(dt, shape, rng)
            if with_nan and a.size > 3:
                flat = a.reshape(-1)
                flat[rng.choice(a.size, size=max(1, a.size // 6), replace=False)] = np.nan
            return a
        q1 = np.array([0.0, 0.25, 0.5, 0.8, 1.0], dtype=random_values(dt, (), rng).dtype)
        q0 = np.array(0.7, dtype=q1.dtype)
        a = arr((3, 4))
        out = [SampleInput((a, 0.3), name="all, float q"),
               SampleInput((a, q1), {"dim": 1}, name="1-D q, dim 1"),
               SampleInput((a, q0), {"dim": -2, "keepdim": True}, name="0-dim q, dim -2 keepdim"),
               SampleInput((arr((2, 3, 5)), q1), {"keepdim": True}, name="all keepdim"),
               SampleInput((arr((2, 3, 5)), 0.4), {"dim": 1}, name="3-d, dim 1"),
               SampleInput((random_values(dt, (), rng), 0.5), {"dim": 0}, name="0-dim input"),
               SampleInput((arr((3, 2000)), q1), {"dim": 1}, name="long dim"),
               # ranks 1.5 and 0.5 exactly: nearest rounds half to even, as numpy
               SampleInput((random_values(dt, (2, 4), rng), np.array([0.5], dtype=q1.dtype)), {"dim": 1},
                           name="tie n=4"),
               SampleInput((random_values(dt, (3, 3), rng), np.array([0.25], dtype=q1.dtype)), {"dim": 0},
                           name="tie n=3")]
        if with_nan:
            b = random_values(dt, (4, 5), rng)
            b[1, :] = np.nan
            b[2, 3] = np.nan
            out.append(SampleInput((b, q1), {"dim": 1}, name="all-NaN row"))
        for method in INTERPOLATIONS:
            out.append(SampleInput((arr((4, 7)), np.array([0.1, 0.5, 0.93], dtype=q1.dtype)),
                                   {"dim": 0, "interpolation": method}, name=method))
            out.append(SampleInput((arr((5,)), 0.62), {"interpolation": method}, name=f"{method} float q"))
        return out
    return samples


OPS = [
    OpInfo("quantile", _ref(np.quantile), _samples(False), FLOATING),
    OpInfo("quantile", _ref(np.quantile), _samples(True), FLOATING, variant="quantile_nan"),
    OpInfo("nanquantile", _ref(np.nanquantile), _samples(True), FLOATING),
    OpInfo("nanquantile", _ref(np.nanquantile), _samples(False), FLOATING, variant="nanquantile_no_nan"),
]
