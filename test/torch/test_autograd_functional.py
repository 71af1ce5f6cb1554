"""torch.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against closed forms, and
anomaly detection naming the backward that returned NaN (values checked against PyTorch 2.13)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp


def x64(*values):
    return torch.tensor(values, dtype=torch.float64)


def test_jacobian_of_one_and_several_inputs_and_outputs():
    x = x64(1.0, 2.0, 3.0)
    np.testing.assert_allclose(jacobian(lambda a: a ** 2, x).numpy(), np.diag(2 * x.numpy()))
    ja, jb = jacobian(lambda a, b: a * b, (x, x * 2))
    np.testing.assert_allclose(ja.numpy(), np.diag(2 * x.numpy()))
    np.testing.assert_allclose(jb.numpy(), np.diag(x.numpy()))
    j1, j2 = jacobian(lambda a: (a, a * 2), x)
    np.testing.assert_allclose(j2.numpy(), 2 * np.eye(3))
    m = torch.from_numpy(np.arange(6.0).reshape(2, 3))
    assert jacobian(lambda a: m.mm(a.unsqueeze(1)).squeeze(1), x).shape == (2, 3)


def test_hessian_vhp_and_hvp_of_a_cubic():
    x = x64(1.0, -2.0)
    np.testing.assert_allclose(hessian(lambda a: (a ** 3).sum(), x).numpy(), np.diag(6 * x.numpy()))
    value, product = hvp(lambda a: (a ** 3).sum(), x, x64(1.0, 1.0))
    assert value.item() == -7.0
    np.testing.assert_allclose(product.numpy(), 6 * x.numpy())
    np.testing.assert_allclose(vhp(lambda a: (a ** 3).sum(), x, x64(1.0, 0.0))[1].numpy(), [6.0, 0.0])


def test_vjp_and_jvp():
    x = x64(1.0, 2.0)
    out, g = vjp(lambda a: a ** 2, x, x64(1.0, 1.0))
    assert out.tolist() == [1.0, 4.0] and g.tolist() == [2.0, 4.0]
    out, t = jvp(lambda a: a ** 2, x, x64(1.0, 0.5))
    assert t.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="The vector v can only be None if the user-provided function returns a "
                                           "single Tensor with a single element."):
        vjp(lambda a: a ** 2, x)
    assert not out.requires_grad and not x.requires_grad


def test_anomaly_detection_names_the_node_that_returned_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            assert torch.is_anomaly_enabled()
            b = torch.tensor([-1.0], requires_grad=True)
            with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output."):
                torch.sqrt(b).sum().backward()
            a = torch.tensor([0.0], requires_grad=True)
            torch.sqrt(a).sum().backward()        # inf is not NaN: no error, as PyTorch
            assert a.grad.tolist() == [float("inf")]
    assert not torch.is_anomaly_enabled()
    with torch.autograd.set_detect_anomaly(True):
        assert torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
    assert not torch.is_anomaly_enabled()


def test_anomaly_warning_carries_the_forward_stack():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            b = torch.tensor([-1.0], requires_grad=True)
            with pytest.raises(RuntimeError):
                torch.sqrt(b).sum().backward()
    messages = [str(w.message) for w in caught]
    assert any("Error detected in SqrtBackward0. Traceback of forward call that caused the error:" in m
               and "test_anomaly_warning_carries_the_forward_stack" in m for m in messages)
