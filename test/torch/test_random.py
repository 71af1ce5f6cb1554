"""Random numbers: torch.Generator and the random operators.

The same seed gives PyTorch's numbers: every case in tools/record_random_reference.py was run
with PyTorch 2.13 (CPU, AVX2) and its results are in test/data/random; here Ember replays the
cases and must reproduce them byte for byte. Also: seeding and state (round trips, PyTorch's
5056-byte layout), generators as arguments, statistics of large samples, in-place semantics,
and errors (types and messages verified with PyTorch 2.13).
"""
from __future__ import annotations

import json
import os
import pickle
import re
import threading
import warnings

import numpy as np
import pytest

import torch
from tools import record_random_reference as ref

DATA = ref.DATA_DIR
REFERENCE = ref.load_reference()
DIGESTS = json.loads((DATA / "digests.json").read_text())
FLOAT_DTYPES = [torch.float32, torch.float64]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def arrays_of(result):
    return ref.as_arrays(result)


def assert_same_bytes(actual: list[np.ndarray], expected: list[np.ndarray]) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        if a.tobytes() != e.tobytes():
            diff = np.flatnonzero(a.reshape(-1).view(np.uint8 if a.dtype == np.bool_ else a.dtype)
                                  != e.reshape(-1).view(np.uint8 if e.dtype == np.bool_ else e.dtype))
            raise AssertionError(f"{diff.size} of {a.size} elements differ, first at {diff[:5]}: "
                                 f"{a.reshape(-1)[diff[:3]]} != {e.reshape(-1)[diff[:3]]}")


# ---------------------------------------------------------------------------------------------
# Bit-exact with PyTorch


@pytest.mark.parametrize("name", sorted(ref.CASES))
def test_case_reproduces_pytorch_bit_for_bit(name):
    assert_same_bytes(arrays_of(ref.CASES[name](torch)), REFERENCE[name])


@pytest.mark.parametrize("name", sorted(ref.DIGEST_CASES))
def test_large_case_reproduces_pytorch_digest(name):
    assert ref.digest(arrays_of(ref.DIGEST_CASES[name](torch))) == DIGESTS[name]


@pytest.mark.skipif(os.environ.get("EMBER_SLOW_TESTS") != "1", reason="a minute and 1 GB; EMBER_SLOW_TESTS=1")
@pytest.mark.parametrize("name", sorted(ref.SLOW_DIGEST_CASES))
def test_huge_randperm_uses_pytorchs_64_bit_branch(name):
    assert ref.digest(arrays_of(ref.SLOW_DIGEST_CASES[name](torch))) == DIGESTS[name]


def test_pytorch_state_loaded_into_ember_continues_pytorchs_sequence():
    # PyTorch's state with a cached Box-Muller sample, then randn(5) and rand(3) drawn after it.
    state, randn5, rand3 = REFERENCE["state_after_draws"]
    torch.set_rng_state(torch.from_numpy(state.copy()))
    assert_same_bytes([torch.randn(5).numpy(), torch.rand(3).numpy()], [randn5, rand3])
    torch.set_rng_state(torch.from_numpy(state.copy()))
    assert np.array_equal(torch.get_rng_state().numpy(), state)


def test_reference_was_recorded_with_pytorch_avx2():
    meta = json.loads((DATA / "meta.json").read_text())
    assert meta["torch"].startswith("2.") and meta["cpu_capability"] == "AVX2"


# ---------------------------------------------------------------------------------------------
# Generator API


def test_new_generator_has_pytorchs_default_seed():
    g = torch.Generator()
    assert g.initial_seed() == 67280421310721
    assert str(g.device) == "cpu" and g.device.type == "cpu"
    assert torch.Generator("cpu").initial_seed() == torch.Generator(device=torch.device("cpu")).initial_seed()


def test_manual_seed_returns_the_generator_and_sets_initial_seed():
    g = torch.Generator()
    assert g.manual_seed(1234) is g
    assert g.initial_seed() == 1234


@pytest.mark.parametrize("seed, stored", [(0, 0), (-1, 2**64 - 1), (-(2**63), 2**63), (2**64 - 1, 2**64 - 1)])
def test_manual_seed_takes_int64_and_uint64_range(seed, stored):
    assert torch.Generator().manual_seed(seed).initial_seed() == stored


def test_negative_seed_is_the_same_stream_as_its_uint64_twin():
    a = torch.rand(5, generator=torch.Generator().manual_seed(-3)).numpy()
    b = torch.rand(5, generator=torch.Generator().manual_seed(2**64 - 3)).numpy()
    assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_manual_seed_out_of_range_is_an_overflow_value_error(seed):
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("seed, name", [(1.5, "float"), ("3", "str"), (None, "NoneType"), (True, "bool"),
                                        (lambda: torch.tensor(5), "Tensor")])
def test_manual_seed_of_a_non_integer_is_a_runtime_error(seed, name):
    with pytest.raises(RuntimeError, match=f"manual_seed expected a long, but got {name}"):
        torch.Generator().manual_seed(seed() if callable(seed) else seed)


def test_manual_seed_refuses_numpy_integers_as_pytorch():
    with pytest.raises(TypeError, match="an integer is required"):
        torch.Generator().manual_seed(np.int64(5))
    assert torch.manual_seed(np.int64(5)).initial_seed() == 5          # torch.manual_seed converts with int()


def test_torch_manual_seed_converts_with_int_like_pytorch():
    assert torch.manual_seed(1.9).initial_seed() == 1
    assert torch.manual_seed("17").initial_seed() == 17


def test_seed_is_nondeterministic_and_reseeds():
    g = torch.Generator()
    s1, s2 = g.seed(), g.seed()
    assert s1 != s2 and 0 <= s1 < 2**64
    assert g.initial_seed() == s2
    assert np.array_equal(torch.rand(4, generator=g).numpy(),
                          torch.rand(4, generator=torch.Generator().manual_seed(s2)).numpy())


def test_a_cuda_generator_keeps_a_philox_seed_and_offset_without_a_gpu():
    g = torch.Generator(device="cuda").manual_seed(123)
    assert g.device == torch.device("cuda", 0) and g.initial_seed() == 123 and g.get_offset() == 0
    state = g.get_state()
    assert state.dtype == torch.uint8 and state.shape == (16,)
    assert int.from_bytes(bytes(state[:8].tolist()), "little") == 123
    g.set_offset(8)
    assert int.from_bytes(bytes(g.get_state()[8:].tolist()), "little") == 8
    g.set_state(state)
    assert g.get_offset() == 0 and g.initial_seed() == 123
    with pytest.raises(RuntimeError, match="RNG state is wrong size"):
        g.set_state(torch.zeros(5, dtype=torch.uint8))
    clone = pickle.loads(pickle.dumps(g.set_offset(3)))
    assert clone.device.type == "cuda" and clone.get_offset() == 3 and clone.initial_seed() == 123


def test_a_cuda_generator_is_refused_by_cpu_operators():
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"):
        torch.rand(3, generator=torch.Generator(device="cuda"))


def test_cpu_generator_has_no_offset():
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        torch.Generator().get_offset()
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        torch.Generator().set_offset(1)


def test_state_is_pytorchs_5056_byte_layout():
    g = torch.Generator().manual_seed(7)
    s = g.get_state()
    assert s.dtype == torch.uint8 and tuple(s.shape) == (5056,)
    b = s.numpy()
    assert int.from_bytes(b[0:8].tobytes(), "little") == 7          # the_initial_seed
    assert int.from_bytes(b[8:12].tobytes(), "little") == 1         # left
    assert int.from_bytes(b[12:16].tobytes(), "little") == 1        # seeded
    assert int.from_bytes(b[24:32].tobytes(), "little") == 7        # state[0] = seed & 0xffffffff
    assert not b[5016:].any()                                        # no cached normal samples


def test_get_state_set_state_round_trip_replays_the_same_numbers():
    g = torch.Generator().manual_seed(3)
    torch.randn(3, generator=g)                 # odd count: one Box-Muller sample stays cached
    state = g.get_state()
    first = [torch.randn(5, generator=g).numpy(), torch.rand(7, generator=g).numpy()]
    h = torch.Generator().set_state(state)
    again = [torch.randn(5, generator=h).numpy(), torch.rand(7, generator=h).numpy()]
    assert_same_bytes(again, first)
    assert np.array_equal(g.get_state().numpy(), h.get_state().numpy())


def test_cached_normal_sample_is_part_of_the_state():
    g = torch.Generator().manual_seed(0)
    torch.randn(1, generator=g)
    s = g.get_state().numpy()
    assert int.from_bytes(s[5040:5044].tobytes(), "little") == 1    # normal_is_valid
    torch.randn(1, generator=g)
    assert not g.get_state().numpy()[5040:5044].any()


def test_manual_seed_drops_the_cached_normal_sample():
    g = torch.Generator().manual_seed(0)
    a = torch.randn(2, generator=g).numpy()
    torch.randn(1, generator=g)
    g.manual_seed(0)
    assert np.array_equal(torch.randn(2, generator=g).numpy(), a)


@pytest.mark.parametrize("state, exc, message", [
    (lambda: torch.zeros(10, dtype=torch.uint8), RuntimeError,
     "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 10"),
    (lambda: torch.zeros(5056, dtype=torch.float32), TypeError, "RNG state must be a torch.ByteTensor"),
    (lambda: torch.zeros(5056, dtype=torch.uint8), RuntimeError, "Invalid mt19937 state"),
    (lambda: [1, 2], TypeError, "expected a torch.ByteTensor, but got list"),
    (lambda: torch.from_numpy(np.zeros(10112, np.uint8)[::2]), RuntimeError, "RNG state must be contiguous"),
])
def test_set_state_rejects_bad_states(state, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        torch.Generator().set_state(state())


def test_generator_pickles_with_its_state():
    g = torch.Generator().manual_seed(5)
    torch.rand(10, generator=g)
    h = pickle.loads(pickle.dumps(g))
    assert h.initial_seed() == 5
    assert np.array_equal(torch.rand(4, generator=h).numpy(), torch.rand(4, generator=g).numpy())


def test_clone_state_is_an_independent_copy():
    g = torch.Generator().manual_seed(5)
    h = g.clone_state()
    assert np.array_equal(torch.rand(4, generator=h).numpy(), torch.rand(4, generator=g).numpy())
    torch.rand(1, generator=g)
    assert not np.array_equal(g.get_state().numpy(), h.get_state().numpy())


# ---------------------------------------------------------------------------------------------
# The default generator and torch.random


def test_torch_level_seeding_functions_use_the_default_generator():
    assert torch.manual_seed(11) is torch.default_generator
    assert torch.initial_seed() == 11
    s = torch.seed()
    assert torch.initial_seed() == s
    assert torch.random.initial_seed() == s
    assert torch.Generator is torch.random.Generator
    for name in ("Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
                 "set_rng_state"):
        assert name in torch.__all__


def test_get_rng_state_set_rng_state_round_trip():
    torch.manual_seed(21)
    torch.randn(5)
    state = torch.get_rng_state()
    a = [torch.randn(3).numpy(), torch.randint(0, 100, (5,)).numpy(), torch.randperm(9).numpy()]
    torch.set_rng_state(state)
    b = [torch.randn(3).numpy(), torch.randint(0, 100, (5,)).numpy(), torch.randperm(9).numpy()]
    assert_same_bytes(b, a)


def test_fork_rng_restores_the_default_state():
    torch.manual_seed(4)
    with torch.random.fork_rng():
        inside = torch.rand(3).numpy()
    assert np.array_equal(torch.rand(3).numpy(), inside)


def test_generator_argument_leaves_the_default_generator_alone():
    torch.manual_seed(8)
    before = torch.get_rng_state().numpy()
    g = torch.Generator().manual_seed(8)
    x = torch.rand(5, generator=g)
    torch.randn(17, generator=g)
    torch.randint(3, 9, (4,), generator=g)
    torch.randperm(7, generator=g)
    torch.multinomial(torch.ones(5), 2, generator=g)
    torch.empty(4).normal_(generator=g).bernoulli_(0.5, generator=g).exponential_(generator=g)
    assert np.array_equal(torch.get_rng_state().numpy(), before)
    assert np.array_equal(x.numpy(), torch.rand(5).numpy())     # same seed: same stream


@pytest.mark.parametrize("make", [
    lambda g: torch.rand(3, 4, generator=g), lambda g: torch.randn(40, generator=g, dtype=torch.float64),
    lambda g: torch.randint(-4, 4, (9,), generator=g), lambda g: torch.randperm(12, generator=g),
    lambda g: torch.normal(1.0, 2.0, (6,), generator=g), lambda g: torch.bernoulli(torch.full((8,), 0.5), generator=g),
    lambda g: torch.multinomial(torch.ones(3, 6), 4, generator=g),
    lambda g: torch.empty(10).exponential_(3.0, generator=g), lambda g: torch.empty(6).uniform_(-1, 1, generator=g),
    lambda g: torch.empty(5, dtype=torch.int16).random_(generator=g),
], ids=["rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "exponential_", "uniform_",
        "random_"])
def test_same_seed_same_numbers_different_seed_different_numbers(make):
    a = make(torch.Generator().manual_seed(99)).numpy()
    b = make(torch.Generator().manual_seed(99)).numpy()
    c = make(torch.Generator().manual_seed(100)).numpy()
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_generators_shared_between_threads_stay_consistent():
    g = torch.Generator().manual_seed(1)
    results = []

    def draw():
        results.append(torch.rand(50000, generator=g).numpy())

    threads = [threading.Thread(target=draw) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    together = np.sort(np.concatenate(results))
    alone = np.sort(torch.rand(200000, generator=torch.Generator().manual_seed(1)).numpy())
    assert np.array_equal(together, alone)     # every word drawn exactly once


# ---------------------------------------------------------------------------------------------
# Distributions: large samples


def test_rand_is_uniform_on_0_1():
    for dt in FLOAT_DTYPES:
        x = torch.rand(200000, generator=torch.Generator().manual_seed(1), dtype=dt).numpy()
        assert x.dtype == dt.numpy_dtype and x.min() >= 0 and x.max() < 1
        assert abs(x.mean() - 0.5) < 0.005 and abs(x.std() - (1 / 12) ** 0.5) < 0.005


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("n", [15, 200000], ids=["serial", "vectorised"])
def test_randn_mean_and_std(dtype, n):
    g = torch.Generator().manual_seed(2)
    x = np.concatenate([torch.randn(n, generator=g, dtype=dtype).numpy() for _ in range(max(1, 200000 // n))])
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01


def test_normal_and_uniform_parameters():
    g = torch.Generator().manual_seed(3)
    x = torch.empty(200000).normal_(3.0, 0.5, generator=g).numpy()
    assert abs(x.mean() - 3.0) < 0.01 and abs(x.std() - 0.5) < 0.01
    u = torch.empty(200000, dtype=torch.float64).uniform_(-2.0, 6.0, generator=g).numpy()
    assert u.min() >= -2.0 and u.max() < 6.0 and abs(u.mean() - 2.0) < 0.05


def test_exponential_mean_is_one_over_lambda():
    x = torch.empty(200000).exponential_(4.0, generator=torch.Generator().manual_seed(4)).numpy()
    assert x.min() >= 0 and abs(x.mean() - 0.25) < 0.005


def test_cauchy_log_normal_geometric_distributions():
    g = torch.Generator().manual_seed(13)
    c = torch.empty(200000, dtype=torch.float64).cauchy_(2.0, 0.5, generator=g).numpy()
    assert abs(np.median(c) - 2.0) < 0.01 and abs(np.percentile(c, 75) - 2.5) < 0.02
    ln = torch.empty(200000).log_normal_(0.5, 0.25, generator=g).numpy()
    assert abs(np.log(ln).mean() - 0.5) < 0.005 and abs(np.log(ln).std() - 0.25) < 0.005
    geo = torch.empty(200000, dtype=torch.int64).geometric_(0.25, generator=g).numpy()
    assert geo.min() == 1 and abs(geo.mean() - 4.0) < 0.05


def test_bernoulli_frequency_follows_p():
    g = torch.Generator().manual_seed(5)
    p = torch.from_numpy(np.repeat(np.array([0.0, 0.2, 0.9, 1.0], np.float32), 50000))
    x = torch.bernoulli(p, generator=g).numpy().reshape(4, -1).mean(axis=1)
    assert x[0] == 0 and x[3] == 1 and abs(x[1] - 0.2) < 0.01 and abs(x[2] - 0.9) < 0.01
    y = torch.empty(100000, dtype=torch.bool).bernoulli_(0.3, generator=g).numpy()
    assert abs(y.mean() - 0.3) < 0.01


def test_randint_covers_the_range_uniformly():
    x = torch.randint(-3, 7, (100000,), generator=torch.Generator().manual_seed(6)).numpy()
    assert x.dtype == np.int64 and x.min() == -3 and x.max() == 6
    counts = np.bincount(x + 3)
    assert counts.min() > 9500 and counts.max() < 10500


@pytest.mark.parametrize("n", [0, 1, 2, 1000])
def test_randperm_is_a_permutation(n):
    p = torch.randperm(n, generator=torch.Generator().manual_seed(7)).numpy()
    assert p.dtype == np.int64 and np.array_equal(np.sort(p), np.arange(n))


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_frequencies(replacement):
    probs = np.array([[0.1, 0.0, 0.6, 0.3]], np.float32).repeat(4000, axis=0)
    s = torch.multinomial(torch.from_numpy(probs), 1 if not replacement else 5, replacement,
                          generator=torch.Generator().manual_seed(8)).numpy()
    freq = np.bincount(s.reshape(-1), minlength=4) / s.size
    assert freq[1] == 0 and np.allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.02)


def test_multinomial_without_replacement_never_repeats():
    s = torch.multinomial(torch.ones(50, 10), 10, generator=torch.Generator().manual_seed(9)).numpy()
    assert all(np.array_equal(np.sort(row), np.arange(10)) for row in s)


def test_dropout_scales_the_kept_elements():
    x = torch.dropout(torch.ones(100000), 0.25, True).numpy()
    kept = x[x != 0]
    assert np.all(kept == np.float32(1) / np.float32(0.75)) and abs(kept.size / x.size - 0.75) < 0.01


# ---------------------------------------------------------------------------------------------
# Shapes, dtypes, in-place semantics


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_factories_make_the_requested_shape_and_dtype(dtype):
    for t in (torch.rand(2, 3, dtype=dtype), torch.randn((2, 3), dtype=dtype), torch.normal(0.0, 1.0, (2, 3), dtype=dtype),
              torch.randint(5, (2, 3), dtype=dtype), torch.rand_like(torch.zeros(2, 3, dtype=dtype)),
              torch.randn_like(torch.zeros(2, 3, dtype=dtype)), torch.randint_like(torch.zeros(2, 3, dtype=dtype), 4)):
        assert t.dtype == dtype and tuple(t.shape) == (2, 3)
    assert torch.rand(()).dim() == 0 and tuple(torch.randn(0, 4).shape) == (0, 4)


def test_default_dtypes():
    assert torch.rand(2).dtype == torch.get_default_dtype()
    assert torch.randint(3, (2,)).dtype == torch.int64
    assert torch.randint(3, (2,), dtype=None).dtype == torch.int64
    assert torch.randperm(3).dtype == torch.int64
    assert torch.multinomial(torch.ones(3), 2).dtype == torch.int64
    assert torch.randint_like(torch.zeros(2, dtype=torch.int16), 9).dtype == torch.int16


@pytest.mark.parametrize("op", [
    lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.exponential_(), lambda t: t.bernoulli_(0.5),
    lambda t: t.bernoulli_(torch.full((3,), 0.5)), lambda t: t.random_(), lambda t: t.random_(10),
    lambda t: t.random_(2, 10), lambda t: t.cauchy_(), lambda t: t.log_normal_(), lambda t: t.geometric_(0.5)],
    ids=["uniform_", "normal_", "exponential_", "bernoulli_", "bernoulli_T", "random_", "random_to", "random_from",
         "cauchy_", "log_normal_", "geometric_"])
def test_in_place_ops_return_self_and_bump_the_version(op):
    t = torch.zeros(4, 3)
    v = t._version
    assert op(t) is t
    assert t._version == v + 1


def test_in_place_on_a_strided_view_writes_only_its_elements():
    base = np.full((6, 8), -7.0, np.float32)
    view = torch.from_numpy(base[::2, 1::3])            # non-contiguous, with gaps
    view.normal_(generator=torch.Generator().manual_seed(1))
    mask = np.zeros_like(base, bool)
    mask[::2, 1::3] = True
    assert np.all(base[~mask] == -7.0) and np.all(base[mask] != -7.0)
    view.uniform_(5, 6)
    assert np.all((base[mask] >= 5) & (base[mask] < 6)) and np.all(base[~mask] == -7.0)


def test_like_factories_keep_the_input_layout():
    x = torch.from_numpy(np.zeros((3, 5), np.float32).T)
    for t in (torch.rand_like(x), torch.randn_like(x), torch.randint_like(x, 3)):
        assert t.stride() == (1, 5)
    assert torch.rand_like(x, memory_format=torch.contiguous_format).stride() == (3, 1)
    assert torch.bernoulli(x).stride() == (3, 1)                   # bernoulli: contiguous, as PyTorch


def test_randint_like_with_a_tensor_high():
    t = torch.randint_like(torch.zeros(50), torch.tensor(4))
    assert t.numpy().min() >= 0 and t.numpy().max() < 4
    with pytest.raises(RuntimeError, match="high must be a scalar tensor and on CPU"):
        torch.randint_like(torch.zeros(3), torch.tensor([10]))


@pytest.mark.parametrize("dtype", [torch.bool, *INT_DTYPES, *FLOAT_DTYPES], ids=str)
def test_random_and_bernoulli_support_every_dtype(dtype):
    g = torch.Generator().manual_seed(10)
    r = torch.empty(1000, dtype=dtype).random_(generator=g).numpy()
    limit = {torch.bool: 1, torch.uint8: 255, torch.int8: 127, torch.int16: 32767, torch.int32: 2**31 - 1,
             torch.int64: 2**63 - 1, torch.float32: 2**24, torch.float64: 2**53}[dtype]
    assert r.min() >= 0 and r.max() <= limit
    b = torch.empty(1000, dtype=dtype).bernoulli_(0.5, generator=g).numpy()
    assert set(np.unique(b.astype(np.int64))) == {0, 1}


def test_random_from_to_edges():
    g = torch.Generator().manual_seed(11)
    assert set(np.unique(torch.empty(200, dtype=torch.bool).random_(0, 2, generator=g).numpy())) == {False, True}
    x = torch.empty(500, dtype=torch.int8).random_(-128, None, generator=g).numpy()
    assert x.min() < -100 and x.max() > 100
    big = torch.empty(100, dtype=torch.int64).random_(-2**63, None, generator=g).numpy()
    assert big.min() < -2**60 and big.max() > 2**60


def test_dropout_returns_its_input_when_it_does_nothing():
    x = torch.ones(3)
    assert torch.dropout(x, 0.0, True) is x
    assert torch.dropout(x, 0.5, False) is x
    assert torch.dropout(torch.ones(0), 0.5, True).numel() == 0
    assert torch.dropout(x, 1.0, True).tolist() == [0.0, 0.0, 0.0]


def test_native_dropout_returns_output_and_bool_mask():
    out, mask = torch.native_dropout(torch.ones(1000), 0.5, True)
    assert mask.dtype == torch.bool
    assert np.array_equal(out.numpy() != 0, mask.numpy())
    out, mask = torch.native_dropout(torch.ones(3), 0.5, False)
    assert out.tolist() == [1.0, 1.0, 1.0] and mask.tolist() == [True, True, True]
    out, mask = torch.native_dropout(torch.ones(0), 0.5, True)
    assert mask.dtype == torch.float32                              # PyTorch's empty_like(input)


def test_method_variants():
    g = torch.Generator().manual_seed(12)
    assert torch.zeros(4).bernoulli(generator=g).dtype == torch.float32
    assert torch.zeros(4).bernoulli(0.5).dtype == torch.float32
    assert tuple(torch.ones(2, 5).multinomial(3).shape) == (2, 3)


# ---------------------------------------------------------------------------------------------
# Errors (PyTorch 2.13's types and messages)

ERRORS = [
    (lambda: torch.rand(3, dtype=torch.int64), NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda: torch.randn(3, dtype=torch.int32), NotImplementedError, "\"normal_kernel_cpu\" not implemented for 'Int'"),
    (lambda: torch.randint(5, 3, (2,)), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    (lambda: torch.randint(0, (2,)), RuntimeError, "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"),
    (lambda: torch.randint(300, (2,), dtype=torch.uint8), RuntimeError, "to - 1 is out of bounds for unsigned char"),
    (lambda: torch.randint(-1, 3, (2,), dtype=torch.uint8), RuntimeError, "from is out of bounds for unsigned char"),
    (lambda: torch.randint(3, (2,), dtype=torch.bool), RuntimeError, "to - 1 is out of bounds for bool"),
    (lambda: torch.randint(-2**20, 3, (2,), dtype=torch.int16), RuntimeError, "from is out of bounds for short int"),
    (lambda: torch.randint(0, 2**40, (2,), dtype=torch.int32), RuntimeError, "to - 1 is out of bounds for int"),
    (lambda: torch.randperm(-1), RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: torch.randperm(3, dtype=torch.bool), NotImplementedError, "\"randperm\" not implemented for 'Bool'"),
    (lambda: torch.randperm(300, dtype=torch.uint8), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: torch.randperm(40000, dtype=torch.int16), RuntimeError,
     "value cannot be converted to type int16_t without overflow"),
    (lambda: torch.randperm(2**24 + 2, dtype=torch.float32), RuntimeError,
     "n cannot be greater than 2^24+1 for Float type."),
    (lambda: torch.normal(torch.zeros(3), -1.0), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda: torch.normal(0.0, torch.tensor([1.0, float("nan")])), RuntimeError,
     "normal expects all elements of std >= 0.0"),
    (lambda: torch.normal(torch.zeros(3, dtype=torch.int64), 1.0), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
    (lambda: torch.normal(torch.zeros(2), torch.ones(3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: torch.normal(2.0, -3.0, (2,)), RuntimeError, "normal expects std >= 0.0, but found std -3"),
    (lambda: torch.zeros(3).normal_(0, float("nan")), RuntimeError, "normal expects std >= 0.0, but found std nan"),
    (lambda: torch.zeros(3).uniform_(2, 1), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
    (lambda: torch.zeros(3, dtype=torch.float64).uniform_(0.1, 1e-5), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=0.1 > to=1e-05"),
    (lambda: torch.zeros(3).uniform_(-1e39, 1), RuntimeError, "from is out of bounds for float"),
    (lambda: torch.zeros(3).uniform_(0, 1e39), RuntimeError, "to is out of bounds for float"),
    (lambda: torch.zeros(3).uniform_(-3e38, 3e38), RuntimeError,
     "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and from=-3e+38 which "
     "result in to-from to exceed the limit"),
    (lambda: torch.zeros(3, dtype=torch.int64).uniform_(), NotImplementedError,
     "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda: torch.zeros(3).exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda: torch.zeros(3).exponential_(float("nan")), RuntimeError,
     "exponential_ expects lambda > 0.0, but found lambda=nan"),
    (lambda: torch.zeros(3, dtype=torch.int64).exponential_(), RuntimeError,
     "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you "
     "specified Long"),
    (lambda: torch.zeros(3).cauchy_(0, 0), RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=0"),
    (lambda: torch.zeros(3, dtype=torch.int64).cauchy_(), RuntimeError,
     "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you "
     "specified long int"),
    (lambda: torch.zeros(3).log_normal_(0, 0), RuntimeError, "log_normal_ expects std > 0.0, but found std=0"),
    (lambda: torch.zeros(3, dtype=torch.int64).log_normal_(), NotImplementedError,
     "\"log_normal_cpu\" not implemented for 'Long'"),
    (lambda: torch.zeros(3).geometric_(1.0), RuntimeError, "geometric_ expects p to be in (0, 1), but got p=1"),
    (lambda: torch.zeros(3).bernoulli_(1.5), RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda: torch.zeros(3).bernoulli_(float("nan")), RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=nan"),
    (lambda: torch.bernoulli(torch.tensor([0.3, 2.0])), RuntimeError,
     "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    (lambda: torch.bernoulli(torch.tensor([1, 0])), NotImplementedError,
     "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
    (lambda: torch.zeros(3).bernoulli_(torch.tensor([0.5, 0.5])), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
     "Target sizes: [3].  Tensor sizes: [2]"),
    (lambda: torch.zeros(7, 5).bernoulli_(torch.zeros(5, 7)), RuntimeError,
     "The expanded size of the tensor (5) must match the existing size (7) at non-singleton dimension 1.  "
     "Target sizes: [7, 5].  Tensor sizes: [5, 7]"),
    (lambda: torch.normal(torch.zeros(2, 3), torch.ones(3, 2)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    (lambda: torch.bernoulli(torch.tensor([0.3, 0.5]), 1.5), RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda: torch.multinomial(torch.tensor([0.2, 0.8]), 3), RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda: torch.multinomial(torch.tensor([0.2, 0.8]), 0), RuntimeError, "cannot sample n_sample <= 0 samples"),
    (lambda: torch.multinomial(torch.tensor([0.2, -0.8]), 1, True), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: torch.multinomial(torch.tensor([0.2, float("nan")]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: torch.multinomial(torch.tensor([[0.2, 0.3], [0.0, 0.0]]), 1), RuntimeError,
     "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda: torch.multinomial(torch.tensor([[0.2, 0.8], [-1.0, 0.5]]), 2, True), RuntimeError,
     "invalid multinomial distribution (encountering probability entry < 0)"),
    (lambda: torch.multinomial(torch.tensor([[0.2, 0.8], [float("inf"), 0.5]]), 2, True), RuntimeError,
     "invalid multinomial distribution (encountering probability entry = infinity or NaN)"),
    (lambda: torch.multinomial(torch.tensor([[0.2, 0.8], [0.0, 0.0]]), 2, True), RuntimeError,
     "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda: torch.multinomial(torch.tensor([1, 2]), 1), RuntimeError,
     "multinomial only supports floating-point dtypes for input, got: Long"),
    (lambda: torch.multinomial(torch.tensor(0.5), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
    (lambda: torch.zeros(3).random_(5, 3), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    (lambda: torch.zeros(3, dtype=torch.float32).random_(2**62, None), RuntimeError,
     "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got "
     "from=4611686018427387904 > to_inc=16777216"),
    (lambda: torch.zeros(3, dtype=torch.int32).random_(-2**63, None), RuntimeError,
     "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"),
    (lambda: torch.dropout(torch.ones(3), 1.5, True), RuntimeError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: torch.dropout(torch.ones(3, dtype=torch.int64), 0.5, True), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda: torch.native_dropout(torch.ones(3), 1.5, True), RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=-0.5"),
    (lambda: torch.native_dropout(torch.ones(3, dtype=torch.int64), 0.5, True), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda: torch.empty(3).expand(2, 3).uniform_() if hasattr(torch.Tensor, "expand")
     else torch.from_numpy(np.broadcast_to(np.zeros(3, np.float32), (2, 3))).uniform_(), RuntimeError,
     "unsupported operation: more than one element of the written-to tensor refers to a single memory location."),
    (lambda: torch.rand(2, generator=3), TypeError, "generator"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_match_pytorch(call, exc, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc, match=re.escape(message)):
            call()


def test_float_range_beyond_the_mantissa_warns_as_pytorch():
    with pytest.warns(UserWarning, match=re.escape("to - 1 is out of bounds [-(2^24), 2^24]. Due to precision "
                                                   "limitations float can support discrete uniform distribution")):
        torch.randint(2**25, (2,), dtype=torch.float32)


def test_errors_on_empty_tensors_follow_pytorchs_order():
    # PyTorch returns early for empty tensors before some dtype checks, not before others.
    assert torch.zeros(0, dtype=torch.int64).normal_().numel() == 0
    assert torch.zeros(0, dtype=torch.int64).exponential_().numel() == 0
    with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
        torch.zeros(0, dtype=torch.int64).uniform_()


@pytest.mark.parametrize("avx2", [True, False], ids=["avx2", "portable"])
def test_both_float32_normal_fill_paths_reproduce_pytorch(avx2):
    from aten.native.cpu import random_fill as kernels
    previous = kernels._use_avx2(avx2)
    try:
        for name in ("randn_f32_1000003", "normal__f32_100001"):
            assert ref.digest(arrays_of(ref.DIGEST_CASES[name](torch))) == DIGESTS[name]
    finally:
        kernels._use_avx2(previous)


def test_float16_uniform_stays_below_to_and_checks_halfs_bounds():
    """As PyTorch's Half kernel: drawn in float, rounded, and a value rounded up to `to` becomes `from`."""
    g = torch.Generator().manual_seed(0)
    x = torch.empty(200_000, dtype=torch.float16).uniform_(-9, 9, generator=g)
    assert x.max().item() < 9 and x.min().item() >= -9
    # Recorded from PyTorch 2.13: torch.empty(5, dtype=torch.float16).uniform_(-9, 9, generator=Generator seeded 0).
    g.manual_seed(0)
    assert torch.empty(5, dtype=torch.float16).uniform_(-9, 9, generator=g).tolist() == \
        [-0.0673828125, 4.828125, -7.40625, -6.625, -3.466796875]
    with pytest.raises(RuntimeError, match="from is out of bounds for c10::Half"):
        torch.empty(2, dtype=torch.float16).uniform_(-1e5, 1)
    with pytest.raises(RuntimeError, match="to is out of bounds for c10::Half"):
        torch.empty(2, dtype=torch.float16).uniform_(0, 1e5)
    with pytest.raises(RuntimeError, match=r"to-from <= std::numeric_limits<Half>::max\(\)"):
        torch.empty(2, dtype=torch.float16).uniform_(-60000, 60000)
