"""uint16, uint32 and uint64 as PyTorch 2.3+ has them ("barebones" unsigned types): created,
converted, compared, multiplied and combined bitwise, promoted with floating dtypes only, and refused
with PyTorch's NotImplementedError by the ops that have no loop for them. Every op of the operator
database, handed them, either refuses or gives the values the same op gives on int64."""
import numpy as np
import pytest

import torch
from opinfo import all_ops
from opinfo.core import to_torch

UNSIGNED = [torch.uint16, torch.uint32, torch.uint64]


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_the_ops_pytorch_computes_in_them(dtype):
    np_dtype = np.dtype(str(dtype).split(".")[1])
    a_np = np.array([1, 2, 300, 7], dtype=np_dtype)
    b_np = np.array([3, 2, 200, 7], dtype=np_dtype)
    a, b = torch.from_numpy(a_np), torch.from_numpy(b_np)
    np.testing.assert_array_equal((a * b).numpy(), a_np * b_np)
    np.testing.assert_array_equal((a & b).numpy(), a_np & b_np)
    np.testing.assert_array_equal((a | b).numpy(), a_np | b_np)
    np.testing.assert_array_equal((a ^ b).numpy(), a_np ^ b_np)
    np.testing.assert_array_equal((a == b).numpy(), a_np == b_np)
    np.testing.assert_array_equal((a != b).numpy(), a_np != b_np)
    assert (a * b).dtype is dtype and (a / b).dtype is torch.float32
    np.testing.assert_allclose((a / b).numpy(), (a_np / b_np).astype(np.float32), rtol=1e-6)
    assert a.tolist() == [1, 2, 300, 7] and torch.zeros(2, dtype=dtype).dtype is dtype
    assert torch.full((2,), 5, dtype=dtype).tolist() == [5, 5]


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_the_ops_pytorch_refuses(dtype):
    a = torch.ones(3, dtype=dtype)
    type_name = {torch.uint16: "UInt16", torch.uint32: "UInt32", torch.uint64: "UInt64"}[dtype]
    for call in (lambda: a + a, lambda: -a, lambda: a < a, lambda: torch.arange(3, dtype=dtype)):
        with pytest.raises(NotImplementedError, match=f"not implemented for '{type_name}'"):
            call()
    with pytest.raises(RuntimeError, match=f"Promotion for uint16, uint32, uint64 types is not supported, attempted "
                                           f"to promote {type_name} and Long"):
        a * torch.ones(3, dtype=torch.int64)


def test_creation_checks_the_range_and_wraps_negatives_as_pytorch():
    assert torch.tensor([-1], dtype=torch.uint16).tolist() == [65535]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint16 without overflow"):
        torch.tensor([70000], dtype=torch.uint16)


def test_checkpoints_and_dlpack_keep_them():
    import io
    from torch.utils.dlpack import from_dlpack, to_dlpack
    t = torch.from_numpy(np.array([1, 65535, 300], dtype=np.uint16))
    buffer = io.BytesIO()
    torch.save({"t": t}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)["t"]
    assert loaded.dtype is torch.uint16 and loaded.tolist() == [1, 65535, 300]
    back = from_dlpack(to_dlpack(t))
    assert back.dtype is torch.uint16 and back.data_ptr() == t.data_ptr()


@pytest.mark.parametrize("op", [op for op in all_ops() if torch.int64 in op.dtypes], ids=lambda op: op.id)
def test_every_op_refuses_uint16_or_computes_as_on_int64(op):
    def convert(value, dtype):
        if isinstance(value, np.ndarray) and value.dtype == np.int64:
            return torch.from_numpy(np.abs(value) % 100).to(dtype)
        if isinstance(value, dict):
            return {k: convert(v, dtype) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(convert(v, dtype) for v in value)
        return value

    for sample in op.sample_inputs(torch.int64, np.random.default_rng(5)):
        try:
            got = op.function()(*to_torch(convert(sample.args, torch.uint16)),
                                **to_torch(convert(sample.kwargs, torch.uint16)))
        except (RuntimeError, TypeError, ValueError, IndexError):
            continue        # NotImplementedError is a RuntimeError
        if op.name in {"randperm", "randint_like", "multinomial", "bernoulli", "normal", "rand_like", "randn_like"}:
            continue
        expected = op.function()(*to_torch(convert(sample.args, torch.int64)),
                                 **to_torch(convert(sample.kwargs, torch.int64)))
        for g, e in zip(got if isinstance(got, (tuple, list)) else [got],
                        expected if isinstance(expected, (tuple, list)) else [expected]):
            if isinstance(g, torch.Tensor):
                np.testing.assert_array_equal(g.to(torch.float64).numpy(), e.to(g.dtype).to(torch.float64).numpy(),
                                              err_msg=op.id)
