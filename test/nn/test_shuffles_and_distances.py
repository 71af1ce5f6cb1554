"""pixel_shuffle / pixel_unshuffle / channel_shuffle and cosine_similarity / pairwise_distance (and
their modules) against NumPy, with gradcheck, PyTorch's backward nodes and its errors."""
import numpy as np
import pytest

import torch
from torch import nn
from torch.autograd import gradcheck
from torch.nn import functional as F

RNG = np.random.default_rng(0)


def _np_pixel_shuffle(x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return y.reshape(*lead, c // (r * r), h * r, w * r)


def _np_channel_shuffle(x, g):
    n, c, *rest = x.shape
    return x.reshape(n, g, c // g, *rest).swapaxes(1, 2).reshape(x.shape)


@pytest.mark.parametrize("shape, r", [((1, 8, 2, 3), 2), ((2, 3, 18, 2, 2), 3), ((9, 1, 1), 3), ((0, 4, 2, 2), 2)])
def test_pixel_shuffle_and_unshuffle_match_numpy_and_invert_each_other(shape, r):
    x = RNG.standard_normal(shape)
    y = F.pixel_shuffle(torch.tensor(x), r)
    np.testing.assert_array_equal(y.numpy(), _np_pixel_shuffle(x, r))
    assert y.is_contiguous()
    np.testing.assert_array_equal(nn.PixelUnshuffle(r)(y).numpy(), x)


@pytest.mark.parametrize("shape, groups", [((2, 6, 3), 3), ((1, 8, 2, 2), 2), ((3, 4, 1, 2, 2), 4)])
def test_channel_shuffle_matches_numpy(shape, groups):
    x = RNG.standard_normal(shape)
    np.testing.assert_array_equal(nn.ChannelShuffle(groups)(torch.tensor(x)).numpy(), _np_channel_shuffle(x, groups))


def test_shuffles_differentiate_as_pytorch():
    x = torch.randn(1, 8, 2, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: F.pixel_shuffle(t, 2), (x,))
    assert gradcheck(lambda t: F.pixel_unshuffle(t, 2), (torch.randn(1, 2, 4, 4, dtype=torch.float64,
                                                                      requires_grad=True),))
    assert gradcheck(lambda t: F.channel_shuffle(t, 4), (x,))
    assert [type(f(x).grad_fn).__name__ for f in (lambda t: F.pixel_shuffle(t, 2), lambda t: F.channel_shuffle(t, 2))] \
        == ["PixelShuffleBackward0", "ChannelShuffleBackward0"]


@pytest.mark.parametrize("call, message", [
    (lambda: F.pixel_shuffle(torch.ones(4, 4), 2),
     "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 dimension(s)"),
    (lambda: F.pixel_shuffle(torch.ones(1, 3, 2, 2), 2), "pixel_shuffle expects its input's 'channel' dimension to "
     "be divisible by the square of upscale_factor, but input.size(-3)=3 is not divisible by 4"),
    (lambda: F.pixel_shuffle(torch.ones(1, 4, 2, 2), 0), "pixel_shuffle expects a positive upscale_factor, but got 0"),
    (lambda: F.pixel_unshuffle(torch.ones(1, 1, 3, 4), 2), "pixel_unshuffle expects height to be divisible by "
     "downscale_factor, but input.size(-2)=3 is not divisible by 2"),
    (lambda: F.pixel_unshuffle(torch.ones(1, 1, 4, 3), 2), "pixel_unshuffle expects width to be divisible by "
     "downscale_factor, but input.size(-1)=3 is not divisible by 2"),
    (lambda: F.channel_shuffle(torch.ones(4, 4), 2),
     "channel_shuffle expects input with > 2 dims, but got input with sizes [4, 4]"),
    (lambda: F.channel_shuffle(torch.ones(1, 3, 2), 2), "Number of channels must be divisible by groups. Got 3 "
     "channels and 2 groups."),
    (lambda: F.cosine_similarity(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long)),
     "expected common dtype to be floating point, yet common dtype is Long"),
])
def test_shuffle_and_similarity_errors_are_pytorchs(call, message):
    with pytest.raises(RuntimeError) as caught:
        call()
    assert str(caught.value) == message


def _np_cosine(a, b, dim, eps):
    a, b = np.broadcast_arrays(a, b)
    na = np.maximum(np.linalg.norm(a, axis=dim, keepdims=True), eps)
    nb = np.maximum(np.linalg.norm(b, axis=dim, keepdims=True), eps)
    return ((a / na) * (b / nb)).sum(axis=dim)


@pytest.mark.parametrize("shape1, shape2, dim", [((4, 5), (4, 5), 1), ((3, 1, 6), (2, 6), -1), ((2, 3), (2, 3), 0)])
def test_cosine_similarity_matches_numpy(shape1, shape2, dim):
    a, b = RNG.standard_normal(shape1), RNG.standard_normal(shape2)
    got = nn.CosineSimilarity(dim)(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(got.numpy(), _np_cosine(a, b, dim, 1e-8), rtol=1e-12, atol=1e-12)
    zero = F.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3))
    assert zero.tolist() == [0.0, 0.0]
    assert F.cosine_similarity(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3)).dtype == torch.float32
    x1 = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    x2 = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda u, v: F.cosine_similarity(u, v), (x1, x2))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_pairwise_distance_matches_numpy(p):
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((5,))
    got = nn.PairwiseDistance(p)(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(got.numpy(), np.linalg.norm(a - b + 1e-6, ord=p, axis=-1), rtol=1e-12)
    assert F.pairwise_distance(torch.tensor(a), torch.tensor(b), p, keepdim=True).shape == (4, 1)
    assert F.pairwise_distance(torch.tensor(1.0), torch.tensor(0.0)).item() == pytest.approx(1.0 + 1e-6)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_shuffles_and_distances_on_the_device_match_the_cpu():
    x = torch.randn(2, 8, 3, 3)
    for f in (lambda t: F.pixel_shuffle(t, 2), lambda t: F.channel_shuffle(t, 4),
              lambda t: F.cosine_similarity(t, t.flip(1)), lambda t: F.pairwise_distance(t, t.flip(3))):
        np.testing.assert_allclose(f(x.cuda()).cpu().numpy(), f(x).numpy(), rtol=1e-5, atol=1e-6)
