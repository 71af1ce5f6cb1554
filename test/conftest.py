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
