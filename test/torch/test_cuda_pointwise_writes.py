"""Where CUDA pointwise ops write: an in-place op over operands of its target's shape writes
straight into the target (no temporary, no copy), a new result takes one block, and operands
that overlap the target only in part still get PyTorch's error."""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def _allocations():
    return torch.cuda.memory_stats()["allocation.all.allocated"]


def test_in_place_ops_on_matching_operands_allocate_nothing():
    a, b = torch.ones(1000, device="cuda"), torch.full((1000,), 2.0, device="cuda")
    a.add_(b)                               # kernels compiled, device scalars kept
    before = _allocations()
    a.add_(b)
    a.mul_(a)
    torch.relu_(a)
    assert _allocations() == before
    np.testing.assert_array_equal(a.cpu().numpy(), np.full(1000, 25.0, dtype=np.float32))


def test_a_new_result_takes_one_block():
    a, b = torch.ones(64, 64, device="cuda"), torch.ones(64, 64, device="cuda")
    torch.add(a, b)
    before = _allocations()
    c = torch.add(a, b, alpha=3)
    assert _allocations() == before + 1
    np.testing.assert_array_equal(c.cpu().numpy(), np.full((64, 64), 4.0, dtype=np.float32))


def test_operands_overlapping_the_target_in_part_are_refused():
    x = torch.arange(8.0, device="cuda")
    with pytest.raises(RuntimeError, match="unsupported operation: some elements of the input tensor and the "
                                           "written-to tensor refer to a single memory location"):
        x[1:].add_(x[:-1])
