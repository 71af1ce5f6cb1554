"""Every nn test starts from the same random state, so statistical checks are reproducible."""
import pytest


@pytest.fixture(autouse=True)
def _seeded():
    import torch
    torch.manual_seed(0)
