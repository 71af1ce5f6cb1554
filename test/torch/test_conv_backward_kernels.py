"""The CPU kernels behind conv1d/conv2d's backward without create_graph: the weight's gradient
(_ember_convolution_weight_grad: im2col bands and a GEMM per band, summed over fixed slices of images) and
the input's (the transposed convolution, an image per task), against float64 NumPy references, with the
same bits on any thread count; with create_graph the composite formulas still give a double backward."""
from __future__ import annotations

import numpy as np
import pytest

import torch


def _windows(x, kh, kw, stride, padding, dilation, ho, wo):
    """x padded, as (N, C, kh, kw, Ho, Wo): the input element each weight tap meets at each output."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    out = np.empty(x.shape[:2] + (kh, kw, ho, wo), x.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i, j] = xp[:, :, i * dh: i * dh + sh * (ho - 1) + 1: sh, j * dw: j * dw + sw * (wo - 1) + 1: sw]
    return out


def weight_grad_reference(x, g, kh, kw, stride, padding, dilation, groups):
    n, c, _, _ = x.shape
    cout, ho, wo = g.shape[1], g.shape[2], g.shape[3]
    win = _windows(x.astype(np.float64), kh, kw, stride, padding, dilation, ho, wo)
    cg, og = c // groups, cout // groups
    out = np.empty((cout, cg, kh, kw))
    for grp in range(groups):
        out[grp * og:(grp + 1) * og] = np.einsum("nohw,ncijhw->ocij", g[:, grp * og:(grp + 1) * og].astype(np.float64),
                                                 win[:, grp * cg:(grp + 1) * cg])
    return out


CASES = [  # (N, C, H, W, Cout, k, stride, padding, dilation, groups)
    (3, 4, 20, 24, 6, 3, (1, 1), (1, 1), (1, 1), 1),
    (2, 4, 17, 19, 6, 3, (2, 1), (0, 2), (1, 2), 2),
    (70, 3, 5, 6, 4, 2, (1, 1), (1, 0), (1, 1), 1),      # more images than slices, small images
    (1, 2, 40, 40, 3, 5, (2, 2), (2, 2), (1, 1), 1),
    (37, 4, 4, 4, 6, 3, (1, 1), (1, 1), (1, 1), 2),      # tiny images, several per GEMM, grouped
]


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_weight_grad_kernel_matches_the_float64_reference(case, dtype):
    n, c, h, w, cout, k, stride, padding, dilation, groups = case
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((n, c, h, w))).to(dtype)
    weight = torch.from_numpy(rng.standard_normal((cout, c // groups, k, k))).to(dtype).requires_grad_()
    y = torch.nn.functional.conv2d(x, weight, None, stride, padding, dilation, groups)
    g = torch.from_numpy(rng.standard_normal(tuple(y.shape))).to(dtype)
    y.backward(g)
    want = weight_grad_reference(x.numpy(), g.numpy(), k, k, stride, padding, dilation, groups)
    tol = 1e-4 if dtype == torch.float32 else 1e-10
    np.testing.assert_allclose(weight.grad.numpy(), want, rtol=tol, atol=tol * np.abs(want).max())


def test_conv1d_weight_grad_through_the_kernel():
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.standard_normal((4, 3, 300)))
    weight = torch.from_numpy(rng.standard_normal((5, 3, 7))).requires_grad_()
    y = torch.nn.functional.conv1d(x, weight, stride=2, padding=3, dilation=2)
    g = torch.from_numpy(rng.standard_normal(tuple(y.shape)))
    y.backward(g)
    want = weight_grad_reference(x.numpy()[:, :, None], g.numpy()[:, :, None], 1, 7, (1, 2), (0, 3), (1, 2), 1)
    np.testing.assert_allclose(weight.grad.numpy(), want[:, :, 0], rtol=1e-10, atol=1e-10)


def _grads(threads, transposed=False, images=(9, 8, 30, 30)):
    rng = np.random.default_rng(2)
    x = torch.from_numpy(rng.standard_normal(images).astype(np.float32)).requires_grad_()
    shape = (8, 4, 3, 3) if transposed else (6, 4, 3, 3)
    weight = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).requires_grad_()
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        if transposed:
            y = torch.nn.functional.conv_transpose2d(x, weight, stride=2, padding=1, groups=2)
        else:
            y = torch.nn.functional.conv2d(x, weight, stride=1, padding=1, groups=2)
        y.backward(torch.ones_like(y) * 0.25 + y.detach())
    finally:
        torch.set_num_threads(before)
    return y.detach(), x.grad, weight.grad


@pytest.mark.parametrize("images", [(9, 8, 30, 30), (70, 8, 4, 5)], ids=["large", "tiny"])
@pytest.mark.parametrize("transposed", [False, True])
def test_backward_kernels_give_the_same_bits_on_any_thread_count(transposed, images):
    one = _grads(1, transposed, images)
    for threads in (2, 3):
        for a, b in zip(one, _grads(threads, transposed, images)):
            assert torch.equal(a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_input_gradient_of_tiny_images_matches_the_adjoint(dtype):
    # many 4x4 images: the transposed convolution gathers several per GEMM and folds each back
    rng = np.random.default_rng(5)
    x = rng.standard_normal((67, 6, 4, 4))
    w = rng.standard_normal((8, 3, 3, 3))
    xt = torch.from_numpy(x).to(dtype).requires_grad_()
    y = torch.nn.functional.conv2d(xt, torch.from_numpy(w).to(dtype), padding=1, groups=2)
    g = rng.standard_normal(tuple(y.shape))
    y.backward(torch.from_numpy(g).to(dtype))
    want = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1, groups=2)
    # <conv2d(x, w), g> is linear in x: its gradient is the adjoint map applied to g, checked per element
    eps = 1e-3
    for idx in [(0, 0, 0, 0), (66, 5, 3, 3), (33, 2, 1, 2), (8, 3, 0, 3)]:
        xd = x.copy()
        xd[idx] += eps
        bumped = torch.nn.functional.conv2d(torch.from_numpy(xd), torch.from_numpy(w), padding=1, groups=2)
        numeric = ((bumped.numpy() - want.numpy()) * g).sum() / eps
        tol = 1e-4 if dtype == torch.float32 else 1e-7
        assert abs(xt.grad[idx].item() - numeric) <= tol * (1 + abs(numeric))


def test_transposed_convolution_matches_its_adjoint_reference():
    # conv_transpose2d is the input gradient of conv2d: <conv2d(x, w), g> == <x, conv_transpose2d(g, w)>
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 11, 13))
    w = rng.standard_normal((6, 2, 3, 3))
    y = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=1, groups=2)
    g = rng.standard_normal(tuple(y.shape))
    back = torch.nn.functional.conv_transpose2d(torch.from_numpy(g), torch.from_numpy(w), stride=2, padding=1,
                                                output_padding=(0, 0), groups=2)
    assert back.shape == (3, 4, 11, 13)
    np.testing.assert_allclose((y.numpy() * g).sum(), (x * back.numpy()).sum(), rtol=1e-10)


def test_create_graph_keeps_a_differentiable_weight_gradient():
    rng = np.random.default_rng(4)
    x = torch.from_numpy(rng.standard_normal((2, 3, 8, 8))).requires_grad_()
    w = torch.from_numpy(rng.standard_normal((4, 3, 3, 3))).requires_grad_()
    y = torch.nn.functional.conv2d(x, w, padding=1)
    (gw,) = torch.autograd.grad(y.square().sum(), w, create_graph=True)
    assert gw.requires_grad
    assert torch.autograd.gradcheck(lambda x_, w_: torch.nn.functional.conv2d(x_, w_, padding=1), (x, w))
    assert torch.autograd.gradgradcheck(lambda x_, w_: torch.nn.functional.conv2d(x_, w_, padding=1), (x, w))
