"""bfloat16 on CUDA: the generated kernels convert as the CPU loops do (aten/native/cuda/kernels/
bfloat16.cuh beside c10/bfloat16.h) and the handwritten ones declared `ember_opmath` compute on
float32 copies, so a CUDA result is the CPU one: bit for bit where both compute in exact float32
arithmetic, within an ulp of bfloat16 where the math libraries differ."""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]

B = torch.bfloat16


def bits(t):
    return t.view(torch.int16).cpu().numpy()


def sample(shape, seed=0):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape, dtype=np.float32) * 8).to(B)


def test_a_round_trip_through_the_device_keeps_every_bit_pattern():
    patterns = torch.from_numpy(np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.int16)).view(B)
    assert (bits(patterns.cuda().cpu()) == bits(patterns)).all()


@pytest.mark.parametrize("op", [torch.add, torch.sub, torch.mul, torch.div, torch.maximum])
def test_exact_float32_arithmetic_gives_the_cpu_bits(op):
    a, b = sample((257, 3), 0), sample((257, 3), 1)
    assert (bits(op(a.cuda(), b.cuda())) == bits(op(a, b))).all()


@pytest.mark.parametrize("op", [torch.exp, torch.tanh, torch.sigmoid, torch.sqrt])
def test_math_functions_agree_with_the_cpu_within_an_ulp(op):
    a = sample((1000,)).abs()
    np.testing.assert_allclose(op(a.cuda()).float().cpu().numpy(), op(a).float().numpy(), rtol=2 ** -7)


def test_opmath_kernels_reduce_normalise_and_multiply_in_float32():
    x = sample((64, 33))
    cases = [lambda t: t.sum(dim=1), lambda t: t.mean(), lambda t: torch.softmax(t, dim=1),
             lambda t: t @ t.t(), lambda t: t.max(dim=0).values, lambda t: torch.sort(t, dim=1).values]
    for f in cases:
        got, expected = f(x.cuda()), f(x)
        assert got.dtype is B and got.is_cuda
        np.testing.assert_allclose(got.float().cpu().numpy(), expected.float().numpy(), rtol=1.6e-2, atol=1e-2)


def test_creation_fill_and_conversions_on_the_device():
    assert torch.full((3,), 3.3, dtype=B, device="cuda").cpu().tolist() == torch.full((3,), 3.3, dtype=B).tolist()
    assert torch.zeros(2, dtype=B, device="cuda").tolist() == [0.0, 0.0]
    f = torch.tensor([1.0, 2.5, -3.25], device="cuda")
    assert f.to(B).dtype is B and f.to(B).float().tolist() == [1.0, 2.5, -3.25]
    assert torch.tensor([0.5, 2.0], dtype=B).cuda().to(torch.float16).cpu().tolist() == [0.5, 2.0]


def test_data_movement_keeps_the_bits():
    x = sample((6, 5)).cuda()
    idx = torch.tensor([4, 0, 2], device="cuda")
    assert (bits(x.index_select(0, idx)) == bits(x.cpu().index_select(0, idx.cpu()))).all()
    assert (bits(torch.cat([x, x])) == bits(torch.cat([x.cpu(), x.cpu()]))).all()
    assert torch.nonzero(torch.tensor([0.0, -0.0, 1.0, 2.0], dtype=B, device="cuda")).cpu().tolist() == [[2], [3]]


def test_float8_and_unsigned_dtypes_fill_convert_and_compute_on_the_device():
    for dtype in (torch.float8_e5m2, torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.float8_e4m3fnuz):
        assert torch.full((3,), 2.5, dtype=dtype, device="cuda").float().cpu().tolist() == [2.5] * 3
        x = torch.tensor([1.5, 300.0, -0.1])
        assert (bits_of(x.cuda().to(dtype).cpu()) == bits_of(x.to(dtype))).all()
        with pytest.raises(NotImplementedError, match="not implemented for 'Float8_"):
            torch.ones(2, dtype=dtype, device="cuda").sum()
    for dtype in (torch.uint16, torch.uint32, torch.uint64):
        a = torch.tensor([1, 2, 300], dtype=dtype)
        assert torch.zeros(2, dtype=dtype, device="cuda").cpu().tolist() == [0, 0]
        assert (a.cuda() * a.cuda()).cpu().tolist() == [1, 4, 90000 % (1 << (8 * a.element_size()))]
        assert (a.cuda() == 2).cpu().tolist() == [False, True, False]


def bits_of(t):
    return t.view(torch.uint8).numpy()
