"""bfloat16 on the CPU: PyTorch computes it in float (opmath) and rounds each result once.

So every op of the operator database, run on bfloat16 tensors, must give the float32 op's result
on the same (exactly widened) values, rounded to bfloat16, within PyTorch's bfloat16 tolerances
(torch.testing: rtol 1.6e-2, atol 1e-5). Generated pointwise loops convert as they load and store
(c10/bfloat16.h); handwritten kernels of ops declared `ember_opmath` run their float32 loops on
widened copies (aten/native/meta/opmath.pyx). The conversions themselves are checked bit for bit
against PyTorch in test_dtype_casts.py.
"""
from __future__ import annotations

import io

import numpy as np
import pytest

import torch
from reduced_float_cases import OPS, ReducedFloat, check_op_is_the_float32_op_rounded_once

B = torch.bfloat16


def round_to_bfloat16(a: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), kept as float32."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), rounded).reshape(np.shape(a))


BFLOAT16 = ReducedFloat(
    dtype=B, round_values=round_to_bfloat16, as_tensor=lambda a: torch.from_numpy(a).to(B),
    tolerances=(1.6e-2, 1e-5),      # torch.testing's bfloat16 tolerances
    # Composites of several ops round between their steps, in PyTorch too (cross: a*b - c*d cancels).
    several_roundings=frozenset({"linear", "cross_entropy_loss", "scaled_dot_product_attention", "diff", "cross"}),
    several_tolerances=(5e-2, 1e-2))


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.id)
def test_bfloat16_op_is_the_float32_op_rounded_once(op):
    check_op_is_the_float32_op_rounded_once(op, BFLOAT16)


def test_pointwise_results_are_the_float32_results_rounded_once():
    wide = round_to_bfloat16(np.linspace(-40, 40, 4001, dtype=np.float32))
    x = torch.from_numpy(wide).to(B)
    # exact float32 arithmetic (a product of two bfloat16 values fits float32), then one rounding
    np.testing.assert_array_equal(torch.mul(x, x).float().numpy(), round_to_bfloat16(wide * wide))
    np.testing.assert_array_equal(torch.addcmul(x, x, x).float().numpy(), round_to_bfloat16(wide + wide * wide))
    for name, fn in [("exp", np.exp), ("tanh", np.tanh), ("sin", np.sin)]:
        # float32 math libraries differ in the last float32 bit, which can move a bfloat16 tie by one ulp
        got = getattr(torch, name)(x).float().numpy()
        np.testing.assert_allclose(got, round_to_bfloat16(fn(wide)), rtol=2 ** -7, atol=0, err_msg=name)


def test_bfloat16_promotion_follows_pytorch():
    b = torch.ones(2, dtype=B)
    assert (b + torch.ones(2, dtype=torch.float16)).dtype is torch.float32
    assert (b + torch.tensor(2)).dtype is B and torch.add(b, 2.5).dtype is B
    assert torch.add(b, torch.ones(2)).dtype is torch.float32
    assert (b + torch.ones(2, dtype=torch.int32)).dtype is B


def test_numpy_refuses_bfloat16_as_pytorch():
    b = torch.ones(2, dtype=B)
    for call in (b.numpy, lambda: b.numpy(force=True)):
        with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
            call()


def test_creation_and_conversion_methods():
    assert torch.tensor([1.5, 2.25], dtype=B).tolist() == [1.5, 2.25]
    assert torch.zeros(3, dtype=B).tolist() == [0.0] * 3 and torch.ones(2, dtype=B).dtype is B
    assert torch.full((2,), 3.3, dtype=B).tolist() == [float(round_to_bfloat16(np.float32([3.3]))[0])] * 2
    assert torch.arange(4, dtype=B).tolist() == [0.0, 1.0, 2.0, 3.0]
    np.testing.assert_array_equal(torch.linspace(0, 1, 7, dtype=B).float().numpy(),
                                  round_to_bfloat16(np.linspace(0, 1, 7, dtype=np.float32)))
    x = torch.tensor([1.0, 2.0])
    assert x.bfloat16().dtype is B and x.to(B).type() == "torch.BFloat16Tensor"
    assert torch.tensor(2.5, dtype=B).item() == 2.5


def test_printing_shows_the_values_with_the_dtype():
    assert repr(torch.tensor([1.5, 2.25, -3.0], dtype=B)) == "tensor([ 1.5000,  2.2500, -3.0000], dtype=torch.bfloat16)"


def test_reductions_accumulate_in_float32():
    x = torch.full((4096,), 0.1, dtype=B)
    exact = 4096 * float(round_to_bfloat16(np.float32([0.1]))[0])
    assert x.sum().dtype is B
    assert abs(float(x.sum()) - exact) <= exact * 2 ** -8          # one rounding of the float32 sum
    assert abs(float(x.sum(dtype=torch.float32)) - exact) < 1e-3


def test_matmul_and_autograd_in_bfloat16():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=B, requires_grad=True)
    b = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=B)
    out = (a @ b).sum()
    out.backward()
    assert out.dtype is B and a.grad.dtype is B
    np.testing.assert_array_equal(a.grad.float().numpy(), np.array([[-0.5, 2.25], [-0.5, 2.25]], np.float32))


def test_checkpoints_round_trip_bit_for_bit():
    bits = torch.from_numpy(np.array([0x3F80, 0x7FC1, 0xFF80, 0x0001, 0xFFFF], dtype=np.uint16).view(np.int16))
    t = bits.view(B)
    buffer = io.BytesIO()
    torch.save({"w": t}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)["w"]
    assert loaded.dtype is B and loaded.view(torch.int16).tolist() == bits.tolist()
