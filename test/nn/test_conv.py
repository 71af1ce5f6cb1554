"""Conv1d/Conv2d/ConvTranspose1d/ConvTranspose2d: NumPy float64 references, gradcheck, and PyTorch 2.13's
reprs, parameter shapes, initialisation bounds and error messages (literals generated once with PyTorch 2.13)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck

RNG = np.random.default_rng(0)
_NP_MODE = {"zeros": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _conv_ref(x, w, b, stride, padding, dilation, groups, mode="zeros"):
    """N-d cross-correlation of (N, C, *S) by (O, C/groups, *K) in float64, by looping over kernel taps."""
    nd = w.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(p0, p1) for p0, p1 in padding], mode=_NP_MODE[mode])
    n, _, *size = x.shape
    o, cg, *k = w.shape
    out_size = [(size[i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros((n, o, *out_size))
    og = o // groups
    for tap in np.ndindex(*k):
        sl = tuple(slice(tap[i] * dilation[i], tap[i] * dilation[i] + stride[i] * (out_size[i] - 1) + 1, stride[i])
                   for i in range(nd))
        patch = x[(slice(None), slice(None)) + sl]  # (N, C, *out)
        for g in range(groups):
            wg = w[(slice(g * og, (g + 1) * og), slice(None)) + tap]  # (og, cg)
            out[:, g * og:(g + 1) * og] += np.einsum("oc,nc...->no...", wg, patch[:, g * cg:(g + 1) * cg])
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return out


def _conv_transpose_ref(x, w, b, stride, padding, output_padding, groups, dilation):
    """Transposed convolution by scattering each input element times the kernel, then cropping padding."""
    nd = w.ndim - 2
    n, c, *size = x.shape
    _, og, *k = w.shape
    cg = c // groups
    full = [(size[i] - 1) * stride[i] + dilation[i] * (k[i] - 1) + 1 + output_padding[i] for i in range(nd)]
    out = np.zeros((n, og * groups, *full))
    for tap in np.ndindex(*k):
        sl = tuple(slice(tap[i] * dilation[i], tap[i] * dilation[i] + stride[i] * (size[i] - 1) + 1, stride[i])
                   for i in range(nd))
        for g in range(groups):
            wg = w[(slice(g * cg, (g + 1) * cg), slice(None)) + tap]  # (cg, og)
            out[(slice(None), slice(g * og, (g + 1) * og)) + sl] += np.einsum(
                "co,nc...->no...", wg, x[:, g * cg:(g + 1) * cg])
    crop = tuple(slice(padding[i], full[i] - padding[i]) for i in range(nd))
    out = out[(slice(None), slice(None)) + crop]
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return out


def _same_padding(k, d):
    total = d * (k - 1)
    return total // 2, total - total // 2


def _check_module(m, shape, ref):
    x = RNG.standard_normal(shape)
    got = m(torch.tensor(x, dtype=torch.float32)).detach().numpy()
    w = m.weight.detach().numpy().astype(np.float64)
    b = None if m.bias is None else m.bias.detach().numpy().astype(np.float64)
    np.testing.assert_allclose(got, ref(x, w, b), rtol=1e-5, atol=1e-5)


CONV2D = [
    (dict(in_channels=3, out_channels=4, kernel_size=3, padding=1), (2, 3, 7, 6)),
    (dict(in_channels=4, out_channels=6, kernel_size=(3, 2), stride=(2, 1), padding=(1, 2), dilation=(2, 1),
          groups=2), (2, 4, 9, 8)),
    (dict(in_channels=2, out_channels=3, kernel_size=4, padding="same"), (1, 2, 7, 6)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding="same", dilation=2, bias=False), (1, 2, 7, 6)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding="valid"), (1, 2, 7, 6)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding=(1, 2), padding_mode="reflect"), (2, 2, 6, 7)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding=2, padding_mode="replicate"), (2, 2, 6, 7)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, padding_mode="circular"), (2, 2, 6, 7)),
    (dict(in_channels=2, out_channels=3, kernel_size=4, padding="same", padding_mode="reflect"), (2, 2, 6, 7)),
]


@pytest.mark.parametrize("kwargs,shape", CONV2D, ids=[str(i) for i in range(len(CONV2D))])
def test_conv2d_matches_numpy(kwargs, shape):
    m = nn.Conv2d(**kwargs)
    k, d = m.kernel_size, m.dilation
    if m.padding == "same":
        pads = [_same_padding(k[i], d[i]) for i in range(2)]
    elif m.padding == "valid":
        pads = [(0, 0), (0, 0)]
    else:
        pads = [(p, p) for p in m.padding]
    _check_module(m, shape, lambda x, w, b: _conv_ref(x, w, b, m.stride, pads, d, m.groups, m.padding_mode))


CONV1D = [
    (dict(in_channels=3, out_channels=4, kernel_size=3, stride=2, padding=1), (2, 3, 11)),
    (dict(in_channels=4, out_channels=4, kernel_size=3, dilation=2, groups=4), (2, 4, 11)),
    (dict(in_channels=2, out_channels=3, kernel_size=4, padding="same", padding_mode="circular"), (2, 2, 9)),
]


@pytest.mark.parametrize("kwargs,shape", CONV1D, ids=[str(i) for i in range(len(CONV1D))])
def test_conv1d_matches_numpy(kwargs, shape):
    m = nn.Conv1d(**kwargs)
    pads = [_same_padding(m.kernel_size[0], m.dilation[0])] if m.padding == "same" else [(m.padding[0],) * 2]
    _check_module(m, shape, lambda x, w, b: _conv_ref(x, w, b, m.stride, pads, m.dilation, m.groups, m.padding_mode))


CONV3D = [
    (dict(in_channels=3, out_channels=4, kernel_size=3, padding=1), (2, 3, 5, 6, 4)),
    (dict(in_channels=4, out_channels=6, kernel_size=(2, 3, 2), stride=(2, 1, 3), padding=(1, 0, 2),
          dilation=(1, 2, 1), groups=2), (2, 4, 6, 7, 8)),
    (dict(in_channels=2, out_channels=3, kernel_size=(2, 3, 4), padding="same", bias=False), (1, 2, 4, 5, 6)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding=(1, 0, 2), padding_mode="circular"), (2, 2, 4, 5, 6)),
]


@pytest.mark.parametrize("kwargs,shape", CONV3D, ids=[str(i) for i in range(len(CONV3D))])
def test_conv3d_matches_numpy(kwargs, shape):
    m = nn.Conv3d(**kwargs)
    if m.padding == "same":
        pads = [_same_padding(m.kernel_size[i], m.dilation[i]) for i in range(3)]
    else:
        pads = [(p, p) for p in m.padding]
    _check_module(m, shape, lambda x, w, b: _conv_ref(x, w, b, m.stride, pads, m.dilation, m.groups, m.padding_mode))


def test_conv3d_over_integers_matches_numpy():
    x = RNG.integers(-5, 5, (2, 4, 4, 5, 3))
    w = RNG.integers(-3, 3, (2, 2, 2, 3, 2))
    got = F.conv3d(torch.tensor(x), torch.tensor(w), stride=(1, 2, 1), padding=1, groups=2)
    assert got.dtype == torch.int64
    np.testing.assert_array_equal(got.numpy(), _conv_ref(x, w, None, (1, 2, 1), [(1, 1)] * 3, (1, 1, 1), 2))


def test_conv3d_unfolds_a_large_volume_in_bands_of_depth_planes():
    # 16 channels x 27 taps x 64 x 64 float32 columns are 7 MiB a depth plane: bands of 4 of the 8 planes
    x = RNG.standard_normal((1, 16, 8, 64, 64))
    w = RNG.standard_normal((2, 16, 3, 3, 3))
    got = F.conv3d(torch.tensor(x, dtype=torch.float32), torch.tensor(w, dtype=torch.float32), padding=1)
    np.testing.assert_allclose(got.numpy(), _conv_ref(x, w, None, (1, 1, 1), [(1, 1)] * 3, (1, 1, 1), 1),
                               rtol=1e-4, atol=1e-4)


def test_conv3d_errors_match_pytorch():
    with pytest.raises(RuntimeError, match=r"^output padding must be smaller than either stride or dilation, but got "
                                           r"output_padding_depth: 0 output_padding_height: 1 output_padding_width: 0 "
                                           r"stride_depth: 2 stride_height: 1 stride_width: 1 dilation_depth: 1 "
                                           r"dilation_height: 1 dilation_width: 1$"):
        F.conv_transpose3d(torch.ones(1, 2, 3, 3, 3), torch.ones(2, 1, 2, 2, 2), stride=(2, 1, 1),
                           output_padding=(0, 1, 0))
    with pytest.raises(RuntimeError, match=r"^Given input size per channel: \(1 x 1 x 1\). Calculated output size "
                                           r"per channel: \(-1 x -1 x -1\). Output size is too small$"):
        F.conv_transpose3d(torch.ones(1, 2, 1, 1, 1), torch.ones(2, 1, 1, 1, 1), padding=1)
    with pytest.raises(RuntimeError, match=r"^Calculated padded input size per channel: \(1 x 1 x 1\). Kernel size: "
                                           r"\(2 x 2 x 2\). Kernel size can't be greater than actual input size$"):
        F.conv3d(torch.ones(1, 2, 1, 1, 1), torch.ones(2, 2, 2, 2, 2))
    with pytest.raises(NotImplementedError, match="^\"compute_columns3d\" not implemented for 'Bool'$"):
        F.conv3d(torch.ones(1, 2, 3, 3, 3, dtype=torch.bool), torch.ones(2, 2, 2, 2, 2, dtype=torch.bool))
    with pytest.raises(RuntimeError, match=r"^expected stride to be a single integer value or a list of 2 values to "
                                           r"match the convolution dimensions, but got stride=\[1, 1, 1\]$"):
        F.conv3d(torch.ones(1, 2, 3, 3, 3), torch.ones(1, 2, 2, 2))
    with pytest.raises(RuntimeError, match=r"^Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d"):
        F.conv3d(torch.ones(2, 3, 3), torch.ones(1, 2, 2, 2, 2))
    assert F.conv3d(torch.ones(2, 3, 3, 3), torch.ones(1, 2, 2, 2, 2)).shape == (1, 2, 2, 2)


def test_conv_takes_unbatched_input():
    m = nn.Conv2d(2, 3, 3)
    x = torch.randn(2, 6, 7)
    np.testing.assert_allclose(m(x).detach().numpy(), m(x.unsqueeze(0))[0].detach().numpy(), rtol=1e-6)
    assert m(x).shape == (3, 4, 5)
    assert nn.Conv1d(2, 3, 3)(torch.randn(2, 9)).shape == (3, 7)


CONVT = [
    (nn.ConvTranspose2d, dict(in_channels=3, out_channels=4, kernel_size=3, stride=2, padding=1, output_padding=1),
     (2, 3, 5, 4)),
    (nn.ConvTranspose2d, dict(in_channels=4, out_channels=6, kernel_size=(2, 3), stride=(1, 2), padding=(0, 1),
                              groups=2, dilation=(2, 1)), (2, 4, 5, 4)),
    (nn.ConvTranspose1d, dict(in_channels=3, out_channels=2, kernel_size=4, stride=3, padding=1, output_padding=2),
     (2, 3, 5)),
    (nn.ConvTranspose3d, dict(in_channels=4, out_channels=6, kernel_size=(2, 3, 2), stride=(2, 1, 3),
                              padding=(1, 0, 1), output_padding=(1, 0, 2), groups=2, dilation=(1, 2, 1)),
     (2, 4, 3, 4, 3)),
]


@pytest.mark.parametrize("cls,kwargs,shape", CONVT, ids=[str(i) for i in range(len(CONVT))])
def test_conv_transpose_matches_numpy(cls, kwargs, shape):
    m = cls(**kwargs)
    _check_module(m, shape, lambda x, w, b: _conv_transpose_ref(x, w, b, m.stride, m.padding, m.output_padding,
                                                                m.groups, m.dilation))


def test_conv_transpose2d_output_size_picks_output_padding():
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = torch.randn(1, 2, 4, 4)
    assert m(x).shape == (1, 3, 7, 7)
    assert m(x, output_size=[8, 7]).shape == (1, 3, 8, 7)
    assert m(x, output_size=[1, 3, 7, 8]).shape == (1, 3, 7, 8)
    with pytest.raises(ValueError, match=r"^requested an output size of \[10, 8\], but valid sizes range from "
                                         r"\[7, 7\] to \[8, 8\] \(for an input of torch.Size\(\[4, 4\]\)\)$"):
        m(x, output_size=[10, 8])
    with pytest.raises(ValueError, match=r"^ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements "
                                         r"\(got 1\)$"):
        m(x, output_size=[10])


def test_conv_gradcheck_float64():
    x = torch.randn(1, 4, 5, 4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, 2, 3, 2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, (2, 1), 1, (1, 2), 2), (x, w, b))
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, 1, "same", 1, 2), (x, w, b))
    wt = torch.randn(4, 3, 2, 3, dtype=torch.float64, requires_grad=True)
    bt = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, 2, (0, 1), 1), (x, wt, bt))
    x3 = torch.randn(1, 2, 4, 3, 4, dtype=torch.float64, requires_grad=True)
    w3 = torch.randn(4, 1, 2, 2, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv3d(x, w, b, (2, 1, 1), (1, 0, 1), (1, 1, 2), 2), (x3, w3, b))
    wt3 = torch.randn(2, 3, 2, 2, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, (1, 2, 1), 1, (0, 1, 0)), (x3, wt3, bt))
    x1 = torch.randn(2, 2, 6, dtype=torch.float64, requires_grad=True)
    w1 = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w: F.conv1d(x, w, None, 2, 1), (x1, w1))


def test_conv_padding_mode_gradcheck_float64():
    for mode in ("reflect", "replicate", "circular"):
        m = nn.Conv2d(2, 2, 3, padding=(1, 2), padding_mode=mode).double()
        x = torch.randn(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
        assert gradcheck(m, (x,)), mode


def test_conv_reprs_match_pytorch():
    # Literals from PyTorch 2.13.
    assert repr(nn.Conv2d(1, 8, 3, padding=1)) == "Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    assert repr(nn.Conv2d(4, 8, (3, 5), stride=2, dilation=(2, 1), groups=2, bias=False, padding_mode="reflect",
                          padding=(1, 2))) == (
        "Conv2d(4, 8, kernel_size=(3, 5), stride=(2, 2), padding=(1, 2), dilation=(2, 1), groups=2, bias=False, "
        "padding_mode=reflect)")
    assert repr(nn.Conv1d(2, 4, 3, padding="same", padding_mode="circular")) == (
        "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=same, padding_mode=circular)")
    assert repr(nn.Conv1d(2, 4, 3, padding="valid")) == "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=valid)"
    assert repr(nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1, groups=2)) == (
        "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), groups=2)")
    assert repr(nn.ConvTranspose1d(3, 2, 4, stride=3, padding=1, output_padding=2)) == (
        "ConvTranspose1d(3, 2, kernel_size=(4,), stride=(3,), padding=(1,), output_padding=(2,))")
    assert repr(nn.Conv3d(2, 4, (1, 3, 3), stride=(1, 2, 2))) == (
        "Conv3d(2, 4, kernel_size=(1, 3, 3), stride=(1, 2, 2))")
    assert repr(nn.ConvTranspose3d(4, 2, 3, stride=2, output_padding=1, groups=2)) == (
        "ConvTranspose3d(4, 2, kernel_size=(3, 3, 3), stride=(2, 2, 2), output_padding=(1, 1, 1), groups=2)")


def test_conv_parameters_and_state_dict_keys():
    m = nn.Conv2d(4, 6, (3, 2), groups=2)
    assert list(m.state_dict().keys()) == ["weight", "bias"]
    assert m.weight.shape == (6, 2, 3, 2) and m.bias.shape == (6,)
    assert list(nn.Conv1d(2, 3, 3, bias=False).state_dict().keys()) == ["weight"]
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert t.weight.shape == (4, 3, 3, 3) and t.bias.shape == (6,)
    assert nn.Conv2d(2, 3, 3, dtype=torch.float64).weight.dtype == torch.float64


def test_conv_default_init_is_uniform_within_one_over_sqrt_fan_in():
    m = nn.Conv2d(16, 32, 3)
    bound = 1 / math.sqrt(16 * 9)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.8 * bound
    # Uniform: variance bound**2 / 3.
    assert abs(w.var() / (bound**2 / 3) - 1) < 0.1


def test_conv_constructor_errors_match_pytorch():
    with pytest.raises(ValueError, match="^groups must be a positive integer$"):
        nn.Conv2d(2, 4, 3, groups=0)
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="^out_channels must be divisible by groups$"):
        nn.Conv2d(2, 3, 3, groups=2)
    with pytest.raises(ValueError, match=r"^Invalid padding string 'full', should be one of \{"):
        nn.Conv2d(2, 3, 3, padding="full")
    with pytest.raises(ValueError, match="^padding='same' is not supported for strided convolutions$"):
        nn.Conv2d(2, 3, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match=r"^padding_mode must be one of \{.*\}, but got padding_mode='zero'$"):
        nn.Conv2d(2, 3, 3, padding_mode="zero")
    with pytest.raises(ValueError, match='^Only "zeros" padding mode is supported for ConvTranspose2d$'):
        nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect")


def test_conv_input_errors_match_pytorch():
    with pytest.raises(RuntimeError, match=r"^Given groups=1, weight of size \[3, 2, 3, 3\], expected input"
                                           r"\[1, 4, 5, 5\] to have 2 channels, but got 4 channels instead$"):
        nn.Conv2d(2, 3, 3)(torch.zeros(1, 4, 5, 5))
    with pytest.raises(RuntimeError, match=r"^Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got "
                                           r"input of size: \[5, 5\]$"):
        nn.Conv2d(2, 3, 3)(torch.zeros(5, 5))
