"""CUDA tensors through PyCUDA: the same ops as on CPU, compared with the CPU results.

Run where an NVIDIA GPU and PyCUDA are present: `pip install -e .[cuda]`, then `pytest -m cuda`.
"""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def test_factories_make_cuda_tensors_with_the_right_values():
    assert torch.zeros(2, 3, device="cuda").tolist() == [[0.0] * 3] * 2
    assert torch.full((4,), 7, device="cuda").tolist() == [7] * 4
    t = torch.ones(5, dtype=torch.float64, device="cuda")
    assert t.device == torch.device("cuda:0") and t.is_cuda and t.dtype is torch.float64


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_binary_ops_on_cuda_match_cpu(op, dtype):
    a = np.arange(1, 13).reshape(3, 4)
    b = np.arange(1, 5)
    ca, cb = torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype)
    expected = getattr(torch, op)(ca, cb).tolist()
    got = getattr(torch, op)(torch.tensor(a, dtype=dtype, device="cuda"), torch.tensor(b, dtype=dtype, device="cuda"))
    np.testing.assert_allclose(got.tolist(), expected, rtol=1e-6)


def test_unary_ops_and_python_scalars_on_cuda_match_cpu():
    x = torch.tensor([0.5, -1.0, 2.0], device="cuda")
    np.testing.assert_allclose(torch.exp(x).tolist(), np.exp([0.5, -1.0, 2.0]), rtol=1e-6)
    assert (-x).tolist() == [-0.5, 1.0, -2.0]
    assert (x * 2 + 1).tolist() == [2.0, -1.0, 5.0]


def test_mixing_devices_other_than_scalars_is_an_error():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(2) + torch.ones(2, device="cuda")
    assert (torch.tensor(2.0) + torch.ones(2, device="cuda")).tolist() == [3.0, 3.0]


def test_device_properties_and_capability():
    properties = torch.cuda.get_device_properties(0)
    assert properties.name == torch.cuda.get_device_name(0)
    assert properties.total_memory > 0 and properties.multi_processor_count >= 1
    assert torch.cuda.get_device_capability() == (properties.major, properties.minor)
    assert repr(properties).startswith("_CudaDeviceProperties(name=")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.cuda.get_device_properties(torch.cuda.device_count())


def test_streams_order_work_as_one_stream_does():
    side = torch.cuda.Stream()
    assert torch.cuda.current_stream() == torch.cuda.default_stream()
    assert repr(side) == "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0>" and side.device == torch.device("cuda:0")
    x = torch.arange(4.0, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
    torch.cuda.current_stream().wait_stream(side)
    done = side.record_event()
    done.synchronize()
    side.synchronize()
    assert side.query() and y.tolist() == [0.0, 2.0, 4.0, 6.0]
    with torch.cuda.device(0):
        torch.cuda.set_device(0)
        assert torch.cuda.current_device() == 0


_DTYPE_RULE_CASES = {
    "where_with_a_long_condition": lambda d: torch.where(torch.tensor([1, 0], device=d), torch.ones(2, device=d),
                                                         torch.zeros(2, device=d)),
    "sub_of_two_bools": lambda d: torch.tensor([True], device=d) - torch.tensor([False], device=d),
    "sub_of_one_bool": lambda d: torch.tensor([True], device=d) - torch.tensor([1], device=d),
    "integral_add_with_a_float_alpha": lambda d: torch.add(torch.tensor([1], device=d), torch.tensor([2], device=d),
                                                           alpha=0.5),
    "bitwise_and_of_floats": lambda d: torch.bitwise_and(torch.ones(2, device=d), torch.ones(2, device=d)),
    "an_alpha_beyond_int8": lambda d: torch.add(torch.ones(2, dtype=torch.int8, device=d),
                                                torch.ones(2, dtype=torch.int8, device=d), alpha=1000),
    "a_bool_alpha_for_floats": lambda d: torch.add(torch.ones(2, device=d), torch.ones(2, device=d), alpha=True),
}


@pytest.mark.parametrize("case", sorted(_DTYPE_RULE_CASES))
def test_generated_launchers_refuse_what_the_cpu_kernels_refuse(case):
    make = _DTYPE_RULE_CASES[case]
    with pytest.raises(RuntimeError) as on_cpu:
        make("cpu")
    with pytest.raises(RuntimeError) as on_cuda:
        make("cuda")
    assert str(on_cuda.value).replace("_cuda", "_cpu") == str(on_cpu.value)


@pytest.mark.parametrize("op, dtype", [(torch.sigmoid, torch.int64), (torch.sqrt, torch.uint8),
                                       (torch.eq, torch.float32), (torch.isnan, torch.float64),
                                       (torch.add, torch.int16)])
def test_generated_launchers_compute_and_store_in_the_cpu_kernels_dtypes(op, dtype):
    cpu = torch.arange(1, 7).reshape(2, 3).to(dtype)
    args = (cpu, cpu) if op in (torch.eq, torch.add) else (cpu,)
    expected = op(*args)
    got = op(*[a.cuda() for a in args])
    assert got.dtype is expected.dtype and got.is_cuda
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-6)
