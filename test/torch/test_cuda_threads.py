"""CUDA from several Python threads: each thread gets the device's context made current (PyCUDA's
context stack is per thread), released when the thread ends; a kernel used first by several
threads at once is compiled once; views read back whole (repr, tolist, item).

On the emulator (EMBER_CUDA_EMULATOR=1) the context checks are the emulator's: an operation on a
thread without a current context fails as it would on a GPU."""

import numpy as np
import pytest

import torch
from c10 import cuda as c10_cuda
from thread_runner import in_threads

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def _emulator_context_errors():
    if not c10_cuda.emulated():
        return []
    from c10.cuda import host_driver
    return list(host_driver.ended_threads())


def test_cuda_ops_run_on_a_thread_other_than_the_one_that_initialised_cuda():
    torch.zeros(1, device="cuda")          # initialised here, on the main thread
    before = _emulator_context_errors()

    def worker(index):
        x = torch.arange(6.0, device="cuda").reshape(2, 3) + index
        y = (x * 2).sum(0)
        return y.cpu().tolist()

    results = in_threads(worker, 3)
    assert results == [((np.arange(6.0).reshape(2, 3) + i) * 2).sum(0).tolist() for i in range(3)]
    assert _emulator_context_errors() == before      # each thread released its context as it ended


def test_a_thread_can_be_the_first_to_use_cuda_and_the_main_thread_after_it():
    results = in_threads(lambda index: torch.ones(4, device="cuda").sum().item(), 1)
    assert results == [4.0]
    assert torch.ones(2, device="cuda").sum().item() == 2.0


def test_a_kernel_first_used_by_several_threads_at_once_compiles_once(monkeypatch):
    from aten.native.cuda.runtime import compiler
    compiles = []
    original = c10_cuda.source_module

    def counting(source, include_dirs):
        compiles.append(source)
        return original(source, include_dirs)

    monkeypatch.setattr(c10_cuda, "source_module", counting)
    monkeypatch.setattr(compiler, "_modules", {})      # as if no kernel had been compiled yet
    monkeypatch.setattr(compiler, "_functions", {})
    in_threads(lambda index: compiler.kernel_function("_gen_cast.cu", "fill_float32"), 4)
    assert len(compiles) == 1


def test_views_of_cuda_tensors_print_and_read_back():
    x = torch.arange(6.0, device="cuda").reshape(2, 3)
    assert x.t().tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert repr(x.t()) == "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]], device='cuda:0')"
    assert x[:, 1].tolist() == [1.0, 4.0]
    assert x.t()[2, 1].item() == 5.0
    assert torch.zeros(1, device="cuda").expand(3).tolist() == [0.0, 0.0, 0.0]
