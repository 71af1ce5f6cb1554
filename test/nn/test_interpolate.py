"""F.interpolate against PyTorch 2.13's results (tools/record_interpolate_reference.py): outputs and
input gradients of every mode in 1, 2 and 3 spatial dims, with sizes, scale factors, align_corners and
recompute_scale_factor, and the errors; then the modules, the deprecated aliases and shape properties."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
import torch.nn.functional as F
from tools import record_interpolate_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "interpolate" /
                        "interpolate.json").read_text())["cases"]
# float32 within a few roundings of PyTorch's (its AVX2 build may contract a multiply-add); float64 tighter
TOLERANCE = {"torch.float32": 2e-6, "torch.float64": 1e-12, "torch.bfloat16": 1e-2}


@pytest.mark.parametrize("case", record.CASES)
def test_interpolate_does_what_it_does_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref:
        assert mine == ref
        return
    assert mine["dtype"] == ref["dtype"]
    tol = TOLERANCE[ref["dtype"]]
    for key in ("output", "grad"):
        np.testing.assert_allclose(np.array(mine[key]), np.array(ref[key]), rtol=tol, atol=tol, err_msg=key)


def test_nearest_and_linear_at_the_same_size_copy_the_input():
    x = torch.randn(2, 3, 4, 5)
    for mode in ("nearest", "bilinear", "bicubic"):
        assert torch.equal(F.interpolate(x, size=(4, 5), mode=mode), x)


def test_align_corners_linear_is_numpys_interp():
    x = torch.randn(2, 3, 6, dtype=torch.float64)
    y = F.interpolate(x, size=11, mode="linear", align_corners=True)
    grid = np.linspace(0, 5, 11)
    expected = np.apply_along_axis(lambda row: np.interp(grid, np.arange(6), row), -1, x.numpy())
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 7), out=st.integers(1, 9), mode=st.sampled_from(["linear", "nearest", "nearest-exact"]),
       align=st.booleans())
def test_interpolation_weights_sum_to_one_and_keep_constants(n, out, mode, align):
    x = torch.full((1, 2, n), 3.25, dtype=torch.float64)
    kwargs = {"align_corners": align} if mode == "linear" else {}
    y = F.interpolate(x, size=out, mode=mode, **kwargs)
    assert y.shape == (1, 2, out)
    np.testing.assert_allclose(y.numpy(), 3.25, rtol=1e-15)


@pytest.mark.parametrize("mode,shape", [("linear", (1, 2, 5)), ("bicubic", (1, 2, 4, 3)),
                                        ("trilinear", (1, 1, 3, 2, 4)), ("nearest-exact", (2, 1, 3, 5))])
def test_interpolation_gradients_pass_gradcheck_and_gradgradcheck(mode, shape):
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    size = tuple(s + 2 for s in shape[2:])
    kwargs = {} if mode == "nearest-exact" else {"align_corners": False}
    fn = lambda t: F.interpolate(t, size=size, mode=mode, **kwargs)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (x,))
    assert torch.autograd.gradgradcheck(fn, (x,))


def test_strided_input_gives_the_contiguous_result():
    x = torch.randn(1, 2, 6, 8)
    view = x.transpose(2, 3)
    assert torch.equal(F.interpolate(view, size=(5, 4), mode="bicubic"),
                       F.interpolate(view.contiguous(), size=(5, 4), mode="bicubic"))


def test_nearest_keeps_uint8_and_bilinear_refuses_it_clearly():
    x = torch.arange(8, dtype=torch.uint8).reshape(1, 1, 2, 4)
    assert F.interpolate(x, scale_factor=2).dtype == torch.uint8
    with pytest.raises(NotImplementedError, match="uint8"):
        F.interpolate(x, scale_factor=2, mode="bilinear")


def test_antialias_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="anti-aliased"):
        F.interpolate(torch.randn(1, 1, 4, 4), size=2, mode="bilinear", antialias=True)


def test_upsample_modules_and_their_reprs():
    x = torch.randn(1, 2, 3, 4)
    up = torch.nn.Upsample(scale_factor=2, mode="bilinear")
    assert repr(up) == "Upsample(scale_factor=2.0, mode='bilinear')"
    assert torch.equal(up(x), F.interpolate(x, scale_factor=2.0, mode="bilinear"))
    assert repr(torch.nn.UpsamplingNearest2d(size=(5, 6))) == "UpsamplingNearest2d(size=(5, 6), mode='nearest')"
    bilinear = torch.nn.UpsamplingBilinear2d(scale_factor=(2, 3))
    assert bilinear.scale_factor == (2.0, 3.0)
    assert torch.equal(bilinear(x), F.interpolate(x, scale_factor=(2.0, 3.0), mode="bilinear", align_corners=True))


def test_deprecated_aliases_warn_and_interpolate():
    x = torch.randn(1, 2, 3, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = F.upsample_bilinear(x, scale_factor=2)
    assert "upsample_bilinear` is deprecated" in str(caught[0].message)
    assert torch.equal(y, F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True))
