"""cummax / cummin / logcumsumexp (Cython kernels, aten/native/cpu/scan_extremes.pyx) and quantile /
nanquantile (aten/native/composite/quantile.py): behaviour the OpInfo database can't express.

Error types and messages were read off PyTorch 2.x; numerics are compared with NumPy float64.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch

INF, NAN = float("inf"), float("nan")


def _t(values, dtype=None):
    return torch.tensor(values, dtype=dtype)


# -- cummax / cummin ------------------------------------------------------------------------------

def _cum_extreme_ref(a: np.ndarray, dim: int, take_max: bool):
    """PyTorch's rule: a NaN, or a value >= (<=) the running one, takes over; later index wins ties."""
    x = np.moveaxis(a, dim, -1)
    values, indices = np.empty_like(x), np.zeros(x.shape, np.int64)
    is_float = a.dtype.kind == "f"
    for idx in np.ndindex(x.shape[:-1]):
        best, where = x[idx + (0,)], 0
        for i in range(x.shape[-1]):
            v = x[idx + (i,)]
            if is_float and np.isnan(v):
                best, where = v, i
            elif not (is_float and np.isnan(best)) and (v >= best if take_max else v <= best):
                best, where = v, i
            values[idx + (i,)], indices[idx + (i,)] = best, where
    return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_cummax_cummin_match_the_reference_on_any_shape_layout_and_dtype(data):
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64, torch.int64, torch.int32, torch.int8,
                                       torch.uint8, torch.bool]))
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    a = rng.integers(0, 4, shape)           # few distinct values: many ties
    if dtype.is_floating_point:
        a = np.where(rng.random(shape) < 0.1, np.nan, a)
    t = torch.from_numpy(a).to(dtype)
    if data.draw(st.booleans()) and len(shape) > 1:
        t = t.transpose(0, -1).contiguous().transpose(0, -1)     # same values, permuted strides
    base = t.numpy()
    for op, take_max in ((torch.cummax, True), (torch.cummin, False)):
        values, indices = op(t, dim)
        ev, ei = _cum_extreme_ref(base, dim, take_max)
        np.testing.assert_array_equal(values.numpy(), ev)
        np.testing.assert_array_equal(indices.numpy(), ei)


def test_cummax_takes_the_last_index_among_equal_values():
    assert torch.cummax(_t([1, 1, 2, 2]), 0).indices.tolist() == [0, 1, 2, 3]
    assert torch.cummin(_t([0.0, -0.0, 0.0]), 0).indices.tolist() == [0, 1, 2]
    assert torch.cummax(_t([True, False, True]), 0).indices.tolist() == [0, 0, 2]


def test_cummax_nan_propagates_and_each_new_nan_takes_the_index():
    r = torch.cummax(_t([1.0, NAN, 3.0, NAN, 0.0]), 0)
    assert np.isnan(r.values.numpy()[1:]).all() and r.indices.tolist() == [0, 1, 1, 3, 3]


def test_cummax_of_a_scalar_accepts_only_dim_0_or_minus_1():
    r = torch.cummin(torch.tensor(5), -1)
    assert r.values.item() == 5 and r.indices.item() == 0 and r.indices.dtype == torch.int64
    with pytest.raises(IndexError, match=r"cummax\(\): Expected reduction dim -1 or 0 for scalar but got 5"):
        torch.cummax(torch.tensor(1.0), 5)


def test_cummax_of_an_empty_tensor_checks_no_dim():
    r = torch.cummax(torch.ones(0, 3), 5)
    assert r.values.shape == (0, 3) and r.indices.dtype == torch.int64


def test_cummax_out_checks_dtypes_as_pytorch_and_writes_given_tensors():
    x = torch.tensor([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]])
    with pytest.raises(RuntimeError, match="expected scalar_type Float but found Long"):
        torch.cummax(x, 1, out=(torch.empty(0, dtype=torch.int64), torch.empty(0, dtype=torch.int64)))
    with pytest.raises(RuntimeError, match="expected scalar_type Long but found Int"):
        torch.cummin(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    values, indices = torch.empty(0), torch.empty(0, dtype=torch.int64)
    r = torch.cummax(x, 1, out=(values, indices))
    assert r[0] is values and r[1] is indices
    assert values.tolist() == [[3, 3, 4], [1, 5, 9]] and indices.tolist() == [[0, 0, 2], [0, 1, 2]]


def test_cummax_float16_keeps_float16_values():
    r = torch.cummax(torch.tensor([1.0, 3.0, 2.0], dtype=torch.float16), 0)
    assert r.values.dtype == torch.float16 and r.values.tolist() == [1, 3, 3] and r.indices.tolist() == [0, 1, 1]


# -- logcumsumexp ---------------------------------------------------------------------------------

def test_logcumsumexp_handles_infinities_and_nan_as_pytorch():
    got = torch.logcumsumexp(_t([-INF, -INF, 1.0, INF, -INF, NAN, 1.0]), 0).tolist()
    assert got[:5] == [-INF, -INF, 1.0, INF, INF] and np.isnan(got[5:]).all()
    assert torch.logcumsumexp(_t([INF, INF, -INF]), 0).tolist() == [INF, INF, INF]


def test_logcumsumexp_is_stable_on_a_long_dim():
    x = torch.linspace(-300, 900, 20000, dtype=torch.float64).reshape(1, -1)
    expected = np.logaddexp.accumulate(x.numpy(), axis=1)
    np.testing.assert_allclose(torch.logcumsumexp(x, 1).numpy(), expected, rtol=1e-12)
    f = x.float()
    np.testing.assert_allclose(torch.logcumsumexp(f.t(), 0).t().numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("t", [torch.tensor([1, 2]), torch.tensor([], dtype=torch.int64), torch.tensor(3)],
                         ids=["1-d", "empty", "0-dim"])
def test_logcumsumexp_refuses_integers_even_empty_or_0_dim(t):
    with pytest.raises(NotImplementedError, match="\"logcumsumexp_out_cpu\" not implemented for 'Long'"):
        torch.logcumsumexp(t, 0)


def test_logcumsumexp_checks_dim_before_dtype_and_out_dtype_first():
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.logcumsumexp(torch.tensor([1, 2]), 5)
    with pytest.raises(RuntimeError, match="expected scalar_type Float but found Double"):
        torch.logcumsumexp(torch.ones(2), 0, out=torch.empty(2, dtype=torch.float64))
    out = torch.empty(2)
    assert torch.logcumsumexp(torch.zeros(2), 0, out=out) is out
    np.testing.assert_allclose(out.numpy(), [0.0, np.log(2.0)], rtol=1e-6)


def test_logcumsumexp_float16_accumulates_in_float():
    x = torch.randn(200, dtype=torch.float16)
    got = torch.logcumsumexp(x, 0)
    assert got.dtype == torch.float16
    np.testing.assert_allclose(got.float().numpy(), np.logaddexp.accumulate(x.double().numpy()), rtol=2e-3)


# -- quantile / nanquantile -----------------------------------------------------------------------

X = torch.tensor([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("call, error, message", [
    (lambda: torch.quantile(X, 1.5), RuntimeError, r"quantile\(\) q must be in the range \[0, 1\] but got 1.5"),
    (lambda: torch.quantile(X, -1.0), RuntimeError, r"q must be in the range \[0, 1\] but got -1$"),
    (lambda: torch.quantile(X, 123456789.0), RuntimeError, r"but got 1.23457e\+08"),
    (lambda: torch.quantile(X, NAN), RuntimeError, r"but got nan"),
    (lambda: torch.nanquantile(X, 2.0), RuntimeError, r"quantile\(\) q must be in the range \[0, 1\] but got 2$"),
    (lambda: torch.quantile(X, torch.tensor([0.5, 1.5])), RuntimeError,
     r"quantile\(\) q values must be in the range \[0, 1\]"),
    (lambda: torch.quantile(X, torch.tensor(NAN)), RuntimeError, r"q values must be in the range \[0, 1\]"),
    (lambda: torch.quantile(X, torch.tensor([0.5], dtype=torch.float64)), RuntimeError,
     r"quantile\(\) q tensor must be same dtype as the input tensor"),
    (lambda: torch.quantile(torch.tensor([]), 0.5), RuntimeError, r"quantile\(\) input tensor must be non-empty"),
    (lambda: torch.nanquantile(torch.ones(0, 2), 0.5, dim=0), RuntimeError, r"input tensor must be non-empty"),
    (lambda: torch.quantile(torch.tensor([1, 2]), 0.5), RuntimeError,
     r"quantile\(\) input tensor must be either float or double dtype"),
    (lambda: torch.quantile(torch.ones(2, dtype=torch.float16), 0.5), RuntimeError,
     r"input tensor must be either float or double dtype"),
    (lambda: torch.quantile(X, torch.tensor([[0.5]])), RuntimeError, r"quantile\(\) q must be a scalar or 1D tensor"),
    (lambda: torch.quantile(X, 0.5, interpolation="foo"), RuntimeError,
     r"quantile\(\) interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo"),
    (lambda: torch.quantile(X, 0.5, dim=5), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"),
    (lambda: torch.quantile(X, 0.5, out=torch.empty(0, dtype=torch.float64)), RuntimeError,
     r"quantile\(\) out tensor must be same dtype as the input tensor"),
])
def test_quantile_errors_match_pytorch(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("call, message", [
    # the scalar q is checked before anything else, then the interpolation, then the input
    (lambda: torch.quantile(torch.tensor([1, 2]), 1.5), "q must be in the range"),
    (lambda: torch.quantile(torch.tensor([]), 0.5, interpolation="x"), "interpolation must be one of"),
    (lambda: torch.quantile(torch.tensor([], dtype=torch.int64), torch.tensor([[2.0]])), "must be non-empty"),
    (lambda: torch.quantile(torch.tensor([1, 2]), torch.tensor([[2.0]])), "q must be a scalar or 1D tensor"),
    # the out dtype before the dim, the dim before the q tensor's values
    (lambda: torch.quantile(X, 0.5, dim=5, out=torch.empty(0, dtype=torch.int64)), "out tensor must be same dtype"),
    (lambda: torch.quantile(X, torch.tensor([2.0]), out=torch.empty(0, dtype=torch.int64)),
     "out tensor must be same dtype"),
])
def test_quantile_checks_run_in_pytorchs_order(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()
    with pytest.raises(IndexError):
        torch.quantile(X, torch.tensor([2.0]), dim=5)


@pytest.mark.parametrize("q, dim, keepdim, shape", [
    (0.3, None, False, ()), (0.3, None, True, (1, 1, 1)), (torch.tensor([0.2, 0.5]), None, False, (2,)),
    (torch.tensor([0.2, 0.5]), None, True, (2, 1, 1, 1)), (torch.tensor(0.5), 1, False, (2, 4)),
    (torch.tensor([0.2, 0.5]), 1, True, (2, 2, 1, 4)), (torch.tensor([0.2, 0.5, 0.7]), -1, False, (3, 2, 3)),
    (torch.tensor([]), 0, False, (0, 3, 4)),
])
def test_quantile_result_shape_puts_q_dim_first(q, dim, keepdim, shape):
    x = torch.randn(2, 3, 4)
    assert tuple(torch.quantile(x, q, dim=dim, keepdim=keepdim).shape) == shape
    assert tuple(x.nanquantile(q, dim, keepdim).shape) == shape


def test_quantile_of_a_0_dim_input():
    assert torch.quantile(torch.tensor(3.0), 0.3, dim=0).item() == 3.0
    assert torch.quantile(torch.tensor(3.0), 0.3, dim=-1, keepdim=True).shape == ()


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_quantile_matches_numpy_on_random_slices(interpolation, dtype):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((6, 9, 5))
    a[rng.random(a.shape) < 0.1] = np.nan
    q = np.array([0.0, 0.1, 0.33, 0.5, 0.99, 1.0])
    t = torch.from_numpy(a).to(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for fn, np_fn in ((torch.quantile, np.quantile), (torch.nanquantile, np.nanquantile)):
            for dim in (None, 0, 1, 2):
                got = fn(t, torch.from_numpy(q).to(dtype), dim=dim, interpolation=interpolation)
                want = np_fn(a.astype(np.float32) if dtype == torch.float32 else a, q, axis=dim,
                             method=interpolation)
                tol = 1e-5 if dtype == torch.float32 else 1e-12
                np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol, equal_nan=True)


def test_quantile_nan_slice_gives_nan_but_nanquantile_ignores_nans():
    x = torch.tensor([[NAN, 1.0, 2.0], [NAN, NAN, NAN]])
    assert np.isnan(torch.quantile(x, 0.5, dim=1).numpy()).all()
    got = torch.nanquantile(x, 0.5, dim=1).numpy()
    assert got[0] == 1.5 and np.isnan(got[1])


def test_quantile_blends_infinities_as_pytorchs_lerp():
    assert np.isnan(torch.quantile(torch.tensor([1.0, INF]), 0.5).item())
    assert np.isnan(torch.quantile(torch.tensor([-INF, INF]), 0.5, interpolation="midpoint").item())
    assert torch.quantile(torch.tensor([1.0, INF]), 0.0).item() == 1.0
    assert torch.quantile(torch.tensor([1.0, INF]), 1.0, interpolation="higher").item() == INF


def test_quantile_out_overloads_write_and_resize_the_given_tensor():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    out = torch.empty(0)
    assert torch.quantile(x, torch.tensor([0.5, 0.25]), out=out) is out
    assert out.tolist() == [2.5, 1.75]
    out = torch.empty(0)
    assert torch.nanquantile(x, 0.5, 0, True, interpolation="lower", out=out) is out
    assert out.tolist() == [2.0]
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        torch.quantile(x, 0.5, out=torch.empty(3))


def test_quantile_method_and_keyword_forms():
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    assert x.quantile(q=0.5, dim=1, keepdim=True, interpolation="nearest").tolist() == [[3.0]]
    assert x.nanquantile(torch.tensor([0.5, 1 / 6]), 1, False, interpolation="nearest").tolist() == [[3.0], [1.0]]
    assert torch.quantile(x, 1).item() == 4.0
