"""Random operators in the database, on samples whose result does not depend on the draws:
bernoulli with p in {0, 1}, one-hot multinomial rows, std 0, dropout with p 0 or 1 or in eval,
one-value randint ranges, randperm of 0 or 1. They check bindings, dtypes, methods, in-place
variants and non-contiguous inputs against NumPy; the random values themselves are checked
bit for bit against PyTorch in test/torch/test_random.py.
"""
from __future__ import annotations

import numpy as np

import torch
from opinfo.core import ALL, ALL_AND_BOOL, FLOATING, NUMPY_OF, OpInfo, SampleInput

SHAPES = [(2, 3), (), (0,), (5, 1, 4)]


def _zero_one(dtype: torch.dtype, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.asarray(rng.random(shape) < 0.5).astype(NUMPY_OF[dtype])


def bernoulli_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((_zero_one(dtype, rng, s),), name=str(s)) for s in SHAPES]


def bernoulli_p_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    x = [np.zeros(s, NUMPY_OF[dtype]) for s in SHAPES]
    return [SampleInput((a, p), name=f"{a.shape},p={p}") for a in x for p in (0.0, 1.0)]


def _one_hot_rows(dtype: torch.dtype, rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    p = np.zeros((rows, cols), NUMPY_OF[dtype])
    p[np.arange(rows), rng.integers(0, cols, rows)] = rng.random(rows) + 0.5
    return p


def multinomial_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((_one_hot_rows(dtype, rng, 3, 5), 1), name="rows, 1"),
            SampleInput((_one_hot_rows(dtype, rng, 1, 6)[0], 1), name="1-d, 1"),
            SampleInput((_one_hot_rows(dtype, rng, 4, 3), 7), {"replacement": True}, name="rows, 7, replacement"),
            SampleInput((np.zeros((0, 4), NUMPY_OF[dtype]), 2), name="no rows")]


def _multinomial(p: np.ndarray, n: int, replacement: bool = False) -> np.ndarray:
    return np.repeat(np.argmax(p, axis=-1)[..., None], n, axis=-1).astype(np.int64) if p.size else \
        np.zeros(p.shape[:-1] + (n,), np.int64)


def normal_tensor_float_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((np.asarray(rng.standard_normal(s)).astype(NUMPY_OF[dtype]), 0.0), name=str(s))
            for s in SHAPES]


def normal_tensor_tensor_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    mean = rng.standard_normal((4, 1)).astype(NUMPY_OF[dtype])
    return [SampleInput((mean, np.zeros((3,), NUMPY_OF[dtype])), name="broadcast"),
            SampleInput((mean, np.zeros((4, 1), np.float64)), name="float64 std")]


def _normal_tensor_tensor(mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    return np.broadcast_to(mean, np.broadcast_shapes(mean.shape, std.shape)).copy()


def dropout_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = []
    for s in SHAPES:
        x = np.asarray(rng.standard_normal(s) + 3).astype(NUMPY_OF[dtype])
        out += [SampleInput((x, 0.0, True), name=f"{s} p=0"), SampleInput((x, 1.0, True), name=f"{s} p=1"),
                SampleInput((x, 0.5, False), name=f"{s} eval")]
    return out


def _dropout(x: np.ndarray, p: float, train: bool) -> np.ndarray:
    return x * 0 if train and p == 1 else x.copy()


def native_dropout_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((np.asarray(rng.standard_normal(s)).astype(NUMPY_OF[dtype]), 0.5, False), name=str(s))
            for s in [(2, 3), (), (5, 1, 4)]]


def randint_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    low = 0 if dtype in (torch.bool, torch.uint8) else -4
    return [SampleInput((low, low + 1, s), {"dtype": dtype}, name=str(s)) for s in [(2, 3), (), (0, 2)]]


def randperm_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((n,), {"dtype": dtype}, name=f"n={n}") for n in (0, 1)]


def normal_float_float_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((2.5, 0.0, s), {"dtype": dtype}, name=str(s)) for s in [(2, 3), ()]]


OPS = [
    OpInfo("bernoulli", lambda p: p.copy(), bernoulli_samples, FLOATING, supports_out=False),
    OpInfo("bernoulli", lambda x, p: np.full(x.shape, p).astype(x.dtype), bernoulli_p_samples, ALL_AND_BOOL,
           inplace="bernoulli_", supports_out=False, variant="bernoulli_p"),
    OpInfo("multinomial", _multinomial, multinomial_samples, FLOATING, supports_out=False),
    OpInfo("normal", lambda mean, std: mean.copy(), normal_tensor_float_samples, FLOATING, method=False,
           supports_out=False, variant="normal_Tensor_float"),
    OpInfo("normal", _normal_tensor_tensor, normal_tensor_tensor_samples, FLOATING, method=False,
           supports_out=False, variant="normal_Tensor_Tensor"),
    OpInfo("normal", lambda mean, std, size, dtype: np.full(size, mean, NUMPY_OF[dtype]), normal_float_float_samples,
           FLOATING, method=False, supports_out=False, variant="normal_float_float"),
    OpInfo("dropout", _dropout, dropout_samples, FLOATING, method=False, supports_out=False),
    OpInfo("native_dropout", lambda x, p, train: (x.copy(), np.ones(x.shape, np.bool_)), native_dropout_samples,
           FLOATING, method=False, supports_out=False),
    OpInfo("randint", lambda low, high, size, dtype: np.full(size, low, NUMPY_OF[dtype]), randint_samples,
           ALL_AND_BOOL, method=False, supports_out=False),
    OpInfo("randperm", lambda n, dtype: np.arange(n).astype(NUMPY_OF[dtype]), randperm_samples, ALL, method=False,
           supports_out=False),
]
