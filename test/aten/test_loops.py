"""The CPU loop engine (aten/native/cpu/loops.pyx): the generated cast table, copy with
broadcasting and conversion, and tensors large enough to cross the GIL threshold (4096 elements)
and the grain size (32768) with one and two threads."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import torch
from aten.native.cpu import loops
from dtype_cases import ALL_DTYPES, NUMPY_OF, dtype_id

GRAIN_SIZE = 32768
NOGIL_THRESHOLD = 4096


# ---------------------------------------------------------------------------------------------
# The cast table

CANDIDATES = [0, 1, -1, 2, -2, 7, -7, 100, -100, 127, -128, 128, 255, 256, 1000, -1000, 32767, -32768, 65535,
              2**24 + 1, 2**31 - 1, -(2**31), 2**40 + 3, -(2**40), 2**53 + 1, 2**62, -(2**63), 2**63 - 1,
              0.5, -0.5, 0.1, 1.75, -1.75, 2.5, -2.5, 99.9, -99.9, 127.5, -128.5, 255.5, 1e6 + 0.25, 3e9 + 0.5,
              -3e9 - 0.5, 1e15 + 0.5, 1e-30, 3.4e38, 1e300]


def _representable(value: float | int, dtype: np.dtype) -> bool:
    """value is exactly a value of dtype (so it can be a source element)."""
    if dtype == np.bool_:
        return value in (0, 1)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return float(value).is_integer() and info.min <= value <= info.max
    with np.errstate(over="ignore"):
        return math.isfinite(dtype.type(value)) and float(dtype.type(value)) == value


def _in_range(value: float | int, dtype: np.dtype) -> bool:
    """Converting value to dtype is defined (C, numpy and PyTorch agree): no integer overflow."""
    if dtype == np.bool_:
        return True
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min <= math.trunc(value) <= info.max
    if dtype == np.float32:
        return abs(value) <= float(np.finfo(np.float32).max)
    return True


def cast_values(src: torch.dtype, dst: torch.dtype) -> np.ndarray:
    s, d = NUMPY_OF[src], NUMPY_OF[dst]
    values = [v for v in CANDIDATES if _representable(v, s) and _in_range(v, d)]
    return np.array([s.type(v) for v in values], dtype=s)


CAST_PAIRS = [pytest.param(s, d, id=f"{dtype_id(s)}-to-{dtype_id(d)}") for s, d in itertools.product(ALL_DTYPES, repeat=2)]


@pytest.mark.parametrize("src, dst", CAST_PAIRS)
def test_cast_matches_numpy_astype_for_values_in_range(src, dst):
    a = cast_values(src, dst)
    assert a.size >= 2
    out = loops._cast(torch.from_numpy(a), dst)
    assert out.dtype == dst
    assert out.shape == a.shape
    assert out.is_contiguous()
    np.testing.assert_array_equal(out.numpy(), a.astype(NUMPY_OF[dst]))


@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_id)
def test_cast_to_bool_is_not_equal_to_zero(src):
    s = NUMPY_OF[src]
    values = [v for v in [0, 1, 2, -1, 255, 0.5, -0.5, 1e-30, -0.0, 3e9] if _representable(v, s)]
    if s.kind == "f":
        values += [math.inf, -math.inf, math.nan]
    a = np.array(values, dtype=s)
    out = loops._cast(torch.from_numpy(a), torch.bool)
    assert out.tolist() == [bool(v != 0) for v in values]


def test_cast_of_floats_to_integers_truncates_toward_zero():
    a = np.array([1.75, -1.75, 0.5, -0.5, 2.5, -2.5, 99.9], dtype=np.float64)
    assert loops._cast(torch.from_numpy(a), torch.int32).tolist() == [1, -1, 0, 0, 2, -2, 99]
    assert loops._cast(torch.from_numpy(a.astype(np.float32)), torch.int8).tolist() == [1, -1, 0, 0, 2, -2, 99]


def test_cast_between_integers_wraps_modulo_the_destination_width():
    a = np.array([256, 257, -1, 300, -129, 65535], dtype=np.int64)
    assert loops._cast(torch.from_numpy(a), torch.uint8).tolist() == [0, 1, 255, 44, 127, 255]
    assert loops._cast(torch.from_numpy(a), torch.int8).tolist() == [0, 1, -1, 44, 127, -1]
    assert loops._cast(torch.from_numpy(a), torch.int16).tolist() == [256, 257, -1, 300, -129, -1]


def test_cast_of_float64_to_float32_rounds_to_nearest_and_overflows_to_infinity():
    a = np.array([0.1, 1 + 2**-30, 2**24 + 1, -(2**24) - 1], dtype=np.float64)
    np.testing.assert_array_equal(loops._cast(torch.from_numpy(a), torch.float32).numpy(), a.astype(np.float32))
    special = np.array([math.inf, -math.inf, math.nan, -0.0], dtype=np.float64)
    out = loops._cast(torch.from_numpy(special), torch.float32).numpy()
    assert out[0] == math.inf and out[1] == -math.inf and math.isnan(out[2])
    assert out[3] == 0.0 and np.signbit(out[3])


def test_cast_of_large_integers_to_floats_rounds_to_nearest():
    a = np.array([2**53 + 1, 2**62 + 1, -(2**63), 2**24 + 1], dtype=np.int64)
    np.testing.assert_array_equal(loops._cast(torch.from_numpy(a), torch.float64).numpy(), a.astype(np.float64))
    np.testing.assert_array_equal(loops._cast(torch.from_numpy(a), torch.float32).numpy(), a.astype(np.float32))


@pytest.mark.parametrize("dst", ALL_DTYPES, ids=dtype_id)
def test_cast_of_a_non_contiguous_source_gives_a_contiguous_copy(dst):
    base = np.arange(48, dtype=np.int16).reshape(6, 8)
    view = base.T[::2, 1::2]
    out = loops._cast(torch.from_numpy(view), dst)
    assert out.is_contiguous()
    assert out.shape == view.shape
    np.testing.assert_array_equal(out.numpy(), view.astype(NUMPY_OF[dst]))


def test_cast_to_the_same_dtype_is_a_new_copy():
    a = np.arange(6, dtype=np.float32)
    out = loops._cast(torch.from_numpy(a), torch.float32)
    assert not np.shares_memory(out.numpy(), a)
    a[0] = 100
    assert out.tolist()[0] == 0.0


def test_cast_of_empty_and_zero_dim_tensors():
    assert loops._cast(torch.zeros(0, 3), torch.int8).shape == (0, 3)
    out = loops._cast(torch.tensor(2.75), torch.int64)
    assert out.shape == () and out.item() == 2


# ---------------------------------------------------------------------------------------------
# copy


@pytest.mark.parametrize("src, dst", CAST_PAIRS)
def test_copy_converts_like_the_cast_table(src, dst):
    a = cast_values(src, dst)
    out = torch.empty(a.shape, dtype=dst)
    assert loops._copy(out, torch.from_numpy(a)) is out
    np.testing.assert_array_equal(out.numpy(), a.astype(NUMPY_OF[dst]))


@pytest.mark.parametrize("src_shape, dst_shape", [
    ((), (2, 3)), ((1,), (4,)), ((3,), (2, 3)), ((2, 1), (2, 3)), ((1, 3), (4, 3)), ((2, 1, 4), (2, 3, 4)),
    ((3, 1), (2, 3, 5)), ((1, 1), (1, 1)), ((5,), (0, 5)),
])
def test_copy_broadcasts_the_source_to_the_destination_shape(src_shape, dst_shape):
    rng = np.random.default_rng(0)
    src = rng.integers(-50, 50, size=src_shape).astype(np.int32)
    dst = torch.zeros(dst_shape, dtype=torch.float64)
    loops._copy(dst, torch.from_numpy(np.asarray(src)))
    np.testing.assert_array_equal(dst.numpy(), np.broadcast_to(src, dst_shape).astype(np.float64))


def test_copy_into_a_strided_view_writes_only_the_viewed_elements():
    base = np.zeros((4, 6), dtype=np.int64)
    view = torch.from_numpy(base[::2, 1::2])  # (2, 3)
    loops._copy(view, torch.tensor([1.5, 2.5, 3.5]))
    expected = np.zeros((4, 6), dtype=np.int64)
    expected[::2, 1::2] = [1, 2, 3]
    np.testing.assert_array_equal(base, expected)


def test_copy_from_a_transposed_source_matches_numpy():
    src = np.arange(12, dtype=np.float32).reshape(3, 4).T
    dst = torch.empty(4, 3, dtype=torch.float64)
    loops._copy(dst, torch.from_numpy(src))
    np.testing.assert_array_equal(dst.numpy(), src.astype(np.float64))


@pytest.mark.parametrize("src_shape, dst_shape", [((2, 3), (3,)), ((4,), (3,)), ((2, 3), (3, 3)), ((2,), ())])
def test_copy_of_a_source_that_does_not_broadcast_to_the_destination_is_a_runtime_error(src_shape, dst_shape):
    with pytest.raises(RuntimeError):
        loops._copy(torch.zeros(dst_shape), torch.ones(src_shape))


def test_copy_method_and_fill_use_the_same_conversions():
    t = torch.zeros(2, 2, dtype=torch.uint8)
    t.copy_(torch.tensor([-1, 256]))
    assert t.tolist() == [[255, 0], [255, 0]]
    t.fill_(7)
    assert t.tolist() == [[7, 7], [7, 7]]


# ---------------------------------------------------------------------------------------------
# Large tensors: the GIL threshold and the grain size, with one and two threads


SIZES = [NOGIL_THRESHOLD - 1, NOGIL_THRESHOLD, GRAIN_SIZE - 1, GRAIN_SIZE, GRAIN_SIZE + 1, 100_003]


@pytest.mark.parametrize("nthreads", [1, 2])
@pytest.mark.parametrize("n", SIZES)
def test_a_contiguous_add_of_any_size_matches_numpy(threads, n, nthreads):
    torch.set_num_threads(nthreads)
    a = np.arange(n, dtype=np.int64)
    b = np.arange(n, dtype=np.int64)[::-1].copy() * 3
    out = torch.add(torch.from_numpy(a), torch.from_numpy(b))
    np.testing.assert_array_equal(out.numpy(), a + b)


@pytest.mark.parametrize("nthreads", [1, 2])
@pytest.mark.parametrize("n", [GRAIN_SIZE - 1, GRAIN_SIZE + 1, 100_003])
def test_a_large_cast_and_copy_match_numpy(threads, n, nthreads):
    torch.set_num_threads(nthreads)
    a = (np.arange(n, dtype=np.float64) - n / 2) * 0.37
    out = loops._cast(torch.from_numpy(a), torch.int32)
    np.testing.assert_array_equal(out.numpy(), a.astype(np.int32))
    dst = torch.empty(n, dtype=torch.float32)
    loops._copy(dst, torch.from_numpy(a))
    np.testing.assert_array_equal(dst.numpy(), a.astype(np.float32))


@pytest.mark.parametrize("nthreads", [1, 2])
@pytest.mark.parametrize("case", ["many-rows", "broadcast-column", "broadcast-row", "three-long-rows",
                                  "stride-two"])
def test_large_non_contiguous_and_broadcast_ops_match_numpy(threads, case, nthreads):
    torch.set_num_threads(nthreads)
    rng = np.random.default_rng(1)
    if case == "many-rows":            # transposed: 300 rows of 200
        a = np.ascontiguousarray(rng.standard_normal((200, 300))).T
        b = rng.standard_normal((300, 200))
    elif case == "broadcast-column":   # (400, 1) against (400, 100)
        a = rng.standard_normal((400, 1))
        b = rng.standard_normal((400, 100))
    elif case == "broadcast-row":      # (1, 40000) against (2, 40000): 2 rows
        a = rng.standard_normal((1, 40_000))
        b = rng.standard_normal((2, 40_000))
    elif case == "three-long-rows":    # fewer rows than a 4-thread split
        a = rng.standard_normal((3, 40_000))[:, ::2]
        b = rng.standard_normal((3, 20_000))
    else:                              # one strided row
        a = rng.standard_normal(80_000)[::2]
        b = rng.standard_normal(40_000)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    np.testing.assert_array_equal(torch.mul(ta, tb).numpy(), a * b)
    np.testing.assert_allclose(torch.sub(ta, tb, alpha=2).numpy(), a - 2 * b, rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(torch.div(ta, tb).numpy(), a / b)


def test_two_threads_give_bitwise_the_same_results_as_one(threads):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((250, 400)).astype(np.float32)
    b = rng.standard_normal((400,)).astype(np.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    results = []
    for nthreads in (1, 2, 4):
        torch.set_num_threads(nthreads)
        results.append([torch.add(ta, tb, alpha=0.5).numpy().copy(), torch.exp(ta).numpy().copy(),
                        torch.div(tb, ta).numpy().copy(), loops._cast(ta, torch.int16).numpy().copy()])
    for other in results[1:]:
        for x, y in zip(results[0], other, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("grain", [1, 7, 4096, 10**9])
def test_any_grain_size_gives_the_same_results(threads, grain):
    torch.set_num_threads(2)
    loops.set_grain_size(grain)
    a = np.arange(9_000, dtype=np.int32).reshape(90, 100)
    out = torch.add(torch.from_numpy(a.T), torch.from_numpy(a.T[:, :1]))
    np.testing.assert_array_equal(out.numpy(), a.T + a.T[:, :1])
    np.testing.assert_array_equal(loops._cast(torch.from_numpy(a.T), torch.float64).numpy(), a.T.astype(np.float64))


def test_more_threads_than_rows_or_elements_still_covers_every_element(threads):
    torch.set_num_threads(16)
    loops.set_grain_size(1)
    a = np.arange(5_000, dtype=np.float64)
    np.testing.assert_array_equal(torch.neg(torch.from_numpy(a)).numpy(), -a)
    m = np.arange(5_000, dtype=np.int64).reshape(5, 1000)[:, ::2]   # 5 strided rows, 16 threads
    np.testing.assert_array_equal(torch.mul(torch.from_numpy(m), 3).numpy(), m * 3)


def test_a_large_bool_sum_and_add_cross_the_grain_size(threads):
    torch.set_num_threads(2)
    mask = np.zeros(70_000, dtype=bool)
    mask[::3] = True
    t = torch.from_numpy(mask)
    assert torch.sum(t).item() == int(mask.sum())
    np.testing.assert_array_equal(torch.add(t, t).numpy(), mask)
