"""CUDA ops that take a number from the host (a * 2.5, fill_, the seed of backward) copy nothing
from the host once that value has been seen, and read nothing back: either copy waits for the
device, where PyTorch passes the number to the kernel. The values stay PyTorch's."""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


@pytest.fixture
def host_copies(monkeypatch):
    """The names of the driver's host copies made while the test runs."""
    from c10 import cuda as c10_cuda
    drv = c10_cuda.lazy_init().drv
    calls = []
    for name in ("memcpy_htod", "memcpy_dtoh", "to_device"):
        def spy(*args, _original=getattr(drv, name), _name=name):
            calls.append(_name)
            return _original(*args)
        monkeypatch.setattr(drv, name, spy)
    return calls


def _host(t):
    return t.detach().cpu().numpy()


def test_a_number_operand_seen_before_copies_nothing_from_the_host(host_copies):
    values = np.linspace(-2, 2, 1000, dtype=np.float32)
    a = torch.from_numpy(values).cuda()
    a * 2.5, a + 1                              # first sight of each value: one upload each
    host_copies.clear()
    products = [a * 2.5 for _ in range(3)]
    sums = [a + 1 for _ in range(3)]
    assert host_copies == []
    for p in products:
        np.testing.assert_array_equal(_host(p), values * np.float32(2.5))
    for s in sums:
        np.testing.assert_array_equal(_host(s), values + np.float32(1))


def test_an_in_place_number_operand_copies_nothing_from_the_host(host_copies):
    a = torch.ones(64, device="cuda")
    a.mul_(0.5)
    host_copies.clear()
    a.mul_(0.5)
    a.add_(1)
    host_copies.clear()
    a.add_(1)
    assert host_copies == []
    np.testing.assert_array_equal(_host(a), np.full(64, 0.25 + 2, dtype=np.float32))


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_zeros_of_either_sign_stay_apart(zero):
    a = torch.ones(8, device="cuda")
    a * 0.0, a * -0.0                           # both kept side by side
    got = _host(a * zero)
    assert np.all(got == 0) and np.all(np.signbit(got) == np.signbit(zero))


def test_backward_of_a_scalar_loss_copies_nothing_from_the_host(host_copies):
    p = torch.randn(16, 16, device="cuda", requires_grad=True)
    (p * p).sum().backward()
    p.grad = None
    host_copies.clear()
    (p * p).sum().backward()
    assert host_copies == []
    np.testing.assert_allclose(_host(p.grad), 2 * _host(p), rtol=1e-6)


def test_fill_of_a_zero_dim_tensor_copies_nothing_from_the_host(host_copies):
    t = torch.empty((), device="cuda", dtype=torch.float64)
    t.fill_(3)
    host_copies.clear()
    t.fill_(3)
    assert host_copies == []
    assert _host(t) == 3.0


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_a_one_element_cuda_source_broadcasts_without_being_read_back(host_copies, dtype):
    src = torch.tensor([7], device="cuda", dtype=dtype)
    dst = torch.zeros(5, device="cuda", dtype=torch.float32)
    host_copies.clear()
    dst.copy_(src)
    assert "memcpy_dtoh" not in host_copies
    np.testing.assert_array_equal(_host(dst), np.full(5, 7, dtype=np.float32))


def test_lookups_and_losses_read_nothing_back_from_the_device(host_copies):
    weight = torch.randn(10, 4, device="cuda")
    ids = torch.tensor([[1, 9], [0, 3]], device="cuda")
    logits, target = torch.randn(2, 10, device="cuda"), torch.tensor([3, 7], device="cuda")
    x = torch.arange(12.0, device="cuda").reshape(3, 4)
    picks = torch.tensor([2, 0], device="cuda")
    host_copies.clear()
    looked_up = torch.nn.functional.embedding(ids, weight)
    loss = torch.nn.functional.cross_entropy(logits, target)
    rows = x[picks]
    assert "memcpy_dtoh" not in host_copies
    np.testing.assert_array_equal(_host(looked_up), _host(weight)[_host(ids)])
    np.testing.assert_array_equal(_host(rows), _host(x)[[2, 0]])
    expected = -np.log(np.exp(_host(logits)) / np.exp(_host(logits)).sum(1, keepdims=True))[[0, 1], [3, 7]].mean()
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-6)


def test_an_index_out_of_range_is_raised_at_the_next_synchronisation():
    weight = torch.randn(10, 4, device="cuda")
    looked_up = weight[torch.tensor([1, 10], device="cuda")]       # no error yet: the host did not wait
    with pytest.raises(IndexError, match="index 10 is out of bounds for dimension 0 with size 10\n"
                                         "CUDA kernel errors are reported at the next synchronisation"):
        looked_up.cpu()
    torch.cuda.synchronize()                                        # reported once
    assert weight[torch.tensor([9], device="cuda")].shape == (1, 4)


def test_every_slot_taken_reports_before_the_next_launch():
    from aten.native.cuda.runtime import device_checks
    weight = torch.randn(4, 2, device="cuda")
    weight[torch.tensor([5], device="cuda")]
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        for _ in range(device_checks.SLOTS):
            weight[torch.tensor([0], device="cuda")]
    torch.cuda.synchronize()


def test_item_and_printing_report_an_error_found_on_the_device():
    logits = torch.randn(3, 5, device="cuda")
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([1, 7, 0], device="cuda"))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        loss.item()
    picked = torch.ones(4, device="cuda")[torch.tensor([9], device="cuda")]
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        repr(picked)


def test_an_error_is_reported_in_the_thread_that_launched_it():
    import threading
    errors = []

    def bad_lookup():
        torch.ones(4, device="cuda")[torch.tensor([5], device="cuda")]
        try:
            torch.cuda.synchronize()
        except IndexError as e:
            errors.append(e)

    worker = threading.Thread(target=bad_lookup)
    worker.start()
    worker.join()
    torch.cuda.synchronize()                    # this thread launched nothing wrong
    assert len(errors) == 1 and "index 5 is out of bounds" in str(errors[0])


@pytest.mark.parametrize("imaginary", [0.0, -0.0])
def test_complex_numbers_whose_parts_differ_only_in_a_zeros_sign_stay_apart(imaginary):
    values = np.full(4, complex(1, -0.0), dtype=np.complex64)
    a = torch.from_numpy(values).cuda()
    a * complex(1, 0.0), a * complex(1, -0.0)           # both kept side by side
    got = (a * complex(1, imaginary)).cpu().numpy()
    expected = values * np.complex64(complex(1, imaginary))
    assert np.array_equal(np.signbit(got.imag), np.signbit(expected.imag))
