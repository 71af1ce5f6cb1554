"""ComputeInOpmath (aten/native/meta/opmath.pyx): one rule for every backend's kernels that declare
`ember_opmath`: reduced-precision operands compute in float32 and round once, written operands get
the rounded values back. Each behaviour runs on the CPU and, under `-m cuda`, on CUDA."""
import numpy as np
import pytest

import torch
from aten.dispatcher import find_operator
from aten.native.meta.opmath import ComputeInOpmath

DEVICES = ["cpu", pytest.param("cuda", marks=[
    pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")])]


def wrapped(kernel):
    return ComputeInOpmath(kernel, find_operator("_to_copy").call_below_autograd,
                           find_operator("copy_").call_below_autograd, find_operator("resize_").call_below_autograd)


class Recorder:
    """A kernel that doubles its first operand and records the dtypes it was handed."""

    def __init__(self):
        self.seen = []

    def __call__(self, *tensors, dtype=None):
        self.seen = [t.dtype for t in tensors] + ([dtype] if dtype is not None else [])
        out = tensors[0] * 2
        return out if dtype is None else out.to(dtype)


def values(device, dtype=torch.float16):
    # 2049 has no float16 value: an operand already rounded to float16 stays exactly what it was
    return torch.tensor([1.5, 2049.0, -3.25], device=device).to(dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_all_float16_operands_compute_in_float32_and_round_once(device):
    kernel = Recorder()
    x = values(device)
    out = wrapped(kernel)(x, values(device))
    assert kernel.seen == [torch.float32, torch.float32]
    assert out.dtype == torch.float16 and out.device == x.device
    np.testing.assert_array_equal(out.cpu().numpy(), (x.cpu().numpy().astype(np.float32) * 2).astype(np.float16))


@pytest.mark.parametrize("device", DEVICES)
def test_a_wider_floating_operand_leaves_the_call_to_the_kernels_own_promotion(device):
    kernel = Recorder()
    wrapped(kernel)(values(device), values(device, torch.float32))
    assert kernel.seen == [torch.float16, torch.float32]


@pytest.mark.parametrize("device", DEVICES)
def test_a_zero_dim_operand_does_not_decide_the_computation_dtype(device):
    kernel = Recorder()
    out = wrapped(kernel)(values(device), torch.tensor(0.5, device=device))
    assert kernel.seen == [torch.float32, torch.float32] and out.dtype == torch.float16


@pytest.mark.parametrize("device", DEVICES)
def test_asking_for_float16_converts_every_operand_first_and_rounds_the_result(device):
    kernel = Recorder()
    wide = torch.tensor([2049.0, 1.0], device=device)         # 2049 rounds to 2048 in float16 first
    out = wrapped(kernel)(wide, dtype=torch.float16)
    assert kernel.seen == [torch.float32, torch.float32]
    assert out.dtype == torch.float16 and out.cpu().tolist() == [4096.0, 2.0]


@pytest.mark.parametrize("device", DEVICES)
def test_asking_for_another_dtype_keeps_the_results_as_the_kernel_gives_them(device):
    kernel = Recorder()
    out = wrapped(kernel)(values(device), dtype=torch.float64)
    assert kernel.seen == [torch.float32, torch.float64] and out.dtype == torch.float64


@pytest.mark.parametrize("device", DEVICES)
def test_a_written_operand_gets_the_rounded_values_back_and_is_the_result(device):
    def add_one_(t):
        return t.add_(1)

    x = values(device)
    expected = (x.cpu().numpy().astype(np.float32) + 1).astype(np.float16)
    version = x._version
    result = wrapped(add_one_)(x)
    assert result is x and x.dtype == torch.float16 and x._version > version
    np.testing.assert_array_equal(x.cpu().numpy(), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_an_out_operand_resized_by_the_kernel_is_resized_and_filled(device):
    def fill_out(self, *, out):
        out.resize_(self.shape)
        return out.copy_(self * 3)

    out = torch.empty(0, dtype=torch.float16, device=device)
    result = wrapped(fill_out)(values(device), out=out)
    assert result is out and out.shape == (3,)
    np.testing.assert_array_equal(out.cpu().numpy(), (values("cpu").numpy().astype(np.float32) * 3).astype(np.float16))


def test_calls_without_reduced_operands_reach_the_kernel_unchanged():
    kernel = Recorder()
    x = torch.arange(3.0)
    assert torch.equal(wrapped(kernel)(x), x * 2) and kernel.seen == [torch.float32]


def test_the_wrapper_resolves_a_lazy_kernel_on_its_first_call():
    class Lazy:
        resolved = 0

        def resolve(self):
            Lazy.resolved += 1
            return Recorder()

    op = wrapped(Lazy())
    assert Lazy.resolved == 0
    op(values("cpu"))
    op(values("cpu"))
    assert Lazy.resolved == 1 and isinstance(op.__wrapped__, Recorder)


def test_every_declared_backend_kernel_is_registered_behind_the_wrapper():
    from c10.dispatch_key import DispatchKey as K, DispatchKeySet

    def kernel(name, key):
        found = find_operator(name).kernel_for(DispatchKeySet(key).repr)
        return getattr(found, "__wrapped__", found) if not isinstance(found, ComputeInOpmath) else found

    for name in ("sum.dim_IntList", "sort", "index_select"):
        assert isinstance(kernel(name, K.CPU), ComputeInOpmath)
    assert isinstance(kernel("sort", K.CUDA), ComputeInOpmath)
    assert not isinstance(kernel("cumsum_", K.CUDA), ComputeInOpmath)     # ember_opmath: CPU only


def test_asking_for_a_dtype_no_kernel_computes_in_is_refused_before_the_kernel():
    for dtype in (torch.float8_e4m3fn, torch.uint16):
        with pytest.raises(NotImplementedError, match="not implemented for"):
            torch.sum(torch.ones(3), dtype=dtype)
    with pytest.raises(NotImplementedError, match='"randperm_cpu" not implemented for \'UInt32\''):
        torch.randperm(4, dtype=torch.uint32)


def test_float16_with_bfloat16_reaches_the_kernel_and_its_dtype_check():
    with pytest.raises(RuntimeError,
                       match="expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != c10::Half"):
        torch.mm(torch.ones(2, 2, dtype=torch.bfloat16), torch.ones(2, 2, dtype=torch.float16))


def test_a_zero_dim_operand_of_the_other_reduced_dtype_does_not_decide():
    x = torch.ones(3, dtype=torch.bfloat16).masked_fill(torch.tensor([True, False, True]),
                                                        torch.tensor(2.0, dtype=torch.float16))
    assert x.dtype is torch.bfloat16 and x.tolist() == [2.0, 1.0, 2.0]


def test_asking_for_one_reduced_dtype_converts_an_operand_of_the_other_first():
    # 1e5 is finite in bfloat16 and infinite in float16: PyTorch's sum(dtype=float16) is inf - inf
    assert torch.isnan(torch.sum(torch.tensor([1e5, -1e5], dtype=torch.bfloat16), dtype=torch.float16))


@pytest.mark.parametrize("device", DEVICES)
def test_an_operand_converted_for_dtype_is_still_written_back(device):
    def add_one_(t, *, dtype):
        return t.add_(1)

    x = torch.tensor([1.0, 2049.0], device=device)
    result = wrapped(add_one_)(x, dtype=torch.float16)
    assert result is x and x.dtype is torch.float32 and x.cpu().tolist() == [2.0, 2049.0]   # 2049 -> 2048 -> 2049
