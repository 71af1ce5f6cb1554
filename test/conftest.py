"""Fixtures shared by every test directory."""
import pytest


@pytest.fixture
def threads():
    """Restores the thread count and grain size a test changes."""
    import torch
    from aten.native.cpu import loops

    saved = torch.get_num_threads(), loops.get_grain_size()
    yield
    torch.set_num_threads(saved[0])
    loops.set_grain_size(saved[1])


@pytest.fixture(autouse=True)
def _cuda_errors_stay_in_their_test(request):
    """A CUDA test ends by reading the errors its kernels found (they are reported at the next
    synchronisation, as PyTorch's), so one test's bad index cannot fail the next test."""
    yield
    if request.node.get_closest_marker("cuda") is None:
        return
    from c10 import cuda as c10_cuda
    if c10_cuda.is_initialized():
        c10_cuda.synchronize()
