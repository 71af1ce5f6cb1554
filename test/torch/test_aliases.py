"""Alias names, predicates, in-place views and small composites: what the operator database
cannot express (identity of results, shared storage, versions, errors and warnings), checked
against PyTorch's behaviour (messages as the reference torch 2.13 gives them)."""
from __future__ import annotations

import numpy as np
import pytest

import torch


def _t(values, dtype=None):
    return torch.tensor(values, dtype=dtype)


# -- predicates -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, floating, signed", [
    (torch.bool, False, False), (torch.uint8, False, False), (torch.int8, False, True), (torch.int64, False, True),
    (torch.float16, True, True), (torch.float32, True, True), (torch.float64, True, True)])
def test_dtype_predicates_follow_the_dtype(dtype, floating, signed):
    t = torch.zeros(2, dtype=dtype)
    assert t.is_floating_point() is floating and torch.is_floating_point(t) is floating
    assert t.is_signed() is signed and torch.is_signed(t) is signed
    assert t.is_complex() is False and torch.is_complex(t) is False


def test_is_nonzero_of_one_element_is_its_truth():
    assert _t([0.0]).is_nonzero() is False
    assert torch.is_nonzero(_t(3)) is True
    assert _t([[True]]).is_nonzero() is True


@pytest.mark.parametrize("shape, message", [((0,), "Boolean value of Tensor with no values is ambiguous"),
                                            ((2,), "Boolean value of Tensor with more than one value is ambiguous")])
def test_is_nonzero_refuses_other_sizes_as_pytorch(shape, message):
    with pytest.raises(RuntimeError, match=message):
        torch.ones(shape).is_nonzero()


def test_is_same_size_numel_nelement_ndimension():
    a, b = torch.ones(2, 3), torch.ones(3, 2)
    assert a.is_same_size(torch.zeros(2, 3)) is True and torch.is_same_size(a, b) is False
    assert torch.numel(a) == 6 and a.nelement() == 6 and a.ndimension() == 2
    assert torch.numel(torch.ones(())) == 1
    with pytest.raises(TypeError):
        torch.numel([1, 2])


# -- aliases ---------------------------------------------------------------------------------------

def test_positive_returns_the_input_itself_and_refuses_bool():
    t = torch.ones(3)
    assert torch.positive(t) is t and t.positive() is t
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported."):
        torch.positive(_t([True]))


def test_divide_rounding_modes_and_scalar_overloads():
    a = _t([5, -7])
    assert torch.divide(a, 2).tolist() == [2.5, -3.5]
    assert torch.divide(a, 2, rounding_mode="floor").tolist() == [2, -4]
    assert a.divide(_t([2, 2]), rounding_mode="trunc").tolist() == [2, -3]
    assert torch.true_divide(a, 2).dtype == torch.float32
    b = a.clone()
    assert b.divide_(2, rounding_mode="floor") is b and b.tolist() == [2, -4]
    with pytest.raises(RuntimeError, match="can't be cast"):
        a.clone().divide_(2)


def test_subtract_alpha_and_scalar_other():
    assert torch.subtract(_t([5]), 2, alpha=2).tolist() == [1]
    assert _t([5.0]).subtract(_t([1.0]), alpha=3).tolist() == [2.0]


def test_comparison_aliases_take_numbers():
    t = _t([1, 2, 3])
    assert torch.greater(t, 2).tolist() == [False, False, True]
    assert t.less_equal(2).tolist() == [True, True, False]
    assert torch.not_equal(t, t).tolist() == [False] * 3
    u = t.clone()
    assert u.greater_equal_(2) is u and u.tolist() == [0, 1, 1]


def test_swapaxes_is_a_view_and_swapaxes_in_place_changes_metadata_only():
    t = torch.arange(6).reshape(2, 3)
    v = torch.swapaxes(t, 0, 1)
    assert v.shape == (3, 2) and v._untyped_storage.data_ptr() == t._untyped_storage.data_ptr()
    version = t._version
    assert t.swapdims_(0, -1) is t
    assert t.shape == (3, 2) and t.stride() == (1, 3) and t._version == version
    assert t.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_ravel_view_as_reshape_as_type_as():
    t = torch.arange(6).reshape(2, 3)
    r = t.ravel()
    r[0] = 10
    assert t[0, 0].item() == 10                      # a view of a contiguous tensor
    nc = t.t()
    assert nc.ravel().tolist() == [10, 3, 1, 4, 2, 5]   # copies a non-contiguous one
    assert t.view_as(torch.zeros(3, 2)).shape == (3, 2)
    assert nc.reshape_as(torch.zeros(6)).tolist() == [10, 3, 1, 4, 2, 5]
    assert t.type_as(torch.zeros(1, dtype=torch.float64)).dtype == torch.float64
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        nc.view_as(torch.zeros(6))


# -- in-place views ----------------------------------------------------------------------------------

def test_in_place_views_keep_storage_and_version():
    t = torch.arange(6.0).reshape(2, 1, 3)
    ptr, version = t._untyped_storage.data_ptr(), t._version
    assert t.squeeze_(1) is t and t.shape == (2, 3)
    assert t.unsqueeze_(0) is t and t.shape == (1, 2, 3)
    assert t.squeeze_() is t and t.shape == (2, 3)
    assert t.t_() is t and t.shape == (3, 2) and not t.is_contiguous()
    assert t.transpose_(0, 1) is t and t.shape == (2, 3) and t.is_contiguous()
    t.unsqueeze_(-1).squeeze_((0, 2))
    assert t.shape == (2, 3)
    assert t._untyped_storage.data_ptr() == ptr and t._version == version
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_in_place_view_errors_match_pytorch():
    with pytest.raises(RuntimeError, match="t_\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        torch.ones(2, 3, 4).t_()
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.ones(2).unsqueeze_(3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.ones(2).transpose_(0, 2)


def test_as_strided_in_place_restrides_self():
    t = torch.arange(6.0)
    assert t.as_strided_((2, 2), (1, 2), 1) is t
    assert t.tolist() == [[1.0, 3.0], [2.0, 4.0]] and t.storage_offset() == 1
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        t.as_strided_((4, 4), (4, 1))


def test_tril_triu_in_place():
    t = torch.ones(3, 3)
    assert t.tril_(-1) is t and t.sum().item() == 3
    u = torch.ones(2, 3)
    assert u.triu_() is u and u.tolist() == [[1, 1, 1], [0, 1, 1]]


# -- composites: errors as PyTorch ---------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda: torch.fliplr(torch.ones(3)), RuntimeError, "Input must be >= 2-d."),
    (lambda: torch.flipud(torch.ones(())), RuntimeError, "Input must be >= 1-d."),
    (lambda: torch.rot90(torch.ones(3)), RuntimeError, "expected total dims >= 2, but got total dims = 1"),
    (lambda: torch.rot90(torch.ones(3, 3), 1, [0, 0]), RuntimeError,
     "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"),
    (lambda: torch.nanmean(_t([1, 2])), RuntimeError,
     "nanmean\\(\\): expected input to have floating point or complex dtype but got Long"),
    (lambda: torch.heaviside(_t([1, 2]), _t([1.0])), RuntimeError,
     "heaviside is not yet implemented for tensors with different dtypes."),
    (lambda: torch.ones(2).float_power_(2), RuntimeError,
     "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"),
    (lambda: torch.hsplit(torch.ones(()), 1), RuntimeError,
     "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!"),
    (lambda: torch.hsplit(torch.ones(4), 3), RuntimeError,
     "torch.hsplit attempted to split along dimension 0, but the size of the dimension 4 is not divisible by the "
     "split_size 3!"),
    (lambda: torch.vsplit(torch.ones(4), 2), RuntimeError,
     "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!"),
    (lambda: torch.tensor_split(torch.ones(()), 2), RuntimeError,
     "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"),
    (lambda: torch.tensor_split(torch.ones(5), 0), RuntimeError, "number of sections must be larger than 0, got 0"),
    (lambda: torch.tensor_split(torch.ones(5), _t([[1]])), RuntimeError,
     "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got "
     "a tensor with 2 dims"),
    (lambda: torch.tensor_split(torch.ones(5), _t([1.0])), RuntimeError,
     "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float"),
    (lambda: torch.diff(torch.ones(())), RuntimeError, "diff expects input to be at least one-dimensional"),
    (lambda: torch.ones(2, 3).sum_to_size(2, 1, 3), RuntimeError,
     "size \\{\\[2, 1, 3\\]\\} is not expandable to size \\{\\[2, 3\\]\\}."),
    (lambda: torch.inner(torch.ones(2, 3), torch.ones(2, 4)), RuntimeError,
     "inner\\(\\) the last dimension must match on both input tensors but got shapes \\[2, 3\\] and \\[2, 4\\]"),
    (lambda: torch.cross(torch.ones(4, 3), torch.ones(4, 3), dim=0), RuntimeError,
     "linalg.cross: inputs dimension 0 must have length 3. Got 4 and 4"),
    (lambda: torch.trace(torch.ones(2, 2, 2)), RuntimeError, "trace: expected a matrix, but got tensor with dim 3"),
    (lambda: torch.trace(torch.ones(2, 2, dtype=torch.bool)), NotImplementedError,
     "\"trace\" not implemented for 'Bool'"),
    (lambda: torch.aminmax(torch.ones(0)), RuntimeError,
     "aminmax\\(\\): cannot compute aminmax over an empty dimension as the operation has no identity."),
    (lambda: torch.aminmax(torch.ones(0, 3), dim=0), IndexError,
     "aminmax: Expected reduction dim 0 to have non-zero size."),
    (lambda: torch.logaddexp(_t([1]), _t([2])), RuntimeError, "\"logaddexp_cpu\" not implemented for 'Long'"),
    (lambda: torch.logcumsumexp(_t([1, 2]), 0), NotImplementedError,
     "\"logcumsumexp_out_cpu\" not implemented for 'Long'"),
    (lambda: torch.gcd(_t([4.0]), _t([6.0])), NotImplementedError, "\"gcd_cpu\" not implemented for 'Float'"),
    (lambda: torch.lcm(_t([True]), _t([False])), NotImplementedError, "\"lcm_cpu\" not implemented for 'Bool'"),
    (lambda: _t([180]).deg2rad_(), RuntimeError, "result type Float can't be cast to the desired output type Long"),
])
def test_composite_errors_match_pytorch(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_cross_without_dim_warns_and_takes_the_first_size_3_dim():
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        got = torch.cross(a, b)
    np.testing.assert_allclose(got.numpy(), np.cross(a.numpy(), b.numpy(), axis=1), rtol=1e-5, atol=1e-6)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="no dimension of size 3 in input"):
        torch.cross(torch.ones(4, 2), torch.ones(4, 2))


def test_cummax_returns_named_values_and_indices_with_nan_propagating():
    r = torch.cummax(_t([1.0, float("nan"), 3.0, float("nan"), 0.0]), 0)
    assert type(r).__name__ == "cummax" and r.values is r[0] and r.indices is r[1]
    assert np.isnan(r.values.numpy()[1:]).all() and r.indices.tolist() == [0, 1, 1, 3, 3]
    m = torch.cummin(_t([3, 1, 1, 2]), 0)
    assert m.values.tolist() == [3, 1, 1, 1] and m.indices.tolist() == [0, 1, 2, 2]


def test_aminmax_returns_named_min_max():
    r = torch.ones(2, 3).aminmax(dim=1)
    assert type(r).__name__ == "aminmax" and r.min.shape == (2,) and r.max.shape == (2,)


def test_xlogy_scalar_self_and_out_overloads():
    got = torch.xlogy(2, _t([3.0, 0.0]))
    np.testing.assert_allclose(got.numpy(), [2 * np.log(3.0), -np.inf], rtol=1e-6)
    out = torch.empty(2)
    assert torch.xlogy(_t([0.0, 2.0]), 3, out=out) is out
    np.testing.assert_allclose(out.numpy(), [0.0, 2 * np.log(3.0)], rtol=1e-6)
    t = _t([1.0, 2.0])
    assert t.xlogy_(2) is t


def test_float_power_computes_in_float64():
    assert torch.float_power(_t([1, 2]), 2).dtype == torch.float64
    assert torch.float_power(2, _t([1.0, 3.0])).tolist() == [2.0, 8.0]
    t = _t([4.0], torch.float64)
    assert t.float_power_(0.5) is t and t.tolist() == [2.0]


def test_tensor_split_pieces_are_views():
    t = torch.arange(7.0)
    pieces = torch.tensor_split(t, 3)
    assert [p.tolist() for p in pieces] == [[0.0, 1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    pieces[1][0] = 30.0
    assert t[3].item() == 30.0


def test_nan_reductions_on_float16_compute_in_float():
    h = torch.tensor([1.0, float("nan"), 2.0, 4.0], dtype=torch.float16)
    assert torch.nansum(h).dtype == torch.float16 and torch.nansum(h).item() == 7.0
    assert torch.nanmean(h).dtype == torch.float16
    np.testing.assert_allclose(torch.nanmean(h).item(), 7.0 / 3.0, rtol=1e-3)
