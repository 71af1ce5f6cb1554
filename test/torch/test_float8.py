"""The float8 formats as PyTorch 2.13 has them: storage types that are created, converted (bit for
bit: test_dtype_casts.py), moved, printed and saved, with no arithmetic and no promotion. Every op
of the operator database, handed float8 tensors, either refuses them with an exception or moves
their values exactly: never a crash, never a value read as another dtype."""
import numpy as np
import pytest

import torch
from opinfo import all_ops
from opinfo.core import to_torch

FLOAT8 = [torch.float8_e5m2, torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.float8_e4m3fnuz]
E4M3 = torch.float8_e4m3fn


def test_creation_and_conversions():
    assert torch.zeros(3, dtype=E4M3).float().tolist() == [0.0] * 3
    assert torch.ones(2, dtype=torch.float8_e5m2).float().tolist() == [1.0, 1.0]
    assert torch.full((2,), 3.3, dtype=torch.float8_e5m2fnuz).float().tolist() == [3.5, 3.5]
    assert torch.tensor([1.5, 500.0], dtype=E4M3).tolist() == [1.5, 448.0]       # saturates, as PyTorch's cast
    x = torch.tensor([0.25, -2.0, 448.0]).to(E4M3)
    assert x.dtype is E4M3 and x.element_size() == 1 and x.is_floating_point()
    assert x.to(torch.bfloat16).float().tolist() == [0.25, -2.0, 448.0]
    assert x.to(torch.float8_e5m2).float().tolist() == [0.25, -2.0, 448.0]


def test_printing_shows_the_values_with_the_dtype():
    assert repr(torch.tensor([1.5, 448.0]).to(E4M3)) == "tensor([  1.5000, 448.0000], dtype=torch.float8_e4m3fn)"


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_arithmetic_and_reductions_are_refused_as_pytorch(dtype):
    x = torch.ones(3, dtype=dtype)
    name = dtype.__repr__().split(".")[1]
    type_name = "Float8_" + name.split("_", 1)[1]
    with pytest.raises(NotImplementedError, match=f"not implemented for '{type_name}'"):
        x + x
    with pytest.raises(NotImplementedError, match=f'"sum_cpu" not implemented for \'{type_name}\''):
        x.sum()
    with pytest.raises(RuntimeError, match=f"Promotion for Float8 Types is not supported, attempted to promote "
                                           f"{type_name} and Float"):
        x + torch.ones(3)


def test_data_movement_keeps_the_bits():
    bits = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    for dtype in FLOAT8:
        x = bits.clone().view(dtype)
        assert torch.cat([x, x]).view(torch.uint8).tolist() == bits.tolist() * 2
        assert x[5:200:15].view(torch.uint8).tolist() == bits[5:200:15].tolist()
        assert x.reshape(16, 16).t().contiguous().view(torch.uint8).reshape(-1).tolist() == \
            bits.reshape(16, 16).t().reshape(-1).tolist()


def test_dlpack_round_trip_keeps_dtype_and_bits():
    from torch.utils.dlpack import from_dlpack, to_dlpack
    x = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e5m2)
    back = from_dlpack(to_dlpack(x))
    assert back.dtype is torch.float8_e5m2 and back.data_ptr() == x.data_ptr()


def _as_float8(value):
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return torch.from_numpy(value).to(E4M3)
    if value is torch.float32:
        return E4M3
    if isinstance(value, dict):
        return {k: _as_float8(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_as_float8(v) for v in value)
    return value


def _float_of(value):
    """The same inputs as float32 holding the float8 values exactly (the op's reference)."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return torch.from_numpy(value).to(E4M3).float().numpy()
    if isinstance(value, dict):
        return {k: _float_of(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_float_of(v) for v in value)
    return value


# Their two calls draw different numbers: only run, for a crash or a refusal.
RANDOM_OPS = {"bernoulli", "multinomial", "normal", "rand_like", "randn_like", "randint_like", "dropout",
              "native_dropout", "randperm"}


@pytest.mark.parametrize("op", [op for op in all_ops() if torch.float32 in op.dtypes], ids=lambda op: op.id)
def test_every_op_refuses_float8_or_moves_it_exactly(op):
    for sample in op.sample_inputs(torch.float32, np.random.default_rng(3)):
        try:
            got = op.function()(*to_torch(_as_float8(sample.args)), **to_torch(_as_float8(sample.kwargs)))
        except (RuntimeError, TypeError, ValueError, IndexError):
            continue        # NotImplementedError is a RuntimeError
        if op.name in RANDOM_OPS:
            continue
        expected = op.function()(*to_torch(_float_of(sample.args)), **to_torch(_float_of(sample.kwargs)))
        for g, e in zip(got if isinstance(got, (tuple, list)) else [got],
                        expected if isinstance(expected, (tuple, list)) else [expected]):
            if isinstance(g, torch.Tensor) and g.dtype is E4M3:
                np.testing.assert_array_equal(g.float().numpy(), e.to(E4M3).float().numpy(), err_msg=op.id)
            elif isinstance(g, torch.Tensor):
                np.testing.assert_array_equal(g.numpy(), e.numpy(), err_msg=op.id)
