"""float16 on the CPU: PyTorch computes float16 in float (opmath) and rounds each result once.

So every op of the operator database, run on float16 tensors, must give the float32 op's result
on the same (exactly widened) values, rounded to float16. Generated pointwise loops widen per
element; handwritten kernels of ops declared `ember_opmath` run their float32 loops on widened
copies (aten/native/meta/opmath.pyx) and write back what they modified.
"""
from __future__ import annotations

import numpy as np
import pytest

import torch
from dtype_cases import ALL_DTYPES
from reduced_float_cases import OPS, ReducedFloat, check_op_is_the_float32_op_rounded_once

H = torch.float16
FLOAT16 = ReducedFloat(
    dtype=H, round_values=lambda a: a.astype(np.float16).astype(np.float32),
    as_tensor=lambda a: torch.from_numpy(a.astype(np.float16)), tolerances=(1e-3, 1e-5),
    # Composites of several ops round between their steps, in PyTorch too.
    several_roundings=frozenset({"linear", "cross_entropy_loss", "scaled_dot_product_attention", "diff"}),
    several_tolerances=(1e-2, 1e-3))


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.id)
def test_float16_op_is_the_float32_op_rounded_once(op):
    check_op_is_the_float32_op_rounded_once(op, FLOAT16)


@pytest.mark.parametrize("src", ALL_DTYPES + [H], ids=str)
@pytest.mark.parametrize("dst", ALL_DTYPES + [H], ids=str)
def test_casts_to_and_from_float16_match_numpy(src, dst):
    values = np.array([0.0, -0.0, 1.0, -2.5, 3.75, 100.0, 65504.0, 0.000061035, 1e-7, np.inf, -np.inf, np.nan])
    np_src = np.dtype(src.numpy_dtype)
    if np_src.kind in "iub":
        values = np.array([0, 1, 2, 7, 100, 127])
    a = values.astype(np_src)
    if np.dtype(dst.numpy_dtype).kind in "iu":
        a = a[np.isfinite(a.astype(np.float64))]  # float -> int of inf/nan is undefined behaviour in C
    got = torch.from_numpy(a).to(dst)
    # float64 -> float16 goes through float, as c10::Half converts.
    expected = a.astype(np.float32).astype(dst.numpy_dtype) if dst is H and np_src.kind == "f" else a.astype(dst.numpy_dtype)
    np.testing.assert_array_equal(got.numpy(), expected)


def test_float16_promotion_follows_pytorch():
    h = torch.ones(2, dtype=H)
    assert torch.promote_types(H, torch.int64) is H
    assert torch.promote_types(H, torch.float32) is torch.float32
    assert (h + torch.tensor(2)).dtype is H
    assert torch.add(h, 2.5).dtype is H
    assert torch.add(h, torch.ones(2)).dtype is torch.float32
    assert torch.div(torch.ones(2, dtype=torch.int64), h).dtype is H


def test_scalar_that_overflows_float16_is_refused_like_pytorch():
    h = torch.ones(2, dtype=H)
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without overflow"):
        h.add(h, alpha=1e6)
    assert torch.isinf(torch.add(h, 1e6)).all()  # a wrapped number is a tensor operand: it rounds to inf


@pytest.mark.parametrize("call", [lambda h, s: torch.mul(h, s), lambda h, s: s * h, lambda h, s: h.clone().mul_(s),
                                  lambda h, s: torch.mul(h, torch.tensor(s)), lambda h, s: torch.div(h, s)],
                         ids=["mul", "rmul", "mul_", "mul_0dim_tensor", "div"])
def test_mul_and_div_take_a_cpu_scalar_at_its_float_value(call):
    """PyTorch's mul/div kernels read a CPU scalar operand in float for float16 (opmath); other
    ops round it to float16 first."""
    values = np.arange(1, 2000, dtype=np.float16) / np.float16(7)
    got = call(torch.from_numpy(values), 0.1).numpy()
    wide = values.astype(np.float32)
    op = np.divide if call(torch.ones(1, dtype=H), 2.0).item() == 0.5 else np.multiply
    np.testing.assert_array_equal(got, op(wide, np.float32(0.1)).astype(np.float16))


def test_add_rounds_a_cpu_scalar_to_float16_first_as_pytorch():
    values = np.arange(1, 2000, dtype=np.float16) / np.float16(7)
    got = torch.sub(torch.from_numpy(values), 0.1).numpy()
    np.testing.assert_array_equal(got, (values.astype(np.float32) - np.float32(np.float16(0.1))).astype(np.float16))


def test_nan_to_num_uses_float16_limits():
    h = torch.from_numpy(np.array([np.nan, np.inf, -np.inf, 1.5], dtype=np.float16))
    assert torch.nan_to_num(h).numpy().tolist() == [0.0, 65504.0, -65504.0, 1.5]


def test_in_place_handwritten_kernels_write_float16_operands_back():
    t = torch.zeros(5, dtype=H)
    version = t._version
    out = t.scatter_(0, torch.tensor([1, 3]), torch.tensor([1.5, 2.5], dtype=H))
    assert out is t
    assert t.numpy().tolist() == [0.0, 1.5, 0.0, 2.5, 0.0]
    assert t._version > version
    t.index_put_((torch.tensor([0]),), torch.tensor([7.0], dtype=H), accumulate=True)
    assert t.numpy().tolist() == [7.0, 1.5, 0.0, 2.5, 0.0]


def test_batch_norm_updates_float16_running_statistics():
    x = torch.from_numpy(np.arange(12, dtype=np.float16).reshape(4, 3))
    mean, var = torch.zeros(3, dtype=H), torch.ones(3, dtype=H)
    torch.batch_norm(x, None, None, mean, var, True, 0.5, 1e-5, False)
    np.testing.assert_allclose(mean.numpy(), 0.5 * x.numpy().astype(np.float32).mean(0), rtol=1e-3)
    np.testing.assert_allclose(var.numpy(), 0.5 + 0.5 * x.numpy().astype(np.float32).var(0, ddof=1), rtol=1e-3)


def test_reduction_with_explicit_dtype_keeps_that_dtype():
    h = torch.full((1000,), 0.1, dtype=H)
    wide = torch.sum(h, dtype=torch.float32)
    assert wide.dtype is torch.float32
    assert abs(float(wide) - 1000 * float(np.float16(0.1))) < 1e-3
    assert torch.sum(h, dtype=H).dtype is H


def test_float16_ranges_compute_in_float_and_round():
    np.testing.assert_array_equal(torch.arange(0, 1, 0.125, dtype=H).numpy(),
                                  np.arange(0, 1, 0.125, dtype=np.float32).astype(np.float16))
    np.testing.assert_array_equal(torch.linspace(0, 1, 5, dtype=H).numpy(),
                                  np.linspace(0, 1, 5, dtype=np.float32).astype(np.float16))


def test_mixed_float16_and_float32_reach_the_kernel_unchanged():
    """No widening when a float32 tensor takes part: in-place keeps self, PyTorch's dtype errors hold."""
    x = torch.zeros(3)
    r = x.masked_fill_(torch.tensor([True, False, True]), torch.tensor(2.0, dtype=H))
    assert r is x and r.dtype is torch.float32 and x.tolist() == [2.0, 0.0, 2.0]
    with pytest.raises(RuntimeError, match=r"expected m1 and m2 to have the same dtype, but got: c10::Half != float"):
        torch.mm(torch.ones(2, 2, dtype=H), torch.ones(2, 2))
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        torch.ones(3).index_put_((torch.tensor([0]),), torch.ones(1, dtype=H))
    assert torch.index_fill(torch.zeros(3, dtype=H), 0, torch.tensor([1]), torch.tensor(2.0)).tolist() == [0, 2, 0]


def test_writing_into_an_expanded_float16_tensor_is_refused():
    e = torch.zeros(1, dtype=H).expand(3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.scatter_(0, torch.tensor([1]), torch.tensor([5.0], dtype=H))


def test_mul_out_of_another_dtype_takes_the_float16_product():
    x = torch.tensor([0.09967041015625], dtype=H)
    got = torch.mul(x, torch.tensor(0.1), out=torch.empty(0))
    assert got.item() == float(np.float16(np.float32(0.09967041015625) * np.float32(np.float16(0.1))))


def test_einsum_permutation_of_float16_is_a_view():
    x = torch.arange(6.0).reshape(2, 3).to(H)
    y = torch.einsum("ij->ji", x)
    assert y.dtype is H and y.data_ptr() == x.data_ptr() and y.stride() == (1, 3)


def test_dtype_float16_requests_convert_the_input_first():
    assert torch.sum(torch.full((10,), 0.1), dtype=H).dtype is H
    assert torch.cumsum(torch.arange(4), 0, dtype=H).tolist() == [0.0, 1.0, 3.0, 6.0]
    assert torch.randperm(4, dtype=H).dtype is H


def test_random_on_float16_uses_float16_limits():
    torch.manual_seed(0)
    x = torch.ones(20000, dtype=H).random_(0, None)
    assert x.max().item() <= 2048 and not torch.isinf(x).any().item()
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for c10::Half"):
        torch.ones(2, dtype=H).random_(70000)
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^11\), 2\^11\]"):
        torch.ones(2, dtype=H).random_(0, 5000)


def test_random_like_of_a_transposed_float16_tensor_keeps_its_layout():
    x = torch.zeros(3, 4, dtype=H).t()
    r = torch.rand_like(x)
    assert r.dtype is H and r.stride() == x.stride()
