"""An argument that is an installed library's object (a transformers StaticCache) is guarded on its structure, not
its identity (torch/_dynamo/library_arguments.py): a new object of the same structure each call replays, its
tensors the graph's inputs, updated in place as eager updates them, and handed back as the caller's own; what a
replay could not redo is a graph break, a structure that differs captures again."""
from __future__ import annotations

import pytest

import torch
from torch._dynamo.eval_frame import stats

from fake_libraries import fake_library

_LIBRARY = """
import dataclasses
import weakref

import torch


class Layer:
    def __init__(self, size, filled=True):
        self.keys = torch.zeros(size) if filled else None
        self.length = torch.zeros((), dtype=torch.int64)
        self.capacity = size
        self.ready = filled

    def update(self, values):
        self.keys.add_(values)
        self.length.add_(1)
        return self.keys


class Cache:
    def __init__(self, layers=2, size=4, filled=True):
        self.layers = [Layer(size, filled) for _ in range(layers)]
        self.name = "cache"

    def update(self, values, index):
        return self.layers[index].update(values)


class Params(dict):
    pass


class Memo:
    def __init__(self):
        self.table = {}
        self.last_shape = None

    def scale(self, x, n):
        self.last_shape = x.shape           # stored anew each call, equal
        if n not in self.table:             # filled on first use
            self.table[n] = float(n + 1)
        return x * self.table[n]


class Growing:
    def __init__(self, counted=False):
        self.keys = torch.zeros(2, 0)
        self.counted = counted
        self.calls = 0

    def update(self, new):
        self.keys = torch.cat([self.keys, new], dim=1)
        if self.counted:
            self.calls += 1
        return self.keys


@dataclasses.dataclass(frozen=True)
class FrozenGrowing:
    keys: torch.Tensor

    def update(self, new):
        object.__setattr__(self, "keys", torch.cat([self.keys, new], dim=1))
        return self.keys


class Recorded:
    def __init__(self):
        self.__dict__.update(keys=torch.zeros(2, 0), log=[])

    def __setattr__(self, name, value):          # a public assignment is recorded; update() bypasses it
        self.log.append(name)
        object.__setattr__(self, name, value)

    def update(self, new):
        self.__dict__["keys"] = torch.cat([self.keys, new], dim=1)
        return self.keys


class Lazy:
    reads = 0

    @property
    def keys(self):
        Lazy.reads += 1
        return torch.zeros(2, 0)


class Holder:
    def __init__(self, layer):
        self.layer = layer


SCALES = weakref.WeakKeyDictionary()


class Scaled:
    def __init__(self, scale):
        self.keys = torch.zeros(2)
        SCALES[self] = scale

    def scaled(self, x):
        return x * SCALES[self]
"""


@pytest.fixture
def library(tmp_path, monkeypatch):
    return fake_library(tmp_path, monkeypatch, "fake_library_cache", _LIBRARY)


def _step(x, cache):
    keys = cache.update(x * 2, 0)
    cache.update(x + 1, 1)
    return keys.sum(), cache


def test_a_new_library_object_of_the_same_structure_each_call_replays_updating_its_own_tensors(library):
    compiled = torch.compile(_step)
    for k in range(4):
        x = torch.full((4,), float(k))
        mine, theirs = library.Cache(), library.Cache()
        theirs.layers[1].keys.fill_(5.0)
        mine.layers[1].keys.fill_(5.0)
        got_sum, got_cache = compiled(x, mine)
        expected_sum, _ = _step(x, theirs)
        assert got_cache is mine
        assert torch.equal(got_sum, expected_sum)
        for a, b in zip(mine.layers, theirs.layers):
            assert torch.equal(a.keys, b.keys) and torch.equal(a.length, b.length)
    assert stats["captures"] == 1 and stats["replays"] == 3


def test_a_library_object_of_another_structure_captures_again_with_eagers_values(library):
    compiled = torch.compile(_step)
    x = torch.ones(4)
    compiled(x, library.Cache())
    for other in (library.Cache(layers=3), library.Cache(size=5), library.Cache()):
        if other.layers[0].capacity == 4 and len(other.layers) == 2:
            other.name = "renamed"          # a plain value differs
        expected = library.Cache(layers=len(other.layers), size=other.layers[0].capacity)
        got_sum, _ = compiled(torch.ones(other.layers[0].capacity), other)
        expected_sum, _ = _step(torch.ones(other.layers[0].capacity), expected)
        assert torch.equal(got_sum, expected_sum)
        assert torch.equal(other.layers[1].keys, expected.layers[1].keys)
    assert stats["captures"] == 4


def test_tensors_shared_inside_a_library_object_or_with_an_argument_replay_only_as_shared(library):
    def step(x, cache):
        cache.layers[0].keys.add_(x)
        cache.layers[1].keys.add_(x)
        return cache.layers[1].keys.sum()

    compiled = torch.compile(step)
    shared = library.Cache()
    shared.layers[1].keys = shared.layers[0].keys       # one tensor in two places: added to twice
    assert compiled(torch.ones(4), shared).item() == 8.0
    separate = library.Cache()
    assert compiled(torch.ones(4), separate).item() == 4.0      # two tensors: each added to once
    x = torch.ones(4)
    given = library.Cache()
    given.layers[0].keys = x            # the argument itself inside the cache
    expected_x = torch.ones(4)
    expected = library.Cache()
    expected.layers[0].keys = expected_x
    assert compiled(x, given).item() == step(expected_x, expected).item()
    assert torch.equal(x, expected_x)


def test_what_a_replay_would_hand_back_stale_from_a_library_object_is_a_graph_break(library):
    def inner(x, cache):
        cache.update(x, 0)
        return cache.layers[0]

    compiled = torch.compile(inner)
    for _ in range(2):
        cache = library.Cache()
        assert compiled(torch.ones(4), cache) is cache.layers[0]
    assert stats["graph_breaks"] >= 1

    class Holder:
        def __init__(self, cache):
            self.cache = cache

    def wrapped(x, cache):
        cache.update(x, 0)
        return Holder(cache)

    compiled = torch.compile(wrapped)
    for _ in range(2):
        cache = library.Cache()
        assert compiled(torch.ones(4), cache).cache is cache


def test_a_lazily_filled_library_object_runs_eagerly_then_replays_once_filled(library):
    def step(x, cache):
        layer = cache.layers[0]
        if not layer.ready:         # a lazy initialisation: a side effect, eager
            layer.keys, layer.ready = torch.zeros(4), True
        return layer.update(x).sum()

    compiled = torch.compile(step)
    for k in range(3):
        mine, theirs = library.Cache(filled=False), library.Cache(filled=False)
        for n in range(3):
            x = torch.full((4,), float(k + n))
            assert compiled(x, mine).item() == step(x, theirs).item()
            assert torch.equal(mine.layers[0].keys, theirs.layers[0].keys)
    # the empty cache's eager entry and the filled cache's graph serve every later cache
    assert stats["captures"] == 2


def _tiny_llama():
    """A one-layer transformers Llama in evaluation mode and a 6-token prompt for it."""
    transformers = pytest.importorskip("transformers")
    transformers.utils.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.LlamaConfig(num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                                      hidden_size=32, intermediate_size=64, vocab_size=60,
                                      max_position_embeddings=64)
    return transformers.LlamaForCausalLM(config).eval(), torch.randint(0, 60, (1, 6))


def test_generate_with_a_static_cache_made_per_call_replays_the_compiled_forward():
    model, prompt = _tiny_llama()
    with torch.no_grad():
        expected = model.generate(prompt, max_new_tokens=6, do_sample=False, cache_implementation="static")
        model.forward = torch.compile(model.forward)
        model.generate(prompt, max_new_tokens=6, do_sample=False, cache_implementation="static")
        captures = stats["captures"]
        got = model.generate(prompt, max_new_tokens=6, do_sample=False, cache_implementation="static")
    assert torch.equal(got, expected)
    assert stats["captures"] == captures        # a new StaticCache: nothing captured again


def test_a_library_objects_tensor_the_call_replaces_by_one_it_computes_is_replaced_again_by_each_replay(library):
    def step(x, growing):
        keys = growing.update(x * 2)
        return keys, keys.sum(dim=1)

    compiled = torch.compile(step)
    for round_ in range(2):
        mine, theirs = library.Growing(), library.Growing()
        for n in range(3):
            x = torch.full((2, 1), float(round_ + n))
            got_keys, got_sum = compiled(x, mine)
            expected_keys, expected_sum = step(x, theirs)
            assert got_keys is mine.keys            # the tensor it holds now, as eager returns it
            assert torch.equal(mine.keys, theirs.keys) and torch.equal(got_sum, expected_sum)
    # one capture per length of keys, each replayed on the second object
    assert stats["graph_breaks"] == 0 and stats["captures"] == 3 and stats["replays"] == 3


def test_a_library_objects_tensor_replaced_along_with_another_change_or_by_an_argument_is_a_side_effect(library):
    def step(x, growing):
        return growing.update(x).sum()

    def assign(x, growing):
        growing.keys = x
        return x.sum()

    for fn, counted in ((step, True), (assign, False)):
        torch.compiler.reset()
        compiled = torch.compile(fn)
        mine, theirs = library.Growing(counted), library.Growing(counted)
        for n in range(3):
            x = torch.full((2, 1), float(n))
            assert torch.equal(compiled(x, mine), fn(x, theirs))
            assert torch.equal(mine.keys, theirs.keys) and mine.calls == theirs.calls
        assert stats["graph_breaks"] >= 1


def test_a_replaced_tensor_is_replayed_only_where_assigning_it_is_storing_it(library):
    def step(x, growing):
        return growing.update(x).sum(dim=1)

    for make in (lambda: library.FrozenGrowing(torch.zeros(2, 0)), library.Recorded):
        torch.compiler.reset()
        compiled = torch.compile(step)
        for _ in range(2):
            mine, theirs = make(), make()
            for n in range(2):
                x = torch.full((2, 1), float(n + 1))
                assert torch.equal(compiled(x, mine), step(x, theirs))
                assert torch.equal(mine.keys, theirs.keys)
            assert getattr(mine, "log", None) == getattr(theirs, "log", None)
        # a class with its own __setattr__ (a frozen dataclass refuses it): the change stays a side effect, eager
        # at each of the two lengths
        assert stats["graph_breaks"] == 2 and stats["replays"] == 2


def test_the_guards_of_a_library_argument_run_none_of_its_code_when_its_structure_differs(library):
    def step(x, holder):
        return holder.layer.keys.sum() + x

    compiled = torch.compile(step)
    compiled(torch.ones(()), library.Holder(library.Growing()))
    reads = library.Lazy.reads
    holder = library.Holder(library.Lazy())       # keys a property where a tensor was
    assert torch.equal(compiled(torch.ones(()), holder), step(torch.ones(()), library.Holder(library.Lazy())))
    # read once by the capture of the new structure and once by eager: the guard read it never
    assert library.Lazy.reads == reads + 2


def test_a_change_deeper_inside_a_new_library_argument_than_its_snapshot_reaches_is_not_replayed_unseen(library):
    def step(x, holder):
        while not isinstance(holder, library.Growing):
            holder = holder.layer
        return holder.update(x).sum()

    def nested():
        value = library.Growing(counted=True)
        for _ in range(5):          # past what the call's snapshots reach: guarded by identity, not structure
            value = library.Holder(value)
        return value

    compiled = torch.compile(step)
    for n in range(3):
        mine, theirs = nested(), nested()
        x = torch.full((2, 1), float(n))
        assert torch.equal(compiled(x, mine), step(x, theirs))
        for _ in range(5):
            mine, theirs = mine.layer, theirs.layer
        assert mine.calls == theirs.calls == 1 and torch.equal(mine.keys, theirs.keys)


def test_generate_with_a_dynamic_cache_replays_each_step_and_updates_the_callers_cache():
    model, prompt = _tiny_llama()
    with torch.no_grad():
        expected = model.generate(prompt, max_new_tokens=5, do_sample=False)
        model.forward = torch.compile(model.forward)
        first = model.generate(prompt, max_new_tokens=5, do_sample=False)
        captures = stats["captures"]
        got = model.generate(prompt, max_new_tokens=5, do_sample=False)
    assert torch.equal(first, expected) and torch.equal(got, expected)
    # the prompt's call fills the new cache lazily (a side effect: eager); each decoding step is a graph
    assert stats["graph_breaks"] == 1
    assert stats["captures"] == captures        # the second generate: each step's length seen, replayed


_SETTINGS = """
class Settings:
    def __init__(self):
        self.scale = 2.0
        self.name = "settings"
"""


def test_a_library_objects_settings_read_by_a_module_are_guarded_by_value_at_each_call(tmp_path, monkeypatch):
    module = fake_library(tmp_path, monkeypatch, "fake_library_settings", _SETTINGS)

    class Scaled(torch.nn.Module):
        def __init__(self, settings):
            super().__init__()
            self.settings = settings

        def forward(self, x):
            return x * self.settings.scale

    settings = module.Settings()
    compiled = torch.compile(Scaled(settings))
    x = torch.ones(2)
    assert compiled(x).tolist() == [2.0, 2.0]
    settings.scale = float("2.0")           # an equal float, another object: replays
    assert compiled(x).tolist() == [2.0, 2.0] and stats["captures"] == 1
    settings.scale = 3.0
    assert compiled(x).tolist() == [3.0, 3.0] and stats["captures"] == 2
    settings.scale = -0.0
    assert compiled(torch.full((2,), -1.0)).tolist() == [0.0, 0.0]
    settings.scale = 0.0                    # equal to -0.0, not the same to a graph (x * -0.0 is -0.0)
    got = compiled(torch.full((2,), -1.0))
    assert [str(v) for v in got.tolist()] == ["-0.0", "-0.0"] and stats["captures"] == 4


def test_library_objects_sharing_a_tensor_or_an_object_between_arguments_replay_only_as_shared(library):
    def step(x, a, b):
        a.layers[0].keys.add_(x)
        b.layers[0].keys.add_(x)
        return a.layers[0].keys.sum()

    compiled = torch.compile(step)
    one = library.Cache()
    assert compiled(torch.ones(4), one, one).item() == 8.0          # one cache twice: added to twice
    fresh = library.Cache()
    assert compiled(torch.ones(4), fresh, one).item() == 4.0        # then a new one beside it: once each
    assert one.layers[0].keys.tolist() == [3.0] * 4
    other = library.Cache()
    assert compiled(torch.ones(4), library.Cache(), other).item() == 4.0
    assert other.layers[0].keys.tolist() == [1.0] * 4
    first, second = library.Cache(), library.Cache()
    second.layers[0] = first.layers[0]                               # two caches holding one layer
    assert compiled(torch.ones(4), first, second).item() == 8.0
    x = torch.ones(4)
    holding = library.Cache()
    holding.layers[0].keys = x                  # a tensor argument held in the cache: the same tensor each call
    assert compiled(x, holding, library.Cache()).item() == 8.0
    y = torch.ones(4)
    assert compiled(y, holding, library.Cache()).item() == 12.0 and x.tolist() == [3.0] * 4 and y.tolist() == [1.0] * 4


def test_what_a_library_object_keeps_where_its_structure_does_not_show_is_guarded_by_identity(library):
    def scaled(x, params):
        return x * params["scale"]

    compiled = torch.compile(scaled)
    for scale in (1.0, 2.0, 3.0):               # a dict subclass: its items are not attributes
        params = library.Params(scale=scale)
        assert compiled(torch.ones(2), params).tolist() == [scale, scale]

    def by_weak_key(x, holder):
        return holder.scaled(x)

    compiled = torch.compile(by_weak_key)
    for scale in (1.0, 2.0):                    # state kept elsewhere, keyed by the object (weakly)
        assert compiled(torch.ones(2), library.Scaled(scale)).tolist() == [scale, scale]


def test_a_library_objects_containers_returned_and_its_tensors_attributes_are_the_callers_own(library):
    def containers(x, cache):
        cache.update(x, 0)
        return cache.layers

    compiled = torch.compile(containers)
    for _ in range(3):
        cache = library.Cache()
        assert compiled(torch.ones(4), cache) is cache.layers

    def tagged(x, cache):
        keys = cache.update(x, 0)
        return keys.sum() * 2 if getattr(keys, "flag", False) else keys.sum()

    compiled = torch.compile(tagged)
    for flag in (False, True, False, True):
        cache = library.Cache()
        cache.layers[0].keys.flag = flag
        assert compiled(torch.ones(4), cache).item() == (8.0 if flag else 4.0)

    def sets(x, cache):
        keys = cache.update(x, 0)
        keys.tag = "seen"
        return keys.sum()

    compiled = torch.compile(sets)
    for _ in range(3):
        cache = library.Cache()
        compiled(torch.ones(4), cache)
        assert cache.layers[0].keys.tag == "seen"


def test_a_library_objects_dict_keys_are_compared_with_their_types(library):
    def pick(x, cache):
        return x * cache.table[1] if 1 in cache.table and type(next(iter(cache.table))) is int else x

    compiled = torch.compile(pick)
    for key in (1, True, 1):
        cache = library.Cache()
        cache.table = {key: 3.0}
        assert compiled(torch.ones(2), cache).tolist() == pick(torch.ones(2), cache).tolist()


def test_a_library_object_a_module_holds_filled_once_is_captured_again_filled_then_replayed(library):
    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.memo = library.Memo()

        def forward(self, x):
            return self.memo.scale(x, 2)

    model = Scaled()
    compiled = torch.compile(model)
    for _ in range(5):
        assert compiled(torch.ones(2)).tolist() == [3.0, 3.0]
    assert model.memo.last_shape == (2,) and model.memo.table == {2: 3.0}
    assert stats["graph_breaks"] == 1 and stats["captures"] == 2 and stats["replays"] == 3


def test_what_a_library_object_a_module_holds_changes_between_calls_unread_captures_nothing_again(library):
    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.cache = library.Cache()

        def forward(self, x):
            return x * self.cache.layers[0].capacity

    model = Scaled()
    compiled = torch.compile(model)
    for k in range(5):
        model.cache.history = list(range(k))            # set between calls, never read by the call
        model.cache.layers[1].keys = torch.full((4,), float(k))
        assert compiled(torch.ones(2)).tolist() == [4.0, 4.0]
    assert stats["captures"] == 1 and stats["replays"] == 4
