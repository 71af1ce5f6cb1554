"""Creation operators: arange (dtype inference, size, PyTorch's element arithmetic), linspace and
logspace (filled from both ends), eye, empty_strided, the *_like ops and their memory formats,
scalar_tensor, clone; errors with PyTorch's types and messages (recorded from PyTorch 2.13).

PyTorch's float results are reproduced bit for bit: the references below compute its formulas
exactly (fused multiply-adds through fractions, then one rounding)."""
from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from dtype_cases import ALL_DTYPES, NUMPY_OF, dtype_id

INTEGRAL = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


@pytest.fixture
def default_float64():
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(torch.float32)


def fma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once to float64."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def round_f32(x: Fraction) -> np.float32:
    """x rounded once to float32 (nearest, ties to even)."""
    guess = np.float32(float(x))
    candidates = [guess, np.nextafter(guess, np.float32(np.inf)), np.nextafter(guess, np.float32(-np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - x), int(np.float32(c).view(np.int32)) & 1))


def fmaf(a: np.float32, b: np.float32, c: np.float32) -> np.float32:
    return round_f32(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


# ---------------------------------------------------------------------------------------------
# arange

@pytest.mark.parametrize("args, dtype", [
    ((5,), torch.int64), ((1, 5), torch.int64), ((1, 5, 2), torch.int64), ((True,), torch.int64),
    ((0, True, True), torch.int64), ((5.0,), torch.float32), ((1, 5.5), torch.float32), ((0, 1, 0.25), torch.float32),
])
def test_arange_infers_int64_from_integers_else_the_default_dtype(args, dtype):
    assert torch.arange(*args).dtype is dtype


def test_arange_float_arguments_follow_the_default_dtype(default_float64):
    assert torch.arange(3.0).dtype is torch.float64
    assert torch.arange(3).dtype is torch.int64


@pytest.mark.parametrize("start, end, step", [(0, 10, 3), (10, 0, -3), (0, -5, -1), (2, 2, 1), (0, 1, 1), (-7, 8, 5)])
@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d is not torch.bool], ids=dtype_id)
def test_arange_integer_ranges_match_python_range(start, end, step, dtype):
    out = torch.arange(start, end, step, dtype=dtype)
    assert out.dtype is dtype
    np.testing.assert_array_equal(out.numpy(), np.array(range(start, end, step)).astype(NUMPY_OF[dtype]))


@pytest.mark.parametrize("start, end, step, n", [(0, 1, 0.1, 10), (0.1, 0.4, 0.1, 4), (1.0, 2.0, 0.3, 4),
                                                 (0, 1e9, 2 ** 20, 954), (1, -1, -0.5, 4), (-3.3, 7.1, 0.37, 29)])
def test_arange_size_is_the_ceiling_of_the_range_over_the_step(start, end, step, n):
    assert tuple(torch.arange(start, end, step).shape) == (n,)
    assert tuple(torch.arange(start, end, step, dtype=torch.float64).shape) == (n,)


def test_arange_integral_dtype_converts_the_arguments_first():
    # int64 computes the size from the truncated arguments: (5 - 0) / 1, not ceil(5.2 / 1).
    assert torch.arange(0.5, 5.7, 1, dtype=torch.int64).tolist() == [0, 1, 2, 3, 4]
    assert torch.arange(0, 5.7, 1.9, dtype=torch.int64).tolist() == [0, 1, 2, 3, 4]
    # other integral dtypes take the size from the float arguments and step in int64
    assert torch.arange(0, 5.7, 1.9, dtype=torch.int32).tolist() == [0, 1, 2, 3]
    assert torch.arange(0, 2.5, 0.5, dtype=torch.int32).tolist() == [0, 0, 0, 0, 0]
    assert torch.arange(300, dtype=torch.uint8).tolist()[-3:] == [41, 42, 43]
    assert torch.arange(2 ** 62, 2 ** 62 + 3).tolist() == [2 ** 62, 2 ** 62 + 1, 2 ** 62 + 2]


def arange_reference(start: float, step: float, n: int, dtype: torch.dtype) -> np.ndarray:
    """PyTorch's AVX2 arange loop: blocks of 2 vectors whose elements are base + k * step,
    base = start + step * i (both fused, in double), the tail element by element."""
    width = 8 if dtype is torch.float32 else 4
    out = np.empty(n, dtype=NUMPY_OF[dtype])
    i = 0
    while i + 2 * width <= n:
        for j in (i, i + width):
            base = fma(step, j, start)
            if dtype is torch.float32:
                base = float(np.float32(base))
            out[j] = base
            for k in range(1, width):
                out[j + k] = fma(k, step, base)
        i += 2 * width
    for j in range(i, n):
        out[j] = fma(step, j, start)
    return out


@settings(max_examples=60, deadline=None)
@given(start=st.floats(-100, 100), step=st.floats(0.001, 10), n=st.integers(1, 70),
       dtype=st.sampled_from([torch.float32, torch.float64]), down=st.booleans())
def test_arange_floats_are_bit_exact_with_pytorchs_loop(start, step, n, dtype, down):
    step = -step if down else step
    end = start + step * (n - 0.5)
    out = torch.arange(start, end, step, dtype=dtype)
    expected = arange_reference(start, step, out.numel(), dtype)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_arange_float32_values_recorded_from_pytorch():
    assert torch.arange(0, 1, 1 / 3, dtype=torch.float32).tolist() == [0.0, 0.3333333432674408, 0.6666666865348816]


# ---------------------------------------------------------------------------------------------
# linspace, logspace

def linspace_reference(start: float, end: float, n: int, dtype: torch.dtype) -> np.ndarray:
    """PyTorch's kernel: start + step * i for the first half, end - step * (n - 1 - i) for the
    rest, fused, in the dtype (in double, then truncated, for integral dtypes)."""
    out = np.empty(n, dtype=NUMPY_OF[dtype])
    half = n // 2
    if dtype is torch.float32:
        s, e = np.float32(start), np.float32(end)
        step = round_f32(Fraction(float(e)) - Fraction(float(s))) if n > 1 else np.float32(0)
        step = round_f32(Fraction(float(step)) / (n - 1)) if n > 1 else step
        for i in range(n):
            out[i] = fmaf(step, np.float32(i), s) if i < half else fmaf(-step, np.float32(n - i - 1), e)
        return out
    if dtype is torch.float64:
        s, e = float(start), float(end)
    else:
        s, e = float(int(start)), float(int(end))
    step = (e - s) / (n - 1)
    for i in range(n):
        v = fma(step, i, s) if i < half else fma(-step, n - i - 1, e)
        out[i] = v if dtype is torch.float64 else int(v)
    return out


@settings(max_examples=80, deadline=None)
@given(start=st.floats(-1000, 1000), end=st.floats(-1000, 1000), n=st.integers(2, 60),
       dtype=st.sampled_from([torch.float32, torch.float64]))
def test_linspace_fills_from_both_ends_bit_exact(start, end, n, dtype):
    np.testing.assert_array_equal(torch.linspace(start, end, n, dtype=dtype).numpy(),
                                  linspace_reference(start, end, n, dtype))


@pytest.mark.parametrize("dtype", INTEGRAL, ids=dtype_id)
def test_linspace_integral_dtypes_truncate(dtype):
    for start, end, n in [(0, 10, 5), (10, 0, 4), (0.5, 10.9, 5), (3, 100, 7)]:
        np.testing.assert_array_equal(torch.linspace(start, end, n, dtype=dtype).numpy(),
                                      linspace_reference(start, end, n, dtype))


def test_linspace_endpoints_are_exact_and_values_recorded_from_pytorch():
    out = torch.linspace(-3.3, 17.9, 23)
    assert out.tolist()[:4] == [-3.299999952316284, -2.3363635540008545, -1.3727272748947144, -0.40909093618392944]
    assert out.tolist()[0] == float(np.float32(-3.3)) and out.tolist()[-1] == float(np.float32(17.9))


def test_linspace_special_step_counts_and_dtypes():
    assert torch.linspace(0, 10, 5).dtype is torch.float32        # ints do not make it integral
    assert torch.linspace(0, 10, 0).shape == (0,)
    assert torch.linspace(3.7, 10, 1, dtype=torch.int32).tolist() == [3]
    assert torch.linspace(0, 10, 1).tolist() == [0.0]
    assert torch.linspace(True, False, 3).tolist() == [1.0, 0.5, 0.0]
    assert all(math.isnan(v) for v in torch.linspace(0, float("inf"), 3).tolist())
    assert torch.linspace(-1, 0, 3, dtype=torch.uint8).tolist() == [255, 127, 0]   # -1 wraps to 255 first


def test_linspace_and_logspace_follow_the_default_dtype(default_float64):
    assert torch.linspace(0, 1, 3).dtype is torch.float64
    assert torch.logspace(0, 1, 3).dtype is torch.float64


def logspace_reference(start: float, end: float, n: int, base: float, dtype: torch.dtype) -> np.ndarray:
    out = np.empty(n, dtype=NUMPY_OF[dtype])
    if dtype is torch.float32:
        s, e = float(np.float32(start)), float(np.float32(end))
        step = float(np.float32(np.float32(end) - np.float32(start))) / (n - 1)
    elif dtype is torch.float64:
        s, e = float(start), float(end)
        step = (e - s) / (n - 1)
    else:
        s, e = float(int(start)), float(int(end))
        step = (e - s) / (n - 1)
        base = float(np.float32(base))            # PyTorch uses a float base for integral dtypes
    for i in range(n):
        exponent = s + step * i if i < n // 2 else e - step * (n - i - 1)
        v = math.pow(base, exponent)
        out[i] = v if dtype.is_floating_point else int(v)
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("start, end, n, base", [(0, 3, 4, 10.0), (-1.7, 2.9, 17, 10.0), (-1.7, 2.9, 17, 3.3),
                                                 (0, 6, 7, 2.0), (2.5, -2.5, 11, 0.5)])
def test_logspace_is_bit_exact_with_pytorchs_loop(start, end, n, base, dtype):
    np.testing.assert_array_equal(torch.logspace(start, end, n, base=base, dtype=dtype).numpy(),
                                  logspace_reference(start, end, n, base, dtype))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=dtype_id)
def test_logspace_integral_dtypes_use_a_float_base(dtype):
    assert torch.logspace(0, 3, 4, base=2.7, dtype=dtype).tolist() == [1, 2, 7, 19]
    np.testing.assert_array_equal(torch.logspace(-1.7, 2.9, 17, base=2.7, dtype=dtype).numpy(),
                                  logspace_reference(-1.7, 2.9, 17, 2.7, dtype))
    assert torch.logspace(1.5, 3, 1, dtype=dtype).tolist() == [31]     # one step: base ** start
    assert torch.logspace(-2, 3, 6, dtype=torch.int8).tolist() == [0, 0, 1, 10, 100, -24]   # 1000 wraps


def test_logspace_negative_base():
    assert torch.logspace(0, 3, 4, base=-2).tolist() == [1.0, -2.0, 4.0, -8.0]


# ---------------------------------------------------------------------------------------------
# eye, empty_strided, scalar_tensor

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_eye_matches_numpy(dtype):
    for args in [(3,), (2, 4), (4, 2), (0,), (3, 0)]:
        out = torch.eye(*args, dtype=dtype)
        assert out.dtype is dtype
        np.testing.assert_array_equal(out.numpy(), np.eye(*args, dtype=NUMPY_OF[dtype]))
    assert torch.eye(n=2, m=3).tolist() == np.eye(2, 3).tolist()
    assert torch.eye(2).dtype is torch.float32


def test_empty_strided_has_the_strides_and_the_storage_they_need():
    t = torch.empty_strided((2, 3), (1, 2))
    assert (tuple(t.shape), t.stride(), t.dtype) == ((2, 3), (1, 2), torch.float32)
    assert t._untyped_storage.nbytes() == (1 + 1 * 1 + 2 * 2) * 4
    assert torch.empty_strided((2, 3), (0, 0))._untyped_storage.nbytes() == 4
    assert torch.empty_strided((0, 3), (1, 2))._untyped_storage.nbytes() == 0
    assert torch.empty_strided((), (), dtype=torch.int32).dtype is torch.int32
    assert torch.empty_strided((2, 3), (1, 2), device="cpu", layout=torch.strided).stride() == (1, 2)


@pytest.mark.parametrize("value, dtype, expected", [(3, None, torch.float32), (3.5, None, torch.float32),
                                                    (True, None, torch.float32), (3, torch.int64, torch.int64),
                                                    (3.7, torch.int32, torch.int32), (True, torch.bool, torch.bool)])
def test_scalar_tensor_is_0_dim_in_the_default_or_given_dtype(value, dtype, expected):
    out = torch.scalar_tensor(value, dtype=dtype)
    assert out.dim() == 0 and out.dtype is expected
    assert out.item() == np.array(value).astype(NUMPY_OF[expected]).item()


# ---------------------------------------------------------------------------------------------
# *_like and clone: memory formats

def _t(*shape: int, dtype: type = np.float32) -> torch.Tensor:
    return torch.from_numpy(np.arange(math.prod(shape), dtype=dtype).reshape(shape))


@pytest.mark.parametrize("make", [torch.empty_like, torch.zeros_like, torch.ones_like,
                                  lambda t, **kw: torch.full_like(t, 7, **kw), torch.clone])
@pytest.mark.parametrize("src, strides", [
    (lambda: _t(2, 3).t(), (1, 3)),                                        # dense: the same strides
    (lambda: _t(3, 1, 2).transpose(0, 1), (2, 2, 1)),
    (lambda: _t(2, 3, 4).narrow(1, 0, 2).transpose(0, 2), (1, 4, 8)),      # not dense: dense in the same order
    (lambda: _t(2, 1, 4, 5).unfold(2, 1, 2).squeeze(-1), (10, 10, 5, 1)),
    (lambda: _t(4, 1, 3, 2).permute(0, 2, 3, 1).narrow(1, 0, 2), (4, 2, 1, 4)),
    (lambda: _t(3, 1).narrow(0, 0, 1).expand(2, 2, 1), (2, 1, 1)),
    (lambda: _t(3, 1).expand(3, 4), (4, 1)),
])
def test_preserve_format_keeps_the_stride_order(make, src, strides):
    t = src()
    out = make(t)
    assert (tuple(out.shape), out.stride()) == (tuple(t.shape), strides)


@pytest.mark.parametrize("make", [torch.empty_like, torch.zeros_like, torch.ones_like, torch.clone])
def test_memory_format_contiguous_and_channels_last(make):
    t = _t(2, 3).t()
    assert make(t, memory_format=torch.contiguous_format).stride() == (2, 1)
    assert make(_t(2, 3, 4, 5), memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        make(t, memory_format=torch.channels_last)


def test_like_ops_take_dtype_and_fill_values():
    t = _t(2, 3, dtype=np.int32)
    assert torch.zeros_like(t).dtype is torch.int32 and not torch.zeros_like(t).numpy().any()
    assert torch.ones_like(t, dtype=torch.bool).numpy().all()
    assert torch.full_like(_t(2, 3, dtype=np.int64), 7.5).tolist() == [[7, 7, 7]] * 2
    assert torch.full_like(_t(2, 3), 7, dtype=torch.int32).dtype is torch.int32
    assert torch.empty_like(t, dtype=torch.float64).dtype is torch.float64
    assert torch.zeros_like(torch.tensor(5)).tolist() == 0


def test_clone_copies_and_keeps_float16():
    t = _t(2, 3)
    c = t.clone()
    c.fill_(0)
    assert t.numpy().any() and c.data_ptr() != t.data_ptr()
    h = torch.from_numpy(np.arange(6, dtype=np.float16).reshape(2, 3))
    for out in (h.clone(), h.t().contiguous(), h.flip(0), h.transpose(0, 1).reshape(6), torch.cat([h, h])):
        assert out.dtype is torch.float16
    np.testing.assert_array_equal(h.flip(1).numpy(), np.flip(h.numpy(), 1))


# ---------------------------------------------------------------------------------------------
# Errors

ERRORS = [
    (lambda: torch.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    (lambda: torch.arange(0, 2.5, 0.5, dtype=torch.int64), ValueError, "step must be nonzero"),
    (lambda: torch.arange(0, float("inf")), RuntimeError, "unsupported range: 0 -> inf"),
    (lambda: torch.arange(float("nan")), RuntimeError, "unsupported range: 0 -> nan"),
    (lambda: torch.arange(-1.5, float("inf")), RuntimeError, "unsupported range: -1.5 -> inf"),
    (lambda: torch.arange(0, -5), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
    (lambda: torch.arange(5, 0, 1), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
    (lambda: torch.arange(0, 5, -0.5, dtype=torch.int64), RuntimeError,
     "upper bound and lower bound inconsistent with step sign"),
    (lambda: torch.arange(0, 1e20), RuntimeError, "invalid size, possible overflow?"),
    (lambda: torch.arange(0, 2 ** 63), RuntimeError, "value cannot be converted to type int64_t without overflow"),
    (lambda: torch.arange(5, dtype=torch.bool), NotImplementedError, "\"arange_cpu\" not implemented for 'Bool'"),
    (lambda: torch.linspace(0, 10, -1), RuntimeError, "number of steps must be non-negative"),
    (lambda: torch.linspace(0, 10, 5, dtype=torch.bool), NotImplementedError,
     "\"linspace_cpu\" not implemented for 'Bool'"),
    (lambda: torch.linspace(-1, 300, 5, dtype=torch.uint8), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: torch.linspace(0, 1000, 5, dtype=torch.int8), RuntimeError,
     "value cannot be converted to type int8_t without overflow"),
    (lambda: torch.logspace(0, 3, -2), RuntimeError, "number of steps must be non-negative"),
    (lambda: torch.logspace(0, 3, 4, dtype=torch.bool), NotImplementedError,
     "\"logspace_cpu\" not implemented for 'Bool'"),
    (lambda: torch.eye(-1), RuntimeError, "n must be greater or equal to 0, got -1"),
    (lambda: torch.eye(2, -1), RuntimeError, "m must be greater or equal to 0, got -1"),
    (lambda: torch.empty_strided((2, 3), (3,)), RuntimeError,
     "dimensionality of sizes (2) must match dimensionality of strides (1)"),
    (lambda: torch.empty_strided((2, 3), (-1, 2)), RuntimeError,
     "Storage size calculation overflowed with sizes=[2, 3] and strides=[-1, 2]"),
    (lambda: torch.empty_strided((2, -3), (1, -2)), RuntimeError,
     "Trying to create tensor with negative dimension -3: [2, -3]"),
    (lambda: torch.full_like(torch.zeros((2, 3), dtype=torch.uint8), 300), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: torch.scalar_tensor(300, dtype=torch.uint8), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: torch.zeros_like(_t(2, 3), memory_format=torch.channels_last), RuntimeError,
     "required rank 4 tensor to use channels_last format"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[f"{i}-{e[2][:40]}" for i, e in enumerate(ERRORS)])
def test_errors_match_pytorch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


_NEW_TENSORS = {
    "zeros_like": lambda x: torch.zeros_like(x), "ones_like": lambda x: torch.ones_like(x),
    "full_like": lambda x: torch.full_like(x, 2.0), "empty_like": lambda x: torch.empty_like(x),
    "new_zeros": lambda x: x.new_zeros((2, 3)), "new_ones": lambda x: x.new_ones((2,)),
    "new_full": lambda x: x.new_full((2,), 3.0), "new_empty": lambda x: x.new_empty((2,)),
    "clone": lambda x: x.clone(), "contiguous": lambda x: x.t().contiguous(),
    "full": lambda x: torch.full((2,), 1.0, device=x.device), "zeros": lambda x: torch.zeros(2, device=x.device),
    "scalar_tensor": lambda x: torch.scalar_tensor(1.0, device=x.device),
    "arange": lambda x: torch.arange(3, device=x.device),
    "arange float16": lambda x: torch.arange(3, dtype=torch.float16, device=x.device),
    "linspace 1 step": lambda x: torch.linspace(0, 1, 1, device=x.device),
    "linspace float16": lambda x: torch.linspace(0, 1, 5, dtype=torch.float16, device=x.device),
    "logspace 1 step": lambda x: torch.logspace(0, 1, 1, device=x.device),
    "eye": lambda x: torch.eye(3, device=x.device),
}


@pytest.mark.parametrize("name", sorted(_NEW_TENSORS))
def test_a_new_tensor_starts_at_version_0_whatever_filled_it(name):
    # PyTorch counts only the writes a user sees: a factory's own fill is not one (0 for all of these).
    assert _NEW_TENSORS[name](torch.ones(2, 3))._version == 0


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
@pytest.mark.parametrize("name", sorted(_NEW_TENSORS))
def test_a_new_cuda_tensor_starts_at_version_0_whatever_filled_it(name):
    assert _NEW_TENSORS[name](torch.ones(2, 3, device="cuda"))._version == 0
