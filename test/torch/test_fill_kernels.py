"""The one-step CPU creation kernels and fills (aten/native/cpu/empty.pyx, fill.pyx): zeros, ones,
full, scalar_tensor, the *_like and new_* ops, fill_ and zero_. Values are converted once as
PyTorch's Scalar.to<T>() does (its overflow errors, recorded from PyTorch 2.13); fills reach
every element of strided, transposed and expanded views; CUDA requests keep the composites."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from aten.dispatcher import find_operator
from c10.dispatch_key import DispatchKey
from dtype_cases import ALL_DTYPES, NUMPY_OF, dtype_id

INTEGRAL = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
REPO = Path(__file__).parents[2]


def expected_fill(value: object, dtype: torch.dtype) -> np.ndarray:
    """value converted to dtype as a C cast does (in range: what Scalar.to<T>() gives)."""
    if isinstance(value, bool) or dtype is torch.bool:
        return np.array(bool(value) if dtype is torch.bool else int(value)).astype(NUMPY_OF[dtype])
    return np.array(value).astype(NUMPY_OF[dtype])


def values_for(dtype: torch.dtype) -> list[object]:
    """In-range fill values of every Python kind for dtype."""
    if dtype is torch.bool:
        return [True, False, 0, 2, 0.0, 0.1, float("nan"), float("-inf")]
    if dtype.is_floating_point:
        big = 3.0e38 if dtype is torch.float32 else 1.0e300
        return [True, 0, -7, 16777217, 2 ** 62 + 1, 2.5, -0.0, big, float("inf"), float("nan")]
    info = np.iinfo(NUMPY_OF[dtype])
    top = float(info.max) if dtype is not torch.int64 else 2.0 ** 62    # float(int64 max) is 2**63
    return [True, False, int(info.min) if info.min else -1, int(info.max), 0, 2.7, -0.0, top]


# -- values and dtypes ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_full_and_fill_convert_each_kind_of_value_as_a_c_cast(dtype):
    for value in values_for(dtype):
        want = np.broadcast_to(expected_fill(value, dtype), (2, 3))
        got = torch.full((2, 3), value, dtype=dtype)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), want, err_msg=repr(value))
        filled = torch.empty(2, 3, dtype=dtype).fill_(value)
        np.testing.assert_array_equal(filled.numpy(), want, err_msg=repr(value))


def test_unsigned_fill_wraps_negative_ints_down_to_minus_max():
    assert torch.full((2,), -1, dtype=torch.uint8).tolist() == [255, 255]
    assert torch.full((1,), -255, dtype=torch.uint8).tolist() == [1]


def test_full_infers_its_dtype_from_the_value():
    assert torch.full((2,), True).dtype == torch.bool
    assert torch.full((2,), 3).dtype == torch.int64
    assert torch.full((2,), 2.5).dtype == torch.get_default_dtype()
    assert torch.full((2,), 3, dtype=None).dtype == torch.int64
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.full((2,), 2.5).dtype == torch.float64
        assert torch.zeros(2).dtype == torch.float64
        assert torch.ones(2).dtype == torch.float64
        assert torch.scalar_tensor(3).dtype == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)


def test_large_python_ints_fill_floating_dtypes_as_pytorch_s_uint64_scalars():
    assert torch.full((1,), 2 ** 64 - 1, dtype=torch.float64).item() == float(2 ** 64 - 1)
    assert torch.full((1,), 2 ** 63, dtype=torch.float32).item() == float(np.float32(2 ** 63))
    assert torch.full((1,), 2 ** 63, dtype=torch.bool).item() is True


@pytest.mark.parametrize("dtype,value,name", [
    (torch.uint8, 256, "uint8_t"), (torch.uint8, -256, "uint8_t"), (torch.uint8, -1.0, "uint8_t"),
    (torch.uint8, 255.9, "uint8_t"), (torch.int8, 127.5, "int8_t"), (torch.int8, -128.5, "int8_t"),
    (torch.int16, 40000, "int16_t"), (torch.int32, 2.0 ** 31, "int"), (torch.int32, float("nan"), "int"),
    (torch.int64, float("inf"), "int64_t"), (torch.int64, 2 ** 63, "int64_t"), (torch.int8, 2 ** 63, "int8_t"),
    (torch.float32, 1e300, "float"), (torch.float32, -1e39, "float"),
])
def test_values_out_of_the_dtype_s_range_are_pytorch_s_overflow_error(dtype, value, name):
    message = f"value cannot be converted to type {name} without overflow"
    with pytest.raises(RuntimeError, match=message):
        torch.full((2,), value, dtype=dtype)
    with pytest.raises(RuntimeError, match=message):
        torch.zeros(2, dtype=dtype).fill_(value)
    with pytest.raises(RuntimeError, match=message):
        torch.full_like(torch.zeros(2, dtype=dtype), value)


@pytest.mark.parametrize("value,message", [(2 ** 64, "int too big to convert"),
                                           (-2 ** 63 - 1, "can't convert negative int to unsigned")])
def test_ints_beyond_64_bits_are_overflow_errors(value, message):
    with pytest.raises(OverflowError, match=message):
        torch.full((2,), value, dtype=torch.float64)
    with pytest.raises(OverflowError, match=message):
        torch.zeros(2).fill_(value)


def test_negative_sizes_give_each_op_s_pytorch_message():
    with pytest.raises(RuntimeError, match="^zeros: Dimension size must be non-negative.$"):
        torch.zeros(-1, 2)
    with pytest.raises(RuntimeError, match="^zeros: Dimension size must be non-negative.$"):
        torch.zeros((2, -3), dtype=torch.int32)
    for make in (lambda: torch.ones([-1, 2]), lambda: torch.full((-1, 2), 3), lambda: torch.empty(-1, 2),
                 lambda: torch.zeros(2).new_zeros((-1, 2)), lambda: torch.zeros(2).new_full((-1, 2), 1.0)):
        with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1, 2\]$"):
            make()


def test_layout_and_pin_memory_are_checked_by_the_cpu_kernels():
    with pytest.raises(RuntimeError, match="pin_memory=True"):
        torch.zeros(2, pin_memory=True)
    with pytest.raises(RuntimeError, match="pin_memory=True"):
        torch.full((2,), 1.0, pin_memory=True)
    assert torch.ones(2, layout=torch.strided).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_zeros_ones_and_scalar_tensor_in_every_dtype(dtype):
    np_dtype = NUMPY_OF[dtype]
    for shape in [(), (0,), (3, 4), (2, 0, 5), (1, 1, 1)]:
        z = torch.zeros(shape, dtype=dtype)
        o = torch.ones(*shape, dtype=dtype) if shape else torch.ones((), dtype=dtype)
        assert z.dtype == dtype and o.dtype == dtype and tuple(z.shape) == shape
        np.testing.assert_array_equal(z.numpy(), np.zeros(shape, np_dtype))
        np.testing.assert_array_equal(o.numpy(), np.ones(shape, np_dtype))
    np.testing.assert_array_equal(torch.scalar_tensor(True, dtype=dtype).numpy(), np.array(1).astype(np_dtype))


def test_large_fills_reach_every_element():
    n = (1 << 16) + 3
    np.testing.assert_array_equal(torch.zeros(n, dtype=torch.float64).numpy(), np.zeros(n))
    np.testing.assert_array_equal(torch.full((n,), -2, dtype=torch.int16).numpy(), np.full(n, -2, np.int16))
    t = torch.ones(n, dtype=torch.int64)
    t.zero_()
    np.testing.assert_array_equal(t.numpy(), np.zeros(n, np.int64))
    s = torch.ones(n, 2, dtype=torch.float32).t()
    s.fill_(0.5)
    np.testing.assert_array_equal(s.numpy(), np.full((2, n), 0.5, np.float32))


# -- *_like and new_* -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_new_ops_take_self_s_dtype_unless_given(dtype):
    base = torch.zeros(2, 3, dtype=dtype)
    np_dtype = NUMPY_OF[dtype]
    np.testing.assert_array_equal(base.new_zeros((4, 2)).numpy(), np.zeros((4, 2), np_dtype))
    np.testing.assert_array_equal(base.new_ones(3).numpy(), np.ones(3, np_dtype))
    np.testing.assert_array_equal(base.new_ones(size=(2,)).numpy(), np.ones(2, np_dtype))
    np.testing.assert_array_equal(base.new_full((2, 2), True).numpy(), np.full((2, 2), 1).astype(np_dtype))
    assert base.new_empty((2, 5)).dtype == dtype and tuple(base.new_empty(2, 5).shape) == (2, 5)
    assert base.new_zeros(()).shape == ()
    assert base.new_zeros((2,), dtype=torch.int8).dtype == torch.int8
    assert base.new_empty_strided((2, 3), (1, 2)).stride() == (1, 2)
    assert base.new_empty_strided((2, 3), (1, 2)).dtype == dtype


def test_new_full_converts_the_value_to_self_s_dtype_without_inferring_one():
    assert torch.zeros(2).new_full((2,), 2.5).tolist() == [2.5, 2.5]
    assert torch.zeros(2).new_full((2,), True).dtype == torch.float32
    assert torch.zeros(2, dtype=torch.int32).new_full((2,), 2.5).tolist() == [2, 2]


def test_new_ops_reject_a_bare_int_size_like_pytorch():
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        torch.zeros(2).new_full(2, 1)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_like_ops_keep_self_s_stride_order_and_fill(dtype):
    base = torch.zeros(2, 3, 4, dtype=dtype).permute(2, 0, 1)
    np_dtype = NUMPY_OF[dtype]
    for make, fill in [(torch.zeros_like, 0), (torch.ones_like, 1), (lambda t: torch.full_like(t, 5), 5)]:
        out = make(base)
        assert out.stride() == base.stride() and out.dtype == dtype
        np.testing.assert_array_equal(out.numpy(), np.full((4, 2, 3), fill).astype(np_dtype))
    assert torch.empty_like(base).stride() == base.stride()
    assert torch.zeros_like(base, memory_format=torch.contiguous_format).is_contiguous()
    assert torch.ones_like(base, dtype=torch.float64).dtype == torch.float64


# -- fill_ and zero_ on views ---------------------------------------------------------------

@st.composite
def strided_views(draw):
    """A base length, and sizes, strides (zero strides included) and offset that stay inside it."""
    nd = draw(st.integers(0, 4))
    sizes = [draw(st.integers(0, 4)) for _ in range(nd)]
    strides = [draw(st.integers(0, 7)) for _ in range(nd)]
    offset = draw(st.integers(0, 5))
    extent = offset + sum((s - 1) * k for s, k in zip(sizes, strides) if s > 0) + 1
    return extent, tuple(sizes), tuple(strides), offset


@settings(max_examples=150, deadline=None)
@given(view=strided_views(), dtype=st.sampled_from(ALL_DTYPES), zero=st.booleans())
def test_fill_and_zero_write_exactly_the_view_s_elements(view, dtype, zero):
    extent, sizes, strides, offset = view
    np_dtype = NUMPY_OF[dtype]
    start = np.arange(1, extent + 1).astype(np_dtype) if dtype is not torch.bool else np.zeros(extent, bool)
    value = False if zero else (True if dtype is torch.bool else 3)
    base = torch.from_numpy(start.copy())
    v = torch.as_strided(base, sizes, strides, offset)
    version = base._version
    result = v.zero_() if zero else v.fill_(value)
    assert result is v
    assert base._version == version + 1
    want = start.copy()
    np_view = np.lib.stride_tricks.as_strided(want[offset:], sizes, [k * want.itemsize for k in strides])
    np_view[...] = value
    np.testing.assert_array_equal(base.numpy(), want)


def test_fill_reaches_transposed_and_expanded_views():
    t = torch.zeros(3, 4)
    t.t().fill_(2.0)
    assert t.tolist() == [[2.0] * 4] * 3
    e = torch.zeros(1, 3).expand(4, 3)
    e.fill_(7.0)
    assert e.tolist() == [[7.0] * 3] * 4


# -- dispatch ------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["zeros", "ones", "full", "scalar_tensor", "fill_.Scalar", "zero_"])
def test_cpu_calls_take_the_cpu_kernel_and_cuda_calls_the_composite(op):
    handle = find_operator(op)
    cpu = handle.kernel_for(1 << int(DispatchKey.CPU))
    cuda = handle.kernel_for(1 << int(DispatchKey.CUDA))
    assert cpu.__module__.startswith("aten.native.cpu")
    assert cuda.__module__.startswith("aten.native.composite")


def test_cpu_creation_does_not_import_pycuda():
    code = ("import sys, torch; t = torch.zeros(2, 3); torch.ones(2); torch.full((2,), 1); t.new_zeros(2); "
            "torch.zeros_like(t); torch.full_like(t, 2); t.fill_(3); t.zero_(); torch.empty_like(t); "
            "assert 'pycuda' not in sys.modules, 'pycuda imported'")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO))
    assert run.returncode == 0, run.stderr
