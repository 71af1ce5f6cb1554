"""PowerSGD's arithmetic in one process: Gram-Schmidt gives NumPy's QR basis, and the state's checks. The hook
itself runs on 2 ranks in test_meshes_and_join.py."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook import PowerSGDState, _orthogonalize


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(2, 12), cols=st.integers(1, 4), seed=st.integers(0, 1000))
def test_power_sgd_orthogonalises_columns_as_numpy_qr_does(rows, cols, seed):
    a = np.random.default_rng(seed).standard_normal((rows, min(cols, rows)))
    m = torch.from_numpy(a.copy())
    _orthogonalize(m)
    q = np.linalg.qr(a)[0]
    # the same basis up to each column's sign
    np.testing.assert_allclose(np.abs(m.numpy()), np.abs(q), atol=1e-9)
    np.testing.assert_allclose(m.numpy().T @ m.numpy(), np.eye(m.shape[1]), atol=1e-9)


def test_power_sgd_state_refuses_warm_start_before_the_second_step():
    with pytest.raises(ValueError, match="Expect `start_powerSGD_iter` > 1"):
        PowerSGDState(None, start_powerSGD_iter=1)
    assert PowerSGDState(None, start_powerSGD_iter=1, use_error_feedback=False, warm_start=False).iter == 0
