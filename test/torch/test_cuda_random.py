"""The random operators on CUDA: the Philox kernels (uniform_, normal_, bernoulli_) and the portable
ones written over them (aten/native/composite/portable_random.py). Draws differ from the CPU's
generator, so these check shapes, dtypes, layouts, seeding, the distribution's moments and the
CPU's errors.

Run with a GPU (`pytest -m cuda`) or on the CUDA host emulator (`EMBER_CUDA_EMULATOR=1`).
"""
import math

import numpy as np
import pytest

import torch
import torch.nn.functional as F

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]

N = 1 << 16


def _moments(t):
    values = t.cpu().double().numpy().ravel()
    return values.mean(), values.std()


def _seeded(fn, seed=3):
    torch.cuda.manual_seed(seed)
    return fn().cpu()


@pytest.mark.parametrize("make", [
    lambda x: torch.rand_like(x), lambda x: torch.randn_like(x), lambda x: torch.randint_like(x, 10),
    lambda x: torch.randint_like(x, 3, 10), lambda x: torch.bernoulli(torch.full_like(x, 0.5)),
    lambda x: torch.normal(x, 2.0), lambda x: x.clone().exponential_(), lambda x: x.clone().cauchy_(),
    lambda x: x.clone().log_normal_(), lambda x: x.clone().geometric_(0.3),
], ids=["rand_like", "randn_like", "randint_like", "randint_like_low", "bernoulli", "normal", "exponential_",
        "cauchy_", "log_normal_", "geometric_"])
def test_random_ops_stay_on_the_device_keep_the_layout_and_repeat_under_a_seed(make):
    x = torch.zeros(6, 4, device="cuda").t()          # non-contiguous: the *_like ops keep its strides
    first = _seeded(lambda: make(x))
    out = make(x)
    assert out.device.type == "cuda" and out.shape == x.shape and out.dtype == x.dtype
    assert torch.equal(_seeded(lambda: make(x)), first)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_rand_and_randn_draw_every_floating_dtype(dtype):
    u = torch.rand(N, device="cuda", dtype=dtype)
    assert u.dtype == dtype and 0 <= u.min().item() and u.max().item() < 1
    mean, std = _moments(u)
    assert abs(mean - 0.5) < 0.01 and abs(std - math.sqrt(1 / 12)) < 0.01
    mean, std = _moments(torch.randn(N, device="cuda", dtype=dtype))
    assert abs(mean) < 0.02 and abs(std - 1) < 0.02


def test_half_uniform_never_reaches_its_upper_bound():
    u = torch.empty(N, device="cuda", dtype=torch.float16).uniform_(0, 1).cpu()
    assert u.max().item() < 1


def test_the_like_factories_take_dtype_and_make_integers():
    x = torch.zeros(N, device="cuda")
    r = torch.randint_like(x, 2, 7, dtype=torch.int32).cpu().numpy()
    assert r.dtype == np.int32 and r.min() == 2 and r.max() == 6
    assert torch.randn_like(x, dtype=torch.float64).dtype == torch.float64
    high = torch.randint_like(x, torch.tensor(4)).cpu().numpy()
    assert high.min() == 0 and high.max() == 3
    with pytest.raises(RuntimeError, match="high must be a scalar tensor and on CPU"):
        torch.randint_like(x, torch.tensor([4]))


def test_bernoulli_of_a_probability_tensor_follows_each_probability():
    p = torch.tensor([0.0, 0.2, 0.9, 1.0], device="cuda").repeat(N // 4).reshape(-1, 4)
    drawn = torch.bernoulli(p).cpu().numpy()
    assert set(np.unique(drawn)) <= {0.0, 1.0}
    np.testing.assert_allclose(drawn.mean(0), [0.0, 0.2, 0.9, 1.0], atol=0.015)
    ones = torch.zeros(N, device="cuda").bernoulli_(torch.tensor(0.25, device="cuda")).cpu().numpy()
    assert abs(ones.mean() - 0.25) < 0.01
    assert abs(torch.bernoulli(torch.zeros(N, device="cuda"), 0.7).cpu().numpy().mean() - 0.7) < 0.01


def test_bernoulli_refuses_probabilities_outside_zero_to_one():
    with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true"):
        torch.bernoulli(torch.tensor([0.5, 1.5], device="cuda"))


def test_normal_with_tensor_mean_and_std_broadcasts_and_scales():
    mean = torch.tensor([-5.0, 0.0, 5.0], device="cuda").reshape(3, 1)
    std = torch.tensor([0.5, 2.0], device="cuda").repeat(N // 2)
    drawn = torch.normal(mean, std).cpu().numpy()
    assert drawn.shape == (3, N)
    np.testing.assert_allclose(drawn.mean(1), [-5, 0, 5], atol=0.05)
    np.testing.assert_allclose(drawn[:, 1::2].std(1), [2, 2, 2], atol=0.05)
    mean, std = _moments(torch.normal(3.0, torch.full((N,), 0.5, device="cuda")))
    assert abs(mean - 3) < 0.02 and abs(std - 0.5) < 0.02
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        torch.normal(mean=torch.zeros(2, device="cuda"), std=torch.tensor([1.0, -1.0], device="cuda"))


@pytest.mark.parametrize("fill, expected_mean, expected_median", [
    (lambda t: t.exponential_(2.0), 0.5, math.log(2) / 2),
    (lambda t: t.cauchy_(1.0, 2.0), None, 1.0),
    (lambda t: t.log_normal_(0.0, 0.5), math.exp(0.125), 1.0),
    (lambda t: t.geometric_(0.25), 4.0, 3.0),
], ids=["exponential", "cauchy", "log_normal", "geometric"])
def test_the_other_distributions_have_their_mean_and_median(fill, expected_mean, expected_median):
    values = fill(torch.empty(N, device="cuda", dtype=torch.float64)).cpu().numpy()
    if expected_mean is not None:
        assert abs(values.mean() - expected_mean) < 0.03 * max(1, expected_mean)
    assert abs(np.median(values) - expected_median) < 0.05 * max(1, expected_median)


def test_geometric_draws_whole_trials_from_one():
    trials = torch.empty(N, device="cuda", dtype=torch.int64).geometric_(0.9).cpu().numpy()
    assert trials.min() == 1 and abs((trials == 1).mean() - 0.9) < 0.01


def test_distribution_arguments_are_checked_as_on_the_cpu():
    t = torch.empty(3, device="cuda")
    for fn, message in [(lambda: t.exponential_(0.0), "exponential_ expects lambda > 0.0, but found lambda=0"),
                        (lambda: t.cauchy_(0.0, -1.0), "cauchy_ expects sigma > 0.0, but found sigma=-1"),
                        (lambda: t.log_normal_(1.0, 0.0), "log_normal_ expects std > 0.0, but found std=0"),
                        (lambda: t.geometric_(1.0), r"geometric_ expects p to be in \(0, 1\), but got p=1"),
                        (lambda: torch.normal(t, -1.0), "normal expects std >= 0.0, but found std -1")]:
        with pytest.raises(RuntimeError, match=message):
            fn()
    with pytest.raises(RuntimeError, match="Cauchy distribution is a continuous probability distribution. dtype "
                                           "must be a floating point but you specified long int"):
        torch.zeros(3, device="cuda", dtype=torch.int64).cauchy_()


def test_native_dropout_returns_the_scaled_output_and_its_mask():
    x = torch.randn(N, device="cuda")
    out, mask = torch.native_dropout(x, 0.25, True)
    assert mask.dtype == torch.bool and mask.device.type == "cuda"
    got, keep = out.cpu().numpy(), mask.cpu().numpy()
    np.testing.assert_allclose(got, np.where(keep, x.cpu().numpy() / 0.75, 0), rtol=1e-6)
    assert abs(keep.mean() - 0.75) < 0.01
    out, mask = torch.native_dropout(x, 0.25, False)
    assert torch.equal(out.cpu(), x.cpu()) and bool(mask.all())


def test_a_vae_style_reparameterisation_trains_on_the_device():
    torch.manual_seed(0)
    mu = torch.zeros(8, 4, device="cuda", requires_grad=True)
    log_var = torch.zeros(8, 4, device="cuda", requires_grad=True)
    z = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
    loss = F.mse_loss(z, torch.ones_like(z)) - 0.5 * torch.mean(1 + log_var - mu ** 2 - log_var.exp())
    loss.backward()
    assert mu.grad.device.type == "cuda" and torch.isfinite(log_var.grad).all()


def test_a_cuda_generator_gives_its_own_repeatable_stream():
    g = torch.Generator(device="cuda").manual_seed(11)
    first = torch.randn(1000, device="cuda", generator=g).cpu()
    state = g.get_state()
    second = torch.rand(1000, device="cuda", generator=g).cpu()
    g.set_state(state)
    assert torch.equal(torch.rand(1000, device="cuda", generator=g).cpu(), second)
    again = torch.Generator(device="cuda").manual_seed(11)
    assert torch.equal(torch.randn(1000, device="cuda", generator=again).cpu(), first)
    torch.cuda.manual_seed(11)       # the default generator with the same seed draws the same
    assert torch.equal(torch.randn(1000, device="cuda").cpu(), first)


def test_the_default_cuda_generator_state_round_trips():
    torch.cuda.manual_seed(3)
    state = torch.cuda.get_rng_state()
    drawn = torch.rand(100, device="cuda").cpu()
    torch.cuda.set_rng_state(state)
    assert torch.equal(torch.rand(100, device="cuda").cpu(), drawn)
    assert torch.cuda.default_generators[0].initial_seed() == 3 == torch.cuda.initial_seed()


def test_every_random_op_takes_a_cuda_generator():
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.rand(64, device="cuda")
    for draw in (lambda: torch.randn_like(x, generator=g), lambda: torch.bernoulli(x, generator=g),
                 lambda: torch.normal(x, 1.0, generator=g), lambda: x.clone().exponential_(generator=g),
                 lambda: torch.randint(0, 5, (64,), device="cuda", generator=g),
                 lambda: torch.randperm(64, device="cuda", generator=g),
                 lambda: torch.multinomial(x + 0.1, 4, generator=g)):
        start = g.get_offset()
        assert draw().device.type == "cuda" and g.get_offset() > start


def test_fork_rng_and_seed_cover_the_cuda_generator():
    with torch.random.fork_rng():
        inside = torch.rand(8, device="cuda").cpu()
    assert torch.equal(torch.rand(8, device="cuda").cpu(), inside)
    value = torch.seed()
    assert torch.cuda.initial_seed() == value


def test_edge_cases_of_the_random_ops_match_the_cpu():
    assert torch.zeros(0, device="cuda").bernoulli_(torch.tensor(2.0, device="cuda")).shape == (0,)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for bool"):
        torch.randint_like(torch.empty(5, dtype=torch.bool, device="cuda"), 3)
    with pytest.raises(RuntimeError, match="invalid multinomial distribution \\(sum of probabilities <= 0\\)"):
        torch.multinomial(torch.ones(2, 0, device="cuda"), 1, True)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        torch.multinomial(torch.tensor([-1.0, 1.0], device="cuda"), 1)
    assert torch.multinomial(torch.ones(0, 3, device="cuda"), 2).shape == (0, 2)
