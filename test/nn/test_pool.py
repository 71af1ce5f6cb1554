"""Max/Avg/AdaptiveAvg pooling (1-d and 2-d): NumPy float64 references, indices, gradcheck, and PyTorch 2.13's
reprs and error messages (literals generated once with PyTorch 2.13)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck

RNG = np.random.default_rng(0)


def _out_len(size, k, s, p, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1
    n = (math.ceil(span / s) if ceil else span // s) + 1
    if ceil and (n - 1) * s >= size + p:  # the last window must start inside the input or left padding
        n -= 1
    return n


def _pool2d_ref(x, k, s, p, d, ceil, kind, count_include_pad=True, divisor=None):
    """2-d max/avg pooling of (N, C, H, W) in float64; max also returns flat H*W indices."""
    n, c, h, w = x.shape
    oh, ow = _out_len(h, k[0], s[0], p[0], d[0], ceil), _out_len(w, k[1], s[1], p[1], d[1], ceil)
    out = np.zeros((n, c, oh, ow))
    idx = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - p[0], j * s[1] - p[1]
            rows = [r0 + a * d[0] for a in range(k[0])]
            cols = [c0 + b * d[1] for b in range(k[1])]
            if kind == "max":
                rows = [r for r in rows if 0 <= r < h]
                cols = [q for q in cols if 0 <= q < w]
                win = x[:, :, rows][:, :, :, cols].reshape(n, c, -1)
                arg = win.argmax(-1)
                out[:, :, i, j] = win.max(-1)
                flat = np.array([[r * w + q for q in cols] for r in rows]).reshape(-1)
                idx[:, :, i, j] = flat[arg]
            else:
                # Window clipped to input + padding (what count_include_pad counts), then to the input.
                r_end, c_end = min(r0 + k[0], h + p[0]), min(c0 + k[1], w + p[1])
                padded_count = (r_end - r0) * (c_end - c0)
                ra, rb, ca, cb = max(r0, 0), min(r_end, h), max(c0, 0), min(c_end, w)
                total = x[:, :, ra:rb, ca:cb].sum((-1, -2))
                if divisor is not None:
                    div = divisor
                elif count_include_pad:
                    div = padded_count
                else:
                    div = (rb - ra) * (cb - ca)
                out[:, :, i, j] = total / div
    return out, idx


MAX2D = [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 1), ceil_mode=True),
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, ceil_mode=True),
]


@pytest.mark.parametrize("kwargs", MAX2D, ids=[str(i) for i in range(len(MAX2D))])
def test_max_pool2d_values_and_indices_match_numpy(kwargs):
    x = RNG.standard_normal((2, 3, 9, 8))
    m = nn.MaxPool2d(**kwargs, return_indices=True)
    y, i = m(torch.tensor(x))
    t = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    k = t(kwargs["kernel_size"])
    ref, ref_i = _pool2d_ref(x, k, t(kwargs.get("stride", k)), t(kwargs.get("padding", 0)),
                             t(kwargs.get("dilation", 1)), kwargs.get("ceil_mode", False), "max")
    np.testing.assert_array_equal(y.numpy(), ref)
    np.testing.assert_array_equal(i.numpy(), ref_i)
    assert i.dtype == torch.int64
    np.testing.assert_array_equal(nn.MaxPool2d(**kwargs)(torch.tensor(x)).numpy(), ref)


def test_max_pool1d_matches_max_pool2d_on_height_one():
    x = RNG.standard_normal((2, 3, 10))
    y, i = F.max_pool1d(torch.tensor(x), 3, 2, 1, ceil_mode=True, return_indices=True)
    ref, ref_i = _pool2d_ref(x[:, :, None], (1, 3), (1, 2), (0, 1), (1, 1), True, "max")
    np.testing.assert_array_equal(y.numpy(), ref[:, :, 0])
    np.testing.assert_array_equal(i.numpy(), ref_i[:, :, 0])
    # Unbatched, dilation, stride defaulting to kernel_size.
    y = nn.MaxPool1d(2, dilation=2)(torch.tensor(x[0]))
    ref, _ = _pool2d_ref(x[:1, :, None], (1, 2), (1, 2), (0, 0), (1, 2), False, "max")
    np.testing.assert_array_equal(y.numpy(), ref[0, :, 0])
    out, idx = nn.MaxPool1d(3, return_indices=True)(torch.tensor(x))
    assert out.shape == idx.shape == (2, 3, 3)


AVG2D = [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), divisor_override=5),
    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True),
]


@pytest.mark.parametrize("kwargs", AVG2D, ids=[str(i) for i in range(len(AVG2D))])
def test_avg_pool2d_matches_numpy(kwargs):
    x = RNG.standard_normal((2, 3, 9, 8))
    y = nn.AvgPool2d(**kwargs)(torch.tensor(x))
    t = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    k = t(kwargs["kernel_size"])
    ref, _ = _pool2d_ref(x, k, t(kwargs.get("stride", k)), t(kwargs.get("padding", 0)), (1, 1),
                         kwargs.get("ceil_mode", False), "avg", kwargs.get("count_include_pad", True),
                         kwargs.get("divisor_override"))
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-12)


def test_avg_pool1d_matches_numpy():
    x = RNG.standard_normal((2, 3, 10))
    y = nn.AvgPool1d(3, 2, 1, count_include_pad=False)(torch.tensor(x))
    ref, _ = _pool2d_ref(x[:, :, None], (1, 3), (1, 2), (0, 1), (1, 1), False, "avg", False)
    np.testing.assert_allclose(y.numpy(), ref[:, :, 0], rtol=1e-12)
    assert F.avg_pool1d(torch.tensor(x[0]), 2).shape == (3, 5)


def _adaptive_ref(x, out_h, out_w):
    h, w = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            r0, r1 = (i * h) // out_h, -((-(i + 1) * h) // out_h)
            c0, c1 = (j * w) // out_w, -((-(j + 1) * w) // out_w)
            out[..., i, j] = x[..., r0:r1, c0:c1].mean((-1, -2))
    return out


def test_adaptive_avg_pool2d_matches_numpy():
    x = RNG.standard_normal((2, 3, 9, 7))
    t = torch.tensor(x)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d((3, 4))(t).numpy(), _adaptive_ref(x, 3, 4), rtol=1e-12)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d((None, 2))(t).numpy(), _adaptive_ref(x, 9, 2), rtol=1e-12)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d(1)(t[0]).numpy(), _adaptive_ref(x[0], 1, 1), rtol=1e-12)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(t, (4, None)).numpy(), _adaptive_ref(x, 4, 7), rtol=1e-12)
    np.testing.assert_allclose(nn.AdaptiveAvgPool1d(4)(t[:, :, 0]).numpy(), _adaptive_ref(x[:, :, :1], 1, 4)[:, :, 0],
                               rtol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("shape", [(5, 3, 9, 8), (4, 7, 6)], ids=str)
def test_max_pool2d_backward_adds_each_gradient_at_its_argmax(shape, dtype):
    # overlapping windows (stride 1 < kernel 3): an input that wins several windows gets their sum
    x = torch.from_numpy(RNG.standard_normal(shape).round(1)).to(dtype).requires_grad_()
    y, ind = F.max_pool2d(x, 3, 1, 1, return_indices=True)
    g = RNG.standard_normal(tuple(y.shape))
    y.backward(torch.from_numpy(g).to(dtype))
    planes = int(np.prod(shape[:-2]))
    want = np.zeros((planes, shape[-2] * shape[-1]))
    for p, (gi, ii) in enumerate(zip(g.reshape(planes, -1), ind.numpy().reshape(planes, -1))):
        np.add.at(want[p], ii, gi.astype(np.float32) if dtype == torch.float32 else gi)
    np.testing.assert_allclose(x.grad.numpy().reshape(planes, -1), want, rtol=1e-6 if dtype == torch.float32 else 0,
                               atol=1e-5 if dtype == torch.float32 else 1e-12)


def test_max_pool2d_backward_kernel_bits_and_bad_indices():
    x = torch.from_numpy(RNG.standard_normal((6, 5, 17, 15)).astype(np.float32))
    y, ind = torch.ops.aten.max_pool2d_with_indices(x, [3, 3], [1, 1], [1, 1], [1, 1], False)
    g = torch.from_numpy(RNG.standard_normal(tuple(y.shape)).astype(np.float32))
    before = torch.get_num_threads()
    try:
        grads = []
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            grads.append(torch.ops.aten._ember_max_pool2d_backward(g, ind, list(x.shape)))
    finally:
        torch.set_num_threads(before)
    assert all(torch.equal(grads[0], other) for other in grads[1:])
    with pytest.raises(RuntimeError, match="outside"):
        torch.ops.aten._ember_max_pool2d_backward(g, ind + 17 * 15, list(x.shape))
    with pytest.raises(RuntimeError, match="int64 indices"):
        torch.ops.aten._ember_max_pool2d_backward(g, ind.int(), list(x.shape))


def test_pooling_gradcheck_float64():
    x = torch.randn(1, 2, 6, 5, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), (x,))
    assert gradcheck(lambda x: F.avg_pool2d(x, (2, 3), 2, 1, count_include_pad=False), (x,))
    assert gradcheck(lambda x: F.avg_pool2d(x, 2, divisor_override=3), (x,))
    assert gradcheck(lambda x: F.adaptive_avg_pool2d(x, (4, None)), (x,))
    x1 = torch.randn(2, 3, 7, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x: F.max_pool1d(x, 3, 2, 1), (x1,))
    assert gradcheck(lambda x: F.avg_pool1d(x, 3, 2), (x1,))
    assert gradcheck(lambda x: F.adaptive_avg_pool1d(x, 3), (x1,))


def test_pooling_reprs_match_pytorch():
    # Literals from PyTorch 2.13; pooling modules have no state_dict entries.
    cases = [
        (nn.MaxPool2d(3, 2, 1), "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)"),
        (nn.MaxPool2d((2, 3), dilation=(2, 1), ceil_mode=True, return_indices=True),
         "MaxPool2d(kernel_size=(2, 3), stride=(2, 3), padding=0, dilation=(2, 1), ceil_mode=True)"),
        (nn.MaxPool1d(3), "MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)"),
        (nn.AvgPool2d(2), "AvgPool2d(kernel_size=2, stride=2, padding=0)"),
        (nn.AvgPool2d((2, 3), (1, 2), 1, ceil_mode=True, count_include_pad=False, divisor_override=3),
         "AvgPool2d(kernel_size=(2, 3), stride=(1, 2), padding=1)"),
        (nn.AvgPool1d(3, 2, 1), "AvgPool1d(kernel_size=(3,), stride=(2,), padding=(1,))"),
        (nn.AdaptiveAvgPool2d((5, None)), "AdaptiveAvgPool2d(output_size=(5, None))"),
        (nn.AdaptiveAvgPool2d(1), "AdaptiveAvgPool2d(output_size=1)"),
        (nn.AdaptiveAvgPool1d(4), "AdaptiveAvgPool1d(output_size=4)"),
    ]
    for m, text in cases:
        assert repr(m) == text
        assert list(m.state_dict().keys()) == []


def test_pooling_errors_match_pytorch():
    with pytest.raises(RuntimeError, match=r"^non-empty 3D or 4D \(batch mode\) tensor expected for input$"):
        F.max_pool2d(torch.zeros(4, 4), 2)
    with pytest.raises(RuntimeError, match="^pad should be at most half of effective kernel size, but got pad=2, "
                                           "kernel_size=2 and dilation=1$"):
        F.max_pool2d(torch.zeros(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match=r"^max_pool1d: Expected 2D or 3D \(batch mode\) tensor with optional 0 "
                                           r"dim batch size for input, but got:\[4\]$"):
        F.max_pool1d(torch.zeros(4), 2)
    with pytest.raises(RuntimeError, match="^max_pool1d\\(\\) padding should be at most half of kernel size, but got "
                                           "padding=2 and kernel_size=3$"):
        F.max_pool1d(torch.zeros(1, 4), 3, padding=2)
    with pytest.raises(RuntimeError, match="^Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 "
                                           "'self' \\(while checking arguments for avg_pool1d\\)$"):
        F.avg_pool1d(torch.zeros(4), 2)
    with pytest.raises(RuntimeError, match="^avg_pool1d\\(\\) argument 'kernel_size' should contain one int "
                                           "\\(got 2\\)$"):
        F.avg_pool1d(torch.zeros(1, 4), (2, 2))
    with pytest.raises(RuntimeError, match="^adaptive_avg_pool2d: elements of output_size must be greater than or "
                                           "equal to 0 but received \\{-1, 2\\}$"):
        F.adaptive_avg_pool2d(torch.zeros(1, 4, 4), (-1, 2))
