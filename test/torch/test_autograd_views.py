"""In-place ops on views under autograd, as PyTorch: the base's history is rebased (CopySlices),
the view's becomes a view of it, and views whose base was written through another alias get
their history again. Expected gradients are worked out by hand (and agree with PyTorch 2.13)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from torch.autograd import gradcheck, gradgradcheck


def _leaf(*shape):
    """1, 2, 3... in a tensor of its own (not a view of arange's result)."""
    return torch.tensor(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape), requires_grad=True)


def test_views_know_their_base_and_detach_is_not_a_view():
    x = torch.zeros(3, 4)
    v = x[1:]
    assert v._base is x and v._is_view()
    assert v.t()[0]._base is x                       # views of views: the first base
    assert x.view(12)._base is x and x.transpose(0, 1)._base is x
    assert x._base is None and not x._is_view()
    assert x.detach()._base is None and x[1:].detach()._base is None
    assert x.clone()._base is None


def test_augmented_assignment_into_an_index_of_a_non_leaf():
    a = _leaf(3)
    x = a * 2
    x[0] += 1                                         # getitem view, add_ on it, setitem back
    assert x.grad_fn is not None
    x.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_inplace_op_on_a_slice_rebases_the_base():
    a = _leaf(4)
    x = a * 2
    v = x[0:2]
    v.mul_(3)
    assert x.grad_fn.name() == "CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"
    x.sum().backward()
    assert a.grad.tolist() == [6.0, 6.0, 2.0, 2.0]
    assert x.tolist() == [6.0, 12.0, 6.0, 8.0]


def test_copy_into_a_view_of_a_tensor_without_grad_makes_the_base_require_grad():
    a = _leaf(3)
    buf = torch.zeros(4, dtype=torch.float64)
    buf[1:3].copy_(a[1:] * 10)
    assert buf.requires_grad and buf.grad_fn.name() == "CopySlices"
    (buf * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
    assert a.grad.tolist() == [0.0, 20.0, 30.0]


def test_overlapping_view_sees_the_write_through_another_view():
    a = _leaf(4)
    x = a * 2
    v, w = x[0:2], x[1:3]
    v.mul_(3)                                         # w[0] is x[1], now 3 * 2 * a[1]
    w.sum().backward()
    assert a.grad.tolist() == [0.0, 6.0, 2.0, 0.0]


def test_view_made_before_an_inplace_op_on_its_base_follows_it():
    a = _leaf(3)
    x = a * 2
    v = x[0]
    x.mul_(3)
    v.backward()
    assert a.grad.tolist() == [6.0, 0.0, 0.0]


def test_setitem_into_a_view_of_a_non_leaf():
    a = _leaf(2, 3)
    b = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
    x = a * 1
    x[0][1] = b * 2                                   # x[0] is a view; its setitem writes x
    assert x[0, 1].item() == 10.0
    x.sum().backward()
    assert a.grad.tolist() == [[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]
    assert b.grad.item() == 2.0


def test_inplace_on_a_transposed_view_with_a_saved_result():
    a = _leaf(2, 3)
    x = a * 1
    x.t()[1].exp_()                                   # column 1 of x; exp_'s formula reads its result
    x.sum().backward()
    expected = np.ones((2, 3))
    expected[:, 1] = np.exp(a.detach().numpy()[:, 1])
    np.testing.assert_allclose(a.grad.numpy(), expected)


def test_view_of_a_leaf_that_requires_grad_cannot_be_written():
    a = _leaf(3)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation"):
        a[0:2].mul_(2)
    with torch.no_grad():
        a[0:2].mul_(2)                                # as PyTorch: allowed without grad mode
    assert a.tolist() == [2.0, 4.0, 3.0]


def test_inplace_views_of_views_gradcheck_and_gradgradcheck():
    def f(a, b):
        y = a * 1
        y[:, 0].mul_(b)                               # a column: a strided view
        y.t()[2].add_(y[:, 1])                        # reads a view of y, writes another
        return y

    a = torch.rand(3, 3, dtype=torch.float64, requires_grad=True)
    b = torch.rand(3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))


def test_in_place_view_ops_change_only_the_view_history():
    a = _leaf(2, 3)
    x = a * 1
    v = x[0:2]
    v.t_()
    assert x.grad_fn.name() == "MulBackward0"         # the base is untouched
    (v * torch.arange(6.0, dtype=torch.float64).reshape(3, 2)).sum().backward()
    assert a.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


def test_as_strided_inplace_gradient_reads_the_old_geometry():
    def f(a):
        y = a * 1
        y.as_strided_((2, 2), (1, 3), 1)
        return y

    def overlapping(a):
        y = a * 1
        y.as_strided_((3, 2), (0, 1), 0)
        return y

    a = torch.rand(3, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(f, (a,)) and gradgradcheck(f, (a,))
    assert gradcheck(overlapping, (a,))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        a.as_strided_((2,), (1,))


def test_input_is_saved_only_for_a_gradient_that_is_needed():
    """As PyTorch's should_compute_output: y[1] * 3 saves y[1] only for the constant's gradient, which nothing
    needs, so writing y afterwards does not stop backward; when the other factor requires grad it does."""
    x = _leaf(4)
    y = x.clone()
    z = y[1] * 3
    y[0] = 5.0
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), 3 * np.eye(4)[1])
    w = torch.tensor(3.0, requires_grad=True)
    y = x.clone()
    z = y[1] * w
    y[0] = 5.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
