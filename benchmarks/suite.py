"""The benchmark definitions and the timer, written against the public torch API and NumPy only.

This file must stay importable by a plain PyTorch install: `python -m benchmarks --compare-python
PATH` runs it as a script under that interpreter (`PATH benchmarks/suite.py --serve`, from an
empty directory, its own folder taken off sys.path, answering requests on stdin), so `import torch` there finds that
interpreter's PyTorch and never Ember. Nothing here may import Ember's internals (c10, aten,
torch._C) or the rest of this package (workloads.py, loaded by path, keeps the same rule).

A case is a label, a unit and a setup function: `setup(torch, np, sizes)` builds the inputs and
returns the zero-argument callable that is timed. An operator missing from the torch under test
surfaces as an exception from the setup or the first call; the case then reports that error
instead of a time.
"""
from __future__ import annotations

import gc
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

Fn = Callable[[], Any]
Setup = Callable[[Any, Any, "Sizes"], Fn]        # (torch, numpy, sizes) -> the timed call
NumpySetup = Callable[[Any, "Sizes"], Fn]        # (numpy, sizes) -> the timed call

# ---------------------------------------------------------------------------------------------
# Sizes


@dataclass(frozen=True)
class Sizes:
    n: int            # 1-D pointwise and reduction length
    side: int         # square 2-D tensors (side * side elements)
    rows: int         # softmax rows
    cols: int         # softmax columns
    mm32: int         # float32 matmul: (mm32, mm32) @ (mm32, mm32)
    mm64: int         # float64 matmul
    bmm_batch: int
    bmm_side: int
    conv: Tuple[int, int, int, int]   # (N, C, H=W, K) for a 3x3 conv2d with padding 1
    sort_rows: int
    sort_cols: int
    stream_n: int     # float64 elements per STREAM array


FULL = Sizes(n=1 << 24, side=4096, rows=4096, cols=1024, mm32=1024, mm64=512, bmm_batch=32,
             bmm_side=256, conv=(16, 64, 56, 64), sort_rows=1024, sort_cols=4096, stream_n=1 << 24)
QUICK = Sizes(n=1 << 14, side=128, rows=128, cols=64, mm32=64, mm64=32, bmm_batch=4, bmm_side=32,
              conv=(2, 4, 8, 4), sort_rows=16, sort_cols=128, stream_n=1 << 16)


def pow2(n: int) -> str:
    """2^24 for 16777216; plain digits for anything that is not a power of two."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class Case:
    id: str                                   # stable key: group.name (filter, JSON)
    group: str                                # section of the table
    label: Callable[[Sizes], str]             # what the row shows
    unit: str                                 # "us" or "ms" (per call) or a rate: GB/s, GFLOP/s, Melem/s
    work: Callable[[Sizes], float]            # bytes, flops or elements per call (rates only)
    torch: Setup
    numpy: Optional[NumpySetup] = None        # NumPy's equivalent, when there is one
    limit: Optional[str] = None               # STREAM kernel bounding it: "copy" or "triad"

    def rate(self, seconds: float, sizes: Sizes) -> float:
        """The figure the table shows for a per-call time."""
        if self.unit in PER_CALL:
            return seconds * PER_CALL[self.unit]
        scale = 1e6 if self.unit == "Melem/s" else 1e9
        return float(self.work(sizes)) / seconds / scale


GROUPS = {
    "overhead": "per-op overhead, 1-element float32 tensors",
    "pointwise": "large pointwise, float32",
    "reduction": "reductions, float32",
    "matmul": "matmul",
    "bfloat16": "bfloat16 (computed in float32, rounded once): compare with the float32 rows",
    "softmax": "softmax, float32",
    "conv": "conv2d, float32, 3x3, padding 1",
    "movement": "cat / index_select / sort, float32",
    "autograd": "autograd: recording overhead and a training step, float32",
    "examples": "examples/: training, float32 (the programs' own models, data and loops)",
    "training": "training-step pieces, float32 (benchmarks/workloads.py)",
    "func": "torch.func transforms, float32 (benchmarks/func_transforms.py)",
    "compile": "torch.compile, float32 (benchmarks/compiled.py)",
}


def _rand(np: Any, shape: Any, dtype: Any = None, seed: int = 0) -> Any:
    return np.random.default_rng(seed).random(shape, dtype=dtype or np.float32)


def _t(torch: Any, np: Any, shape: Any, dtype: Any = None, seed: int = 0) -> Any:
    return torch.from_numpy(_rand(np, shape, dtype, seed))


CASES: List[Case] = []
PER_CALL = {"us": 1e6, "ms": 1e3}             # units that show a time per call, and their scale


def case(id: str, label: Any, unit: str, work: Callable[[Sizes], float] = lambda s: 0.0,
         numpy: Optional[NumpySetup] = None, limit: Optional[str] = None) -> Callable[[Setup], Setup]:
    """Registers the decorated torch setup as a case; label is a string or a function of sizes."""
    def register(setup: Setup) -> Setup:
        text = label if callable(label) else (lambda s, _l=label: _l)
        CASES.append(Case(id, id.split(".")[0], text, unit, work, setup, numpy, limit))
        return setup
    return register


# -- per-op overhead: 1-element tensors, microseconds per call --------------------------------

def _one(torch: Any, np: Any, s: Sizes, k: int = 2) -> List[Any]:
    return [_t(torch, np, (1,), seed=i) for i in range(k)]


def _np_one(np: Any, k: int = 2) -> List[Any]:
    return [_rand(np, (1,), seed=i) for i in range(k)]


def _np_add1(np: Any, s: Sizes) -> Fn:
    a, b = _np_one(np)
    return lambda: np.add(a, b)


@case("overhead.add", "torch.add(a, b)", "us", numpy=_np_add1)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = _one(torch, np, s)
    return lambda: torch.add(a, b)


def _np_plus1(np: Any, s: Sizes) -> Fn:
    a, b = _np_one(np)
    return lambda: a + b


@case("overhead.operator_add", "a + b", "us", numpy=_np_plus1)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = _one(torch, np, s)
    return lambda: a + b


def _np_index1(np: Any, s: Sizes) -> Fn:
    (x,) = _np_one(np, 1)
    return lambda: x[0]


@case("overhead.index", "x[0]", "us", numpy=_np_index1)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    (x,) = _one(torch, np, s, 1)
    return lambda: x[0]


def _np_getitem(np: Any, s: Sizes) -> Fn:
    x = _rand(np, (3, 4))
    return lambda: x[0]


@case("overhead.getitem", "x[0], x 3x4", "us", numpy=_np_getitem)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x = _t(torch, np, (3, 4))
    return lambda: x[0]


def _np_getitem_slice(np: Any, s: Sizes) -> Fn:
    x = _rand(np, (3, 4))
    return lambda: x[:, 1]


@case("overhead.getitem_slice", "x[:, 1], x 3x4", "us", numpy=_np_getitem_slice)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x = _t(torch, np, (3, 4))
    return lambda: x[:, 1]


def _np_setitem(np: Any, s: Sizes) -> Fn:
    x = _rand(np, (3, 4))

    def run() -> None:
        x[0] = 1.0
    return run


@case("overhead.setitem", "x[0] = 1.0, x 3x4", "us", numpy=_np_setitem)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x = _t(torch, np, (3, 4))

    def run() -> None:
        x[0] = 1.0
    return run


def _np_view(np: Any, s: Sizes) -> Fn:
    x = _rand(np, (3, 4))
    return lambda: x.reshape(-1)


@case("overhead.view", "x.view(-1), x 3x4", "us", numpy=_np_view)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x = _t(torch, np, (3, 4))
    return lambda: x.view(-1)


def _np_shape(np: Any, s: Sizes) -> Fn:
    x = _rand(np, (3, 4))
    return lambda: x.shape


@case("overhead.shape", "x.shape, x 3x4", "us", numpy=_np_shape)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x = _t(torch, np, (3, 4))
    return lambda: x.shape


def _np_add_scalar(np: Any, s: Sizes) -> Fn:
    x = _rand(np, (3, 4))
    return lambda: x + 1


@case("overhead.add_scalar", "x + 1, x 3x4", "us", numpy=_np_add_scalar)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x = _t(torch, np, (3, 4))
    return lambda: x + 1


def _np_add_out1(np: Any, s: Sizes) -> Fn:
    a, b, c = _np_one(np, 3)
    return lambda: np.add(a, b, out=c)


@case("overhead.add_out", "torch.add(a, b, out=c)", "us", numpy=_np_add_out1)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b, c = _one(torch, np, s, 3)
    return lambda: torch.add(a, b, out=c)


def _np_sum1(np: Any, s: Sizes) -> Fn:
    (a,) = _np_one(np, 1)
    return lambda: a.sum()


@case("overhead.sum", "a.sum()", "us", numpy=_np_sum1)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    (a,) = _one(torch, np, s, 1)
    return lambda: a.sum()


def _np_exp1(np: Any, s: Sizes) -> Fn:
    (a,) = _np_one(np, 1)
    return lambda: np.exp(a)


@case("overhead.method_exp", "a.exp()", "us", numpy=_np_exp1)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    (a,) = _one(torch, np, s, 1)
    return lambda: a.exp()


def _np_zeros(np: Any, s: Sizes) -> Fn:
    return lambda: np.zeros((3, 4), np.float32)


@case("overhead.zeros", "torch.zeros(3, 4)", "us", numpy=_np_zeros)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    return lambda: torch.zeros(3, 4)


# -- large pointwise: GB/s counts the bytes each call must read and write ---------------------

F32 = 4


def _np_add_new(np: Any, s: Sizes) -> Fn:
    a, b = _rand(np, s.n, seed=0), _rand(np, s.n, seed=1)
    return lambda: np.add(a, b)


@case("pointwise.add", lambda s: f"torch.add(a, b), {pow2(s.n)}", "GB/s", lambda s: 3 * F32 * s.n,
      numpy=_np_add_new, limit="triad")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = _t(torch, np, s.n, seed=0), _t(torch, np, s.n, seed=1)
    return lambda: torch.add(a, b)


def _np_add_out(np: Any, s: Sizes) -> Fn:
    a, b, c = _rand(np, s.n, seed=0), _rand(np, s.n, seed=1), _rand(np, s.n, seed=2)
    return lambda: np.add(a, b, out=c)


@case("pointwise.add_out", lambda s: f"torch.add(a, b, out=c), {pow2(s.n)}", "GB/s",
      lambda s: 3 * F32 * s.n, numpy=_np_add_out, limit="triad")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b, c = (_t(torch, np, s.n, seed=i) for i in range(3))
    return lambda: torch.add(a, b, out=c)


def _np_exp(np: Any, s: Sizes) -> Fn:
    a = _rand(np, s.n)
    return lambda: np.exp(a)


@case("pointwise.exp", lambda s: f"torch.exp(a), {pow2(s.n)}", "GB/s", lambda s: 2 * F32 * s.n,
      numpy=_np_exp, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a = _t(torch, np, s.n)
    return lambda: torch.exp(a)


def _unary_case(name: str, np_fn: Callable[[Any, Any], Any], call: Callable[[Any, Any], Any],
                low: float = 0.0) -> None:
    """A float32 transcendental like exp: (2^24,) values in [low, low + 1) in, one result out."""
    def np_setup(np: Any, s: Sizes) -> Fn:
        a = _rand(np, s.n) + np.float32(low)
        return lambda: np_fn(np, a)

    @case(f"pointwise.{name}", lambda s: f"torch.{name}(a), {pow2(s.n)}", "GB/s", lambda s: 2 * F32 * s.n,
          numpy=np_setup, limit="copy")
    def _(torch: Any, np: Any, s: Sizes) -> Fn:
        a = torch.from_numpy(_rand(np, s.n) + np.float32(low))
        return lambda: call(torch, a)


_unary_case("log", lambda np, a: np.log(a), lambda torch, a: torch.log(a), low=0.5)
_unary_case("sigmoid", lambda np, a: 1 / (1 + np.exp(-a)), lambda torch, a: torch.sigmoid(a))
_unary_case("tanh", lambda np, a: np.tanh(a), lambda torch, a: torch.tanh(a))


def _np_add_bcast(np: Any, s: Sizes) -> Fn:
    a, b = _rand(np, (s.side, s.side), seed=0), _rand(np, (s.side, 1), seed=1)
    return lambda: np.add(a, b)


@case("pointwise.add_broadcast", lambda s: f"add ({s.side},{s.side}) + ({s.side},1)", "GB/s",
      lambda s: F32 * (2 * s.side * s.side + s.side), numpy=_np_add_bcast, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = _t(torch, np, (s.side, s.side), seed=0), _t(torch, np, (s.side, 1), seed=1)
    return lambda: torch.add(a, b)


def _np_add_t(np: Any, s: Sizes) -> Fn:
    a, b = _rand(np, (s.side, s.side), seed=0), _rand(np, (s.side, s.side), seed=1)
    at = a.T
    return lambda: np.add(at, b)


@case("pointwise.add_transposed", lambda s: f"add a.t() + b, ({s.side},{s.side})", "GB/s",
      lambda s: 3 * F32 * s.side * s.side, numpy=_np_add_t, limit="triad")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = _t(torch, np, (s.side, s.side), seed=0), _t(torch, np, (s.side, s.side), seed=1)
    at = a.t()
    return lambda: torch.add(at, b)


# -- reductions: GB/s of input read ------------------------------------------------------------

def _np_sum_all(np: Any, s: Sizes) -> Fn:
    a = _rand(np, s.n)
    return lambda: a.sum()


@case("reduction.sum", lambda s: f"a.sum(), {pow2(s.n)}", "GB/s", lambda s: F32 * s.n,
      numpy=_np_sum_all, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a = _t(torch, np, s.n)
    return lambda: a.sum()


def _np_sum_dim(dim: int) -> NumpySetup:
    def setup(np: Any, s: Sizes) -> Fn:
        a = _rand(np, (s.side, s.side))
        return lambda: a.sum(axis=dim)
    return setup


def _sum_dim(dim: int) -> Setup:
    def setup(torch: Any, np: Any, s: Sizes) -> Fn:
        a = _t(torch, np, (s.side, s.side))
        return lambda: a.sum(dim)
    return setup


for _dim in (0, 1):
    case(f"reduction.sum_dim{_dim}", lambda s, d=_dim: f"a.sum({d}), ({s.side},{s.side})", "GB/s",
         lambda s: F32 * s.side * s.side, numpy=_np_sum_dim(_dim), limit="copy")(_sum_dim(_dim))


def _np_max_dim(np: Any, s: Sizes) -> Fn:
    a = _rand(np, (s.side, s.side))
    return lambda: a.max(axis=1)   # values only; torch.max(dim=) also returns indices


@case("reduction.max_dim", lambda s: f"torch.max(a, dim=1), ({s.side},{s.side})", "GB/s",
      lambda s: F32 * s.side * s.side, numpy=_np_max_dim, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a = _t(torch, np, (s.side, s.side))
    return lambda: torch.max(a, dim=1)


def _np_var(np: Any, s: Sizes) -> Fn:
    a = _rand(np, s.n)
    return lambda: a.var(ddof=1)


@case("reduction.var", lambda s: f"a.var(), {pow2(s.n)}", "GB/s", lambda s: F32 * s.n,
      numpy=_np_var, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a = _t(torch, np, s.n)
    return lambda: a.var()


# -- matmul: GFLOP/s = 2 m n k / time ----------------------------------------------------------

def _np_mm(attr: str) -> NumpySetup:
    def setup(np: Any, s: Sizes) -> Fn:
        n, dt = getattr(s, attr), np.float32 if attr == "mm32" else np.float64
        a, b = _rand(np, (n, n), dt, 0), _rand(np, (n, n), dt, 1)
        return lambda: a @ b
    return setup


def _mm(attr: str) -> Setup:
    def setup(torch: Any, np: Any, s: Sizes) -> Fn:
        n, dt = getattr(s, attr), np.float32 if attr == "mm32" else np.float64
        a, b = _t(torch, np, (n, n), dt, 0), _t(torch, np, (n, n), dt, 1)
        return lambda: torch.mm(a, b)
    return setup


case("matmul.mm_f32", lambda s: f"torch.mm float32 {s.mm32}^3", "GFLOP/s", lambda s: 2.0 * s.mm32 ** 3,
     numpy=_np_mm("mm32"))(_mm("mm32"))
case("matmul.mm_f64", lambda s: f"torch.mm float64 {s.mm64}^3", "GFLOP/s", lambda s: 2.0 * s.mm64 ** 3,
     numpy=_np_mm("mm64"))(_mm("mm64"))


def _np_bmm(np: Any, s: Sizes) -> Fn:
    shape = (s.bmm_batch, s.bmm_side, s.bmm_side)
    a, b = _rand(np, shape, seed=0), _rand(np, shape, seed=1)
    return lambda: np.matmul(a, b)


@case("matmul.bmm_f32", lambda s: f"torch.bmm float32 {s.bmm_batch}x{s.bmm_side}^3", "GFLOP/s",
      lambda s: 2.0 * s.bmm_batch * s.bmm_side ** 3, numpy=_np_bmm)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    shape = (s.bmm_batch, s.bmm_side, s.bmm_side)
    a, b = _t(torch, np, shape, seed=0), _t(torch, np, shape, seed=1)
    return lambda: torch.bmm(a, b)


# -- bfloat16: the float32 cases above in bfloat16 (2 bytes an element) -------------------------

def _bf16(torch: Any, np: Any, shape: Any, seed: int = 0) -> Any:
    return _t(torch, np, shape, seed=seed).to(torch.bfloat16)


@case("bfloat16.add", lambda s: f"torch.add(a, b) bfloat16, {pow2(s.n)}", "GB/s", lambda s: 6 * s.n, limit="triad")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = _bf16(torch, np, s.n, 0), _bf16(torch, np, s.n, 1)
    return lambda: torch.add(a, b)


@case("bfloat16.exp", lambda s: f"torch.exp(a) bfloat16, {pow2(s.n)}", "GB/s", lambda s: 4 * s.n, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a = _bf16(torch, np, s.n)
    return lambda: torch.exp(a)


@case("bfloat16.sum", lambda s: f"a.sum() bfloat16, {pow2(s.n)}", "GB/s", lambda s: 2 * s.n, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a = _bf16(torch, np, s.n)
    return lambda: a.sum()


@case("bfloat16.mm", lambda s: f"torch.mm bfloat16 {s.mm32}^3", "GFLOP/s", lambda s: 2.0 * s.mm32 ** 3)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = _bf16(torch, np, (s.mm32, s.mm32), 0), _bf16(torch, np, (s.mm32, s.mm32), 1)
    return lambda: torch.mm(a, b)


# -- softmax: GB/s = read + write --------------------------------------------------------------

def _np_softmax(np: Any, s: Sizes) -> Fn:
    x = _rand(np, (s.rows, s.cols))

    def softmax() -> Any:
        e = np.exp(x - x.max(axis=1, keepdims=True))
        e /= e.sum(axis=1, keepdims=True)
        return e
    return softmax


@case("softmax.rows", lambda s: f"torch.softmax(x, dim=1), ({s.rows},{s.cols})", "GB/s",
      lambda s: 2 * F32 * s.rows * s.cols, numpy=_np_softmax, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x = _t(torch, np, (s.rows, s.cols))
    return lambda: torch.softmax(x, dim=1)


# -- conv2d: GFLOP/s = 2 N K C 3 3 H W; the table's time column gives the milliseconds ----------

def _conv_flops(s: Sizes) -> float:
    n, c, h, k = s.conv
    return 2.0 * n * k * c * 9 * h * h


def _np_conv(np: Any, s: Sizes) -> Fn:
    """im2col through a sliding-window view, then one tensordot (a GEMM)."""
    n, c, h, k = s.conv
    x, w = _rand(np, (n, c, h, h), seed=0), _rand(np, (k, c, 3, 3), seed=1)
    windows = np.lib.stride_tricks.sliding_window_view

    def conv() -> Any:
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        cols = windows(xp, (3, 3), axis=(2, 3))           # (N, C, H, W, 3, 3)
        return np.tensordot(cols, w, axes=((1, 4, 5), (1, 2, 3)))   # (N, H, W, K)
    return conv


@case("conv.conv2d", lambda s: "conv2d N={0} C={1} H=W={2} K={3}".format(*s.conv), "GFLOP/s",
      _conv_flops, numpy=_np_conv)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    n, c, h, k = s.conv
    x, w = _t(torch, np, (n, c, h, h), seed=0), _t(torch, np, (k, c, 3, 3), seed=1)
    conv2d = torch.conv2d     # = torch.nn.functional.conv2d in PyTorch; Ember has no torch.nn yet
    return lambda: conv2d(x, w, padding=1)


# -- data movement -----------------------------------------------------------------------------

def _np_cat(np: Any, s: Sizes) -> Fn:
    half = (s.side, s.side // 2)
    a, b = _rand(np, half, seed=0), _rand(np, half, seed=1)
    return lambda: np.concatenate([a, b], axis=1)


@case("movement.cat", lambda s: f"torch.cat 2x({s.side},{s.side // 2}), dim=1", "GB/s",
      lambda s: 2 * F32 * s.side * s.side, numpy=_np_cat, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    half = (s.side, s.side // 2)
    a, b = _t(torch, np, half, seed=0), _t(torch, np, half, seed=1)
    return lambda: torch.cat([a, b], dim=1)


def _perm(np: Any, s: Sizes) -> Any:
    return np.random.default_rng(2).permutation(s.side).astype(np.int64)


def _np_index_select(np: Any, s: Sizes) -> Fn:
    a, idx = _rand(np, (s.side, s.side)), _perm(np, s)
    return lambda: np.take(a, idx, axis=0)


@case("movement.index_select", lambda s: f"index_select rows, ({s.side},{s.side})", "GB/s",
      lambda s: 2 * F32 * s.side * s.side, numpy=_np_index_select, limit="copy")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, idx = _t(torch, np, (s.side, s.side)), torch.from_numpy(_perm(np, s))
    return lambda: torch.index_select(a, 0, idx)


def _np_sort(np: Any, s: Sizes) -> Fn:
    a = _rand(np, (s.sort_rows, s.sort_cols))
    return lambda: np.sort(a, axis=1)   # values only; torch.sort also returns indices


@case("movement.sort", lambda s: f"torch.sort(a, dim=1), ({s.sort_rows},{s.sort_cols})", "Melem/s",
      lambda s: float(s.sort_rows * s.sort_cols), numpy=_np_sort)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a = _t(torch, np, (s.sort_rows, s.sort_cols))
    return lambda: torch.sort(a, dim=1)


def select(pattern: Optional[str]) -> List[Case]:
    """The cases whose id or label (at full size) matches the regular expression."""
    if not pattern:
        return list(CASES)
    rx = re.compile(pattern)
    return [c for c in CASES if rx.search(c.id) or rx.search(c.label(FULL))]


# ---------------------------------------------------------------------------------------------
# Timing
#
# Each row times Ember, then NumPy, then the compared torch, back to back (seconds apart, so load
# that comes and goes on a shared machine hits them nearly alike). They do not take turns loop by
# loop: a BLAS or OpenMP pool keeps spinning for a while after its last call and would slow down
# whichever implementation ran next in the other process; a short pause between implementations
# lets it settle, and a warm-up loop absorbs what remains.

SLOW_CALL_S = 1.0    # calls slower than this get 2 loops, not `repeat`


def measure(setup: Optional[Callable[..., Fn]], args: Tuple[Any, ...], sizes: Sizes, repeat: int,
            target_s: float) -> Dict[str, Any]:
    """One case for one implementation: {"seconds": best per call, "number", "repeat"} or {"error"}.

    `setup(*args, sizes)` builds the inputs and the call. The first call warms up (and surfaces a
    missing operator: any exception becomes the error); the inner loop count then grows until
    one loop lasts `target_s`, so a microsecond row times thousands of calls and the timer's own
    cost vanishes. That last calibration loop is the first of `repeat` samples (2 for calls over
    SLOW_CALL_S). The garbage collector is off while timing, as in timeit."""
    if setup is None:
        return {"error": "no equivalent"}
    fn: Optional[Fn] = None
    try:
        fn = setup(*args, sizes)
        fn()
        number = 1
        while True:
            elapsed = _loop(fn, number)
            if elapsed >= target_s or number >= 1 << 24:
                break
            number *= 2 if elapsed * 8 > target_s else 8
        samples = [elapsed / number]
        wanted = min(repeat, 2) if samples[0] > SLOW_CALL_S else repeat
        while len(samples) < wanted:
            samples.append(_loop(fn, number) / number)
        return {"seconds": min(samples), "number": number, "repeat": len(samples)}
    except Exception as exc:   # a missing op must never stop the table
        return {"error": error_text(exc)}
    finally:
        fn = None   # drop the inputs (hundreds of MB) before the next case builds its own
        gc.collect()


def _loop(fn: Fn, number: int) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def error_text(exc: BaseException) -> str:
    """One line: the exception's type and the first line of its message."""
    message = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {message[0]}" if message else type(exc).__name__


def interpreter_meta(torch: Any) -> Dict[str, Any]:
    return {"torch_version": str(getattr(torch, "__version__", "?")),
            "torch_file": str(getattr(torch, "__file__", "?")),
            "threads": torch.get_num_threads(),
            "python": sys.version.split()[0], "executable": sys.executable}

# -- autograd (issue 6): recording overhead and a training step --------------------------------

def _np_add_grad(np: Any, s: Sizes) -> Fn:
    a, b = _np_one(np)
    return lambda: a + b


@case("autograd.add", "a + b, requires_grad", "us", numpy=_np_add_grad)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    a, b = (t.requires_grad_() for t in _one(torch, np, s))
    return lambda: a + b


def _mlp_arrays(np: Any) -> List[Any]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(shape).astype(np.float32) * scale
            for shape, scale in (((64, 64), 1.0), ((64, 256), 0.1), ((256,), 0.0), ((256, 10), 0.1), ((10,), 0.0),
                                 ((64, 10), 1.0))]


def _np_mlp_step(np: Any, s: Sizes) -> Fn:
    x, w1, b1, w2, b2, y = _mlp_arrays(np)

    def step() -> None:                       # the same forward and its hand-written backward
        h = x @ w1 + b1
        a = np.maximum(h, 0)
        out = a @ w2 + b2
        d_out = 2 * (out - y) / out.size
        d_a = d_out @ w2.T
        d_h = d_a * (h > 0)
        (a.T @ d_out, d_out.sum(0), x.T @ d_h, d_h.sum(0))
    return step


@case("autograd.mlp_step", "MLP 64-256-10, batch 64: forward + backward", "us", numpy=_np_mlp_step)
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    x, w1, b1, w2, b2, y = (torch.from_numpy(a) for a in _mlp_arrays(np))
    params = [w1.requires_grad_(), b1.requires_grad_(), w2.requires_grad_(), b2.requires_grad_()]

    def step() -> None:
        for p in params:
            p.grad = None
        out = torch.relu(x.mm(w1) + b1).mm(w2) + b2
        ((out - y) * (out - y)).mean().backward()
    return step


# -- examples (issue 7): an epoch or a step of the programs in examples/ ------------------------
#
# Each case loads the example's file and times its own training function on its own model and
# data, seeded as the program seeds them; the interpreter's `import torch` decides which torch
# runs it. An example needing a module the torch lacks (cnn_digits: nn.Conv2d) reports the error.

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def _example(name: str, folder: str = EXAMPLES) -> Any:
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_bench_example_{name}", os.path.join(folder, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _digits_epoch(name: str, model_class: str, lr: float) -> Setup:
    def setup(torch: Any, np: Any, s: Sizes) -> Fn:
        ex = _example(name)
        torch.manual_seed(0)
        train_set, _ = ex.load_digits()
        loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True,
                                             generator=torch.Generator().manual_seed(0))
        model = getattr(ex, model_class)()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()
        return lambda: ex.train_epoch(model, loader, loss_fn, optimizer)
    return setup


case("examples.digits_mlp_epoch", "train_digits.py: MLP 64-256-10, 1437 digits, batch 64, SGD momentum: 1 epoch",
     "ms")(_digits_epoch("train_digits", "MLP", 0.1))
case("examples.cnn_digits_epoch", "cnn_digits.py: 2 conv + 2 max-pool + linear, batch 64, SGD momentum: 1 epoch",
     "ms")(_digits_epoch("cnn_digits", "CNN", 0.05))


@case("examples.char_gpt_step", "char_gpt.py: 2 layers, d=64, 4 heads, context 32, batch 16, AdamW: 1 step", "ms")
def _(torch: Any, np: Any, s: Sizes) -> Fn:
    ex = _example("char_gpt")
    torch.manual_seed(0)
    data, chars = ex.load_text()
    model = ex.CharGPT(len(chars))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    batches = torch.Generator().manual_seed(0)
    return lambda: ex.train_step(model, optimizer, *ex.get_batch(data, batches))


# -- the pieces of a training step (issue 25), defined beside this file ---------------------------
_example("workloads", os.path.dirname(os.path.abspath(__file__))).register(case)
# -- torch.func (issue 26) ------------------------------------------------------------------------
_example("func_transforms", os.path.dirname(os.path.abspath(__file__))).register(case)
# -- torch.compile (issue 27) ---------------------------------------------------------------------
_example("compiled", os.path.dirname(os.path.abspath(__file__))).register(case)


def serve(argv: List[str]) -> int:
    """`suite.py --serve [--quick] [--threads N] [--target S]`: the compared interpreter's side.

    Writes one JSON line describing its torch, then answers each request line from stdin,
    {"run": CASE_ID, "repeat": N}, with one line: measure()'s result. Replies go to the original
    stdout; anything else printing to stdout is sent to stderr."""
    import argparse
    p = argparse.ArgumentParser(prog="suite.py --serve")
    p.add_argument("--serve", action="store_true", required=True)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", type=int)
    p.add_argument("--target", type=float, default=0.2)
    args = p.parse_args(argv)
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def reply(message: Dict[str, Any]) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    import numpy as np
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    sizes = QUICK if args.quick else FULL
    by_id = {c.id: c for c in CASES}
    reply(interpreter_meta(torch))
    for line in sys.stdin:
        message = json.loads(line)
        reply(measure(by_id[message["run"]].torch, (torch, np), sizes, message["repeat"], args.target))
    return 0


if __name__ == "__main__":
    # Run as a script by another interpreter: drop this folder from the path so nothing here can
    # shadow a module that interpreter's torch imports.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.exit(serve(sys.argv[1:]))

