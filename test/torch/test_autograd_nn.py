"""Derivatives of the neural-network kernels (tools/autograd/derivatives.yaml, section
'Neural-network kernels'): gradcheck and gradgradcheck in float64 for convolution (plain,
strided, dilated, grouped, transposed, 1-D), pooling, pads, upsampling, the normalisations,
the losses, embedding and dropout, plus PyTorch's semantics at the edges (ignore_index,
padding_idx, argmax ties, running statistics, outputs that do not require grad)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from gradcheck_cases import gradcheck_tests

nn = torch._C._nn


def rand(*shape, positive=False, seed=0, scale=1.0):
    a = np.random.default_rng(seed + 7 * len(shape)).standard_normal(shape) * scale
    if positive:
        a = np.abs(a) + 0.5
    return torch.from_numpy(a).requires_grad_()


def probs(*shape, seed=0):
    a = np.random.default_rng(seed).uniform(0.1, 0.9, shape)
    return torch.from_numpy(a).requires_grad_()


def noncontig(*shape, seed=0):
    """A float64 tensor that requires grad and is a permuted view of its storage."""
    t = rand(*reversed(shape), seed=seed).detach()
    return t.permute(*reversed(range(len(shape)))).requires_grad_()


def longs(values):
    return torch.tensor(values, dtype=torch.int64)


CASES = {
    "conv2d": (lambda x, w, b: torch.conv2d(x, w, b), lambda: (rand(2, 3, 5, 5), rand(4, 3, 3, 3, seed=1), rand(4))),
    "conv2d_stride_pad_dil": (lambda x, w: torch.conv2d(x, w, None, (2, 1), (1, 2), (1, 2)),
                              lambda: (rand(2, 2, 6, 7), rand(3, 2, 3, 2, seed=1))),
    "conv2d_groups": (lambda x, w, b: torch.conv2d(x, w, b, 2, 1, 1, 2),
                      lambda: (rand(2, 4, 6, 6), rand(6, 2, 3, 3, seed=1), rand(6))),
    "conv2d_noncontig_unbatched": (lambda x, w: torch.conv2d(x, w), lambda: (noncontig(2, 4, 5), rand(3, 2, 2, 2))),
    "conv1d": (lambda x, w, b: torch.conv1d(x, w, b, 2, 1, 2), lambda: (rand(2, 3, 9), rand(2, 3, 3, seed=1), rand(2))),
    "conv1d_groups": (lambda x, w: torch.conv1d(x, w, None, 1, 0, 1, 3), lambda: (rand(1, 3, 6), rand(6, 1, 2))),
    "conv_transpose2d": (lambda x, w, b: torch.conv_transpose2d(x, w, b, 2, 1, 1),
                         lambda: (rand(2, 3, 4, 3), rand(3, 2, 3, 3, seed=1), rand(2))),
    "conv_transpose2d_groups_dil": (lambda x, w: torch.conv_transpose2d(x, w, None, 1, 0, 0, 2, 2),
                                    lambda: (rand(1, 4, 3, 3), rand(4, 1, 2, 2, seed=1))),
    "conv_transpose1d": (lambda x, w: torch.conv_transpose1d(x, w, None, 3, 1, 2), lambda: (rand(2, 2, 4), rand(2, 3, 3))),
    "constant_pad_nd": (lambda x: torch.constant_pad_nd(x, (1, 2, -1, 1), 1.5), lambda: (rand(2, 3, 4),)),
    "reflection_pad1d": (lambda x: nn.reflection_pad1d(x, (2, 1)), lambda: (rand(2, 3, 4),)),
    "reflection_pad2d": (lambda x: nn.reflection_pad2d(x, (1, 2, 2, 0)), lambda: (rand(2, 3, 4),)),
    "replication_pad1d": (lambda x: nn.replication_pad1d(x, (3, 1)), lambda: (rand(1, 2, 3),)),
    "replication_pad2d": (lambda x: nn.replication_pad2d(x, (1, 2, 2, 1)), lambda: (rand(1, 2, 3, 3),)),
    "circular_pad2d": (lambda x: nn.pad(x, (1, 2, 2, 1), "circular"), lambda: (rand(1, 2, 3, 4),)),
    "max_pool2d": (lambda x: nn.max_pool2d_with_indices(x, 2)[0], lambda: (rand(2, 3, 4, 5),)),
    "max_pool2d_overlap_pad_ceil": (lambda x: nn.max_pool2d_with_indices(x, 3, 2, 1, 1, True)[0],
                                    lambda: (rand(1, 2, 6, 5),)),
    "max_pool2d_dilated_unbatched": (lambda x: nn.max_pool2d_with_indices(x, 2, 1, 0, 2)[0], lambda: (rand(2, 5, 5),)),
    "avg_pool2d": (lambda x: nn.avg_pool2d(x, 2), lambda: (rand(2, 3, 4, 5),)),
    "avg_pool2d_pad_ceil": (lambda x: nn.avg_pool2d(x, 3, 2, 1, True), lambda: (rand(1, 2, 6, 5),)),
    "avg_pool2d_exclude_pad": (lambda x: nn.avg_pool2d(x, 3, 2, 1, True, False), lambda: (rand(1, 2, 6, 5),)),
    "avg_pool2d_divisor": (lambda x: nn.avg_pool2d(x, (2, 3), (1, 2), (1, 1), False, True, 4),
                           lambda: (rand(2, 5, 5),)),
    "adaptive_avg_pool2d": (lambda x: nn.adaptive_avg_pool2d(x, (3, 2)), lambda: (rand(2, 3, 7, 5),)),
    "adaptive_avg_pool2d_up": (lambda x: nn.adaptive_avg_pool2d(x, (4, 3)), lambda: (noncontig(2, 3, 2),)),
    "upsample_nearest2d": (lambda x: nn.upsample_nearest2d(x, (5, 7)), lambda: (rand(1, 2, 3, 4),)),
    "upsample_nearest2d_scales": (lambda x: nn.upsample_nearest2d(x, (6, 5), 2.0, 1.5), lambda: (rand(2, 1, 3, 3),)),
    "upsample_bilinear2d": (lambda x: nn.upsample_bilinear2d(x, (5, 7), False), lambda: (rand(1, 2, 3, 4),)),
    "upsample_bilinear2d_align": (lambda x: nn.upsample_bilinear2d(x, (4, 2), True), lambda: (rand(2, 1, 3, 5),)),
    "layer_norm": (lambda x, w, b: torch.layer_norm(x, (4,), w, b), lambda: (rand(2, 3, 4), rand(4, seed=1), rand(4, seed=2))),
    "layer_norm_2d_shape_no_affine": (lambda x: torch.layer_norm(x, (3, 4)), lambda: (noncontig(2, 3, 4),)),
    "layer_norm_all_dims": (lambda x, w: torch.layer_norm(x, (2, 3), w), lambda: (rand(2, 3), rand(2, 3, seed=1))),
    "native_layer_norm": (lambda x, w: torch.native_layer_norm(x, (3,), w, None, 1e-5)[0],
                          lambda: (rand(4, 3), rand(3, seed=1))),
    "batch_norm_train": (lambda x, w, b: torch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
                         lambda: (rand(3, 2, 4), rand(2, seed=1), rand(2, seed=2))),
    "batch_norm_train_running": (lambda x, w: torch.batch_norm(x, w, None, torch.zeros(3, dtype=torch.float64),
                                                               torch.ones(3, dtype=torch.float64), True, 0.1, 1e-5, False),
                                 lambda: (rand(2, 3, 2, 2), rand(3, seed=1))),
    "batch_norm_eval": (lambda x, w, b: torch.batch_norm(x, w, b, torch.full((2,), 0.3, dtype=torch.float64),
                                                         torch.full((2,), 1.7, dtype=torch.float64), False, 0.1, 1e-5,
                                                         False),
                        lambda: (rand(3, 2, 4), rand(2, seed=1), rand(2, seed=2))),
    "batch_norm_2d_input": (lambda x: torch.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
                            lambda: (noncontig(5, 3),)),
    "group_norm": (lambda x, w, b: torch.group_norm(x, 2, w, b), lambda: (rand(2, 4, 3), rand(4, seed=1), rand(4, seed=2))),
    "group_norm_4d": (lambda x: torch.group_norm(x, 3), lambda: (rand(2, 3, 2, 2),)),
    "group_norm_stats": (lambda x: sum(t.sum() * (i + 1) for i, t in
                                       enumerate(torch.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5))),
                         lambda: (rand(2, 4, 3),)),
    "nll_loss_mean": (lambda x: nn.nll_loss(x, longs([0, 2, 1, 2])), lambda: (rand(4, 3),)),
    "nll_loss_weight_ignore": (lambda x: nn.nll_loss(x, longs([0, 2, 1, 2]), torch.tensor([0.2, 1.0, 3.0],
                                                     dtype=torch.float64), 1, 2), lambda: (rand(4, 3),)),
    "nll_loss_sum_none": (lambda x: nn.nll_loss(x, longs([1, 0, -100]), None, 0, -100) * longs([1, 2, 3]),
                          lambda: (rand(3, 2),)),
    "nll_loss_sum_unbatched": (lambda x: nn.nll_loss(x, longs(1), None, 2), lambda: (rand(3),)),
    "nll_loss2d": (lambda x: nn.nll_loss2d(x, longs([[[0, 1], [2, 1]], [[1, 1], [0, 2]]]),
                                           torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64), 1, 1),
                   lambda: (rand(2, 3, 2, 2),)),
    "nll_loss_nd_5d": (lambda x: nn.nll_loss_nd(x, longs([[[0, 1, 1]], [[1, 0, 0]]]), None, 0),
                       lambda: (rand(2, 2, 1, 3),)),
    "cross_entropy": (lambda x: nn.cross_entropy_loss(x, longs([0, 2, 1])), lambda: (rand(3, 4),)),
    "cross_entropy_4d_weight_ignore": (lambda x: nn.cross_entropy_loss(
        x, longs([[[0, 1], [2, 1]]]), torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64), 1, 1),
        lambda: (rand(1, 3, 2, 2),)),
    "cross_entropy_label_smoothing": (lambda x: nn.cross_entropy_loss(x, longs([0, 2, 1]), None, 1, -100, 0.2),
                                      lambda: (rand(3, 4),)),
    "cross_entropy_probs": (lambda x, t: nn.cross_entropy_loss(x, t), lambda: (rand(3, 4), probs(3, 4, seed=3))),
    "binary_cross_entropy": (lambda x, t: nn.binary_cross_entropy(x, t), lambda: (probs(3, 4), probs(3, 4, seed=1))),
    "binary_cross_entropy_weight_sum": (lambda x, t: nn.binary_cross_entropy(
        x, t, torch.tensor([0.5, 2.0], dtype=torch.float64), 2), lambda: (probs(3, 2), probs(3, 2, seed=1))),
    "binary_cross_entropy_none": (lambda x: nn.binary_cross_entropy(x, torch.tensor([0.0, 1.0, 0.3],
                                                                                    dtype=torch.float64), None, 0),
                                  lambda: (probs(3),)),
    "bce_with_logits": (lambda x, t: torch.binary_cross_entropy_with_logits(x, t),
                        lambda: (rand(3, 4), probs(3, 4, seed=1))),
    "bce_with_logits_weights": (lambda x, t: torch.binary_cross_entropy_with_logits(
        x, t, torch.tensor([0.5, 2.0], dtype=torch.float64), torch.tensor([3.0, 0.25], dtype=torch.float64), 2),
        lambda: (rand(3, 2, scale=3.0), probs(3, 2, seed=1))),
    "bce_with_logits_none": (lambda x, t: torch.binary_cross_entropy_with_logits(x, t, None, None, 0),
                             lambda: (rand(4), probs(4, seed=1))),
    "embedding": (lambda w: torch.embedding(w, longs([[0, 2], [2, 3]])), lambda: (rand(4, 3),)),
    "sdpa": (lambda q, k, v: nn.scaled_dot_product_attention(q, k, v),
             lambda: (rand(2, 3, 4), rand(2, 5, 4, seed=1), rand(2, 5, 2, seed=2))),
    "sdpa_causal": (lambda q, k, v: nn.scaled_dot_product_attention(q, k, v, None, 0.0, True),
                    lambda: (rand(1, 2, 3, 4), rand(1, 2, 3, 4, seed=1), rand(1, 2, 3, 4, seed=2))),
    "linear": (lambda x, w, b: nn.linear(x, w, b), lambda: (rand(2, 3, 4), rand(5, 4, seed=1), rand(5))),
}


test_gradcheck, test_gradgradcheck = gradcheck_tests(CASES)


def grad_of(y, x, seed=None):
    return torch.autograd.grad(y, x, seed if seed is not None else torch.ones_like(y))[0]


def test_outputs_that_are_not_differentiable_do_not_require_grad():
    x = rand(2, 3, 4, 4)
    out, indices = nn.max_pool2d_with_indices(x, 2)
    assert out.requires_grad and not indices.requires_grad
    y, mean, rstd = torch.native_layer_norm(x, (4,), None, None, 1e-5)
    assert y.requires_grad and not mean.requires_grad and not rstd.requires_grad
    y, save_mean, save_invstd = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    assert y.requires_grad and not save_mean.requires_grad and not save_invstd.requires_grad
    out, mask = torch.native_dropout(x, 0.5, True)
    assert out.requires_grad and not mask.requires_grad
    loss, total_weight = nn.nll_loss_forward(x[:, :, 0, 0], longs([0, 1]), None, 1, -100)
    assert loss.requires_grad and not total_weight.requires_grad
    assert not nn.one_hot(longs([0, 2])).requires_grad
    # group_norm's statistics are differentiable outputs in PyTorch (its formula reads all three)
    assert all(t.requires_grad for t in torch.native_group_norm(x, None, None, 2, 3, 16, 3, 1e-5))


def test_batch_norm_running_statistics_are_updated_and_never_require_grad():
    x = rand(4, 2, 3)
    running_mean, running_var = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    y = torch.batch_norm(x, None, None, running_mean, running_var, True, 0.5, 1e-5, False)
    y.sum().backward()
    assert not running_mean.requires_grad and not running_var.requires_grad
    expected = 0.5 * x.detach().numpy().mean(axis=(0, 2))
    np.testing.assert_allclose(running_mean.numpy(), expected)
    # normalised over the batch: the gradient of the sum is zero
    np.testing.assert_allclose(x.grad.numpy(), 0.0, atol=1e-12)


def test_max_pool_ties_send_the_gradient_to_the_first_maximum():
    x = torch.ones(1, 1, 2, 4, dtype=torch.float64).requires_grad_()
    g = grad_of(nn.max_pool2d_with_indices(x, 2)[0], x)
    np.testing.assert_array_equal(g.numpy()[0, 0], [[1, 0, 1, 0], [0, 0, 0, 0]])
    # overlapping windows that share their maximum add up
    x = torch.tensor([[[[0.0, 5.0, 0.0, 1.0]]]], dtype=torch.float64).requires_grad_()
    g = grad_of(nn.max_pool2d_with_indices(x, (1, 2), 1)[0], x)
    np.testing.assert_array_equal(g.numpy()[0, 0], [[0, 2, 0, 1]])


def test_nll_loss_ignore_index_weights_and_all_ignored():
    x = rand(3, 4)
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    g = grad_of(nn.nll_loss(x, longs([1, 3, 1]), w, 1, 3), x).numpy()
    expected = np.zeros((3, 4))
    expected[0, 1] = expected[2, 1] = -2.0 / 4.0       # weight 2, total weight 2 + 2
    np.testing.assert_allclose(g, expected)
    g = grad_of(nn.nll_loss(x, longs([-100, -100, -100])), x)   # nan loss, zero gradient (as PyTorch)
    np.testing.assert_array_equal(g.numpy(), 0.0)


def test_embedding_padding_idx_gets_no_gradient_and_scale_grad_by_freq_divides_by_counts():
    w = rand(5, 2)
    idx = longs([[0, 1, 1], [4, 1, 2]])
    seed = torch.from_numpy(np.arange(12, dtype=np.float64).reshape(2, 3, 2))
    g = grad_of(torch.embedding(w, idx, 1), w, seed).numpy()
    np.testing.assert_array_equal(g, [[0, 1], [0, 0], [10, 11], [0, 0], [6, 7]])
    g = grad_of(torch.embedding(w, idx, 4, True), w, seed).numpy()
    np.testing.assert_allclose(g, [[0, 1], [(2 + 4 + 8) / 3, (3 + 5 + 9) / 3], [10, 11], [0, 0], [0, 0]])


def test_dropout_gradient_is_the_saved_mask_scaled():
    x = rand(50, 4)
    out, mask = torch.native_dropout(x, 0.25, True)
    g = grad_of(out, x).numpy()
    np.testing.assert_allclose(g, mask.numpy() / 0.75)
    np.testing.assert_allclose(out.detach().numpy(), x.detach().numpy() * g)
    out, mask = torch.native_dropout(x, 0.25, False)
    np.testing.assert_array_equal(grad_of(out, x).numpy(), 1.0)
    y = torch.dropout(x, 0.5, True)
    np.testing.assert_allclose(grad_of(y, x).numpy() * x.detach().numpy(), y.detach().numpy())


def test_loss_class_weights_that_require_grad_are_refused():
    x = rand(2, 3)
    w = torch.ones(3, dtype=torch.float64).requires_grad_()
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        nn.nll_loss(x, longs([0, 1]), w, 1).backward()


def test_binary_cross_entropy_gradients_at_the_edges_match_pytorch():
    x = torch.tensor([0.0, 1.0, 0.5], dtype=torch.float64).requires_grad_()
    t = torch.tensor([0.0, 1.0, 0.2], dtype=torch.float64).requires_grad_()
    gx, gt = torch.autograd.grad(nn.binary_cross_entropy(x, t, None, 2), (x, t))
    np.testing.assert_allclose(gx.numpy(), [0.0, 0.0, 0.3 / 0.25])
    assert gt.numpy()[0] == np.inf and gt.numpy()[1] == -np.inf and gt.numpy()[2] == 0


def test_convolution_backward_is_differentiable_with_create_graph():
    x, w = rand(1, 2, 5, 5), rand(3, 2, 3, 3, seed=1)
    y = torch.conv2d(x, w, None, 2, 1)
    gx, = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    assert gx.requires_grad
    penalty = (gx * gx).sum()
    gw, = torch.autograd.grad(penalty, w)
    assert gw.shape == w.shape and np.isfinite(gw.numpy()).all()


def test_float32_convolution_gradient_agrees_with_float64():
    x, w = rand(2, 3, 6, 6), rand(4, 3, 3, 3, seed=1)
    g64 = torch.autograd.grad(torch.conv2d(x, w, None, 1, 1).sum(), (x, w))
    x32, w32 = (t.detach().to(torch.float32).requires_grad_() for t in (x, w))
    g32 = torch.autograd.grad(torch.conv2d(x32, w32, None, 1, 1).sum(), (x32, w32))
    for a, b in zip(g32, g64):
        assert a.dtype == torch.float32
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)


def test_small_convolutional_network_trains():
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((8, 1, 6, 6)))
    target = longs(rng.integers(0, 3, 8))
    conv_w = torch.from_numpy(rng.standard_normal((4, 1, 3, 3)) * 0.5).requires_grad_()
    gamma = torch.ones(4, dtype=torch.float64).requires_grad_()
    beta = torch.zeros(4, dtype=torch.float64).requires_grad_()
    lin_w = torch.from_numpy(rng.standard_normal((3, 16)) * 0.3).requires_grad_()
    params = [conv_w, gamma, beta, lin_w]

    def loss_fn():
        h = torch.conv2d(x, conv_w, None, 1, 1)
        h = torch.batch_norm(h, gamma, beta, None, None, True, 0.1, 1e-5, False).relu()
        h = nn.max_pool2d_with_indices(h, 2)[0]
        h = nn.adaptive_avg_pool2d(h, (2, 2)).reshape(8, 16)
        return nn.cross_entropy_loss(nn.linear(h, lin_w), target, None, 1)

    first = loss_fn().item()
    for _ in range(30):
        loss = loss_fn()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= 0.2 * g
    assert loss_fn().item() < 0.5 * first


def test_relu_gradient_below_zero_is_zero_even_for_an_infinite_incoming_gradient():
    x = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    torch.relu(x).backward(torch.full((3,), float("inf"), dtype=torch.float64))
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
