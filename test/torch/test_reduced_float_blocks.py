"""float16 and bfloat16 pointwise loops run the float32 loop on widened blocks (aten/native/cpu/vec_reduced.h):
every result is the float32 op's result on the exactly widened values, rounded once to the dtype, bit for bit
(NaN included), contiguous, strided, broadcast, with a strided out= and with lengths that end mid-block."""
from __future__ import annotations

import numpy as np
import pytest

import torch

DTYPES = [torch.float16, torch.bfloat16]


def _values(n: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Values of the dtype: normal draws of several magnitudes, and zeros, infinities and a NaN."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32) * np.float32(10.0) ** rng.integers(-3, 3, n).astype(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-6], np.float32)
    x[:min(n, 6)] = specials[:min(n, 6)]
    return torch.from_numpy(rng.permutation(x)).to(dtype)


def _bits(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(torch.int16).numpy()


OPS = {
    "exp": lambda a, b, c: torch.exp(a),
    "tanh": lambda a, b, c: torch.tanh(a),
    "sigmoid": lambda a, b, c: torch.sigmoid(a),
    "sqrt": lambda a, b, c: torch.sqrt(a),
    "gelu": lambda a, b, c: torch.nn.functional.gelu(a),
    "add_alpha": lambda a, b, c: torch.add(a, b, alpha=0.3),
    "mul": lambda a, b, c: a * b,
    "div": lambda a, b, c: a / b,
    "maximum": lambda a, b, c: torch.maximum(a, b),
    "addcmul": lambda a, b, c: torch.addcmul(a, b, c, value=-1.5),
    "lerp": lambda a, b, c: torch.lerp(a, b, c),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("n", [1, 255, 1000, 3000])
def test_reduced_loop_is_the_float32_loop_rounded_once(name, dtype, n):
    op = OPS[name]
    a, b, c = (_values(n, dtype, seed) for seed in (1, 2, 3))
    want = op(a.float(), b.float(), c.float()).to(dtype)
    got = op(a, b, c)
    assert got.dtype == dtype
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", ["exp", "add_alpha", "addcmul", "lerp"])
def test_strided_and_broadcast_operands_and_a_strided_out(name, dtype):
    op = OPS[name]
    a = _values(2 * 777, dtype, 4)[::2]
    b = _values(777, dtype, 5)
    c = _values(1, dtype, 6).reshape(())                      # broadcast to every element
    want = op(a.float(), b.float(), c.float()).to(dtype)
    np.testing.assert_array_equal(_bits(op(a, b, c)), _bits(want))
    np.testing.assert_array_equal(_bits(op(c, a, b)), _bits(op(c.float(), a.float(), b.float()).to(dtype)))
    if name == "exp":
        out = torch.empty(2 * 777, dtype=dtype)[::2]
        torch.exp(a, out=out)
        np.testing.assert_array_equal(_bits(out), _bits(want))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_in_place_reduced_op_writes_the_rounded_float32_result(dtype):
    a = _values(1500, dtype, 7)
    b = _values(1500, dtype, 8)
    want = (a.float() * b.float()).to(dtype)
    a.mul_(b)
    np.testing.assert_array_equal(_bits(a), _bits(want))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape,dim", [((5000,), None), ((3, 7, 1500), (1, 2)), ((40, 700), 1), ((40, 700), 0),
                                       ((6, 10), -1), ((2, 3, 4), ())])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduced_sums_read_the_input_and_give_the_float32_sum_rounded_once(dtype, shape, dim, op):
    x = torch.from_numpy(np.random.default_rng(9).standard_normal(shape).astype(np.float32)).to(dtype)
    fn = getattr(torch, op)
    got, want = (fn(x, dim), fn(x.float(), dim).to(dtype)) if dim is not None else (fn(x), fn(x.float()).to(dtype))
    assert got.dtype == dtype
    np.testing.assert_array_equal(_bits(got), _bits(want))
    strided = x.t() if x.dim() == 2 else x                                 # a transposed input is widened first
    np.testing.assert_array_equal(_bits(fn(strided, -1)), _bits(fn(strided.float(), -1).to(dtype)))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_reduced_sum_bits_do_not_depend_on_the_thread_count(dtype):
    x = torch.from_numpy(np.random.default_rng(10).standard_normal(1 << 18).astype(np.float32)).to(dtype)
    before = torch.get_num_threads()
    try:
        sums = []
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            sums.append(_bits(x.sum()))
    finally:
        torch.set_num_threads(before)
    assert sums[0] == sums[1] == sums[2]
