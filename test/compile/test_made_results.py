"""A compiled call that returns an object it made (one pytree does not flatten: a plain class, a cache holding the
tensors it computed, a set) hands each caller a new one holding that call's tensors, as eager does, while the
objects that existed before the call stay themselves (torch/_dynamo/made_results.py); an argument object of a
library's class the call changes is a side effect (a graph break), never a stale replay."""
from __future__ import annotations

import pytest

import torch
from torch._dynamo.eval_frame import stats


class Config:
    def __init__(self):
        self.scale = 3


CONFIG = Config()


class Layer:
    def __init__(self, keys, config):
        self.keys, self.config, self.notes = keys, config, ["made"]


class Cache:
    __slots__ = ("layers", "seen")

    def __init__(self, layers):
        self.layers, self.seen = layers, len(layers)


def _cached(x):
    return Cache([Layer(x * (i + 1), CONFIG) for i in range(2)])


def test_a_made_object_holding_tensors_is_made_again_by_each_replay_with_its_tensors():
    compiled = torch.compile(_cached)
    results = []
    for k in range(3):
        x = torch.full((2,), float(k))
        got = compiled(x)
        assert type(got) is Cache and got.seen == 2
        for i, layer in enumerate(got.layers):
            assert torch.equal(layer.keys, x * (i + 1)) and layer.notes == ["made"]
        results.append(got)
    assert stats["captures"] == 1 and stats["replays"] == 2 and stats["graph_breaks"] == 0
    # each call's objects are its own; the config that existed before the call is the same object
    layers = [r.layers[0] for r in results]
    assert len({id(r) for r in results}) == 3 and len({id(layer) for layer in layers}) == 3
    assert len({id(layer.notes) for layer in layers}) == 3
    assert all(layer.config is CONFIG for r in results for layer in r.layers)
    results[1].layers[0].notes.append("changed by the caller")
    assert compiled(torch.ones(2)).layers[0].notes == ["made"]


def test_a_made_set_or_object_without_tensors_is_new_at_each_call():
    compiled = torch.compile(lambda x: (x + 1, {1, 2}, Config()))
    first, second = compiled(torch.ones(1)), compiled(torch.zeros(1))
    assert first[1] == second[1] == {1, 2} and first[1] is not second[1]
    assert first[2] is not second[2] and second[2].scale == 3 and torch.equal(second[0], torch.ones(1))
    assert stats["graph_breaks"] == 0 and stats["replays"] == 1


class _OwnCopy:
    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return _OwnCopy(self.value.clone())


def test_a_made_object_with_its_own_copy_protocol_is_a_graph_break_with_the_right_values():
    from torch._dynamo.utils import counters
    counters.clear()
    compiled = torch.compile(lambda x: _OwnCopy(x * 2))
    for k in range(3):
        x = torch.full((2,), float(k))
        assert torch.equal(compiled(x).value, x * 2)
    assert [reason for reason in counters["graph_break"] if "_OwnCopy the call made" in reason]
    assert stats["graph_breaks"] == 1           # the calls after it run eagerly


def test_a_closure_over_tensors_the_call_made_is_still_a_graph_break():
    compiled = torch.compile(lambda x: (lambda: x * 2))
    for k in range(2):
        x = torch.full((2,), float(k))
        assert torch.equal(compiled(x)(), x * 2)
    assert stats["graph_breaks"] == 1


def test_an_argument_of_a_librarys_class_that_the_call_updates_is_a_side_effect_not_a_stale_replay():
    cache_utils = pytest.importorskip("transformers.cache_utils")

    def step(k, cache):
        keys, _ = cache.update(k, k, layer_idx=0)
        return keys.sum()

    compiled = torch.compile(step)
    eager_cache, compiled_cache = cache_utils.DynamicCache(), cache_utils.DynamicCache()
    for n in range(4):
        k = torch.full((1, 1, 1, 2), float(n + 1))
        assert compiled(k, compiled_cache).item() == step(k, eager_cache).item()
        assert compiled_cache.layers[0].keys.shape == eager_cache.layers[0].keys.shape
    assert stats["graph_breaks"] >= 1


def test_a_transformers_model_compiled_for_inference_returns_fresh_caches_and_decodes_as_eager():
    transformers = pytest.importorskip("transformers")
    transformers.utils.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=50, n_positions=32)
    model = transformers.GPT2LMHeadModel(config).eval()
    compiled = torch.compile(model)
    outputs = []
    with torch.no_grad():
        for _ in range(3):
            x = torch.randint(0, 50, (2, 8))
            got, expected = compiled(x), model(x)
            torch.testing.assert_close(got.logits, expected.logits, rtol=1e-5, atol=1e-6)
            for mine, theirs in zip(got.past_key_values.layers, expected.past_key_values.layers):
                torch.testing.assert_close(mine.keys, theirs.keys, rtol=1e-5, atol=1e-6)
            outputs.append(got)
        assert stats["captures"] == 1 and stats["replays"] == 2
        assert outputs[1].past_key_values is not outputs[2].past_key_values
        # decoding on with the cache the compiled call handed back: eager's logits at every step
        got, expected = outputs[2], model(x)
        for _ in range(3):
            token = expected.logits[:, -1].argmax(-1, keepdim=True)
            got = compiled(token, past_key_values=got.past_key_values)
            expected = model(token, past_key_values=expected.past_key_values)
            torch.testing.assert_close(got.logits, expected.logits, rtol=1e-5, atol=1e-6)


class Box:
    def __init__(self, value=None):
        self.value = value


class _Private:
    __slots__ = ("__hidden",)

    def __init__(self, value):
        self.__hidden = value

    def hidden(self):
        return self.__hidden


class _Tagged(int):
    pass


def _replays_as_eager(fn, check, calls=3):
    """fn compiled and eager side by side over calls with new inputs: check(eager's result, the compiled one's, x)."""
    compiled = torch.compile(fn)
    for k in range(calls):
        x = torch.full((2,), float(k))
        check(fn(x), compiled(x), x)


def test_what_a_made_object_holds_is_this_calls_own_or_a_graph_break():
    def same_value(eager, got, x):
        assert torch.equal(got, eager)

    def method(x):              # a bound method of an object the call made: bound to this replay's copy
        inner = _Private(x + 1)
        return Box(inner.hidden)
    _replays_as_eager(method, lambda e, g, x: same_value(e.value(), g.value(), x))

    # a function the call made holding a tensor (a default, an attribute), a class it defined, an int subclass
    # carrying a tensor: graph breaks, with eager's values
    def function_default(x):
        t = x + 1
        return Box(lambda y, t=t: y + t)
    _replays_as_eager(function_default, lambda e, g, x: same_value(e.value(0), g.value(0), x))

    def local_class(x):
        t = x + 1

        class Local:
            value = t
        return Local()
    _replays_as_eager(local_class, lambda e, g, x: same_value(e.value, g.value, x))

    def tagged_int(x):
        n = _Tagged(3)
        n.t = x + 1
        return Box(n)
    _replays_as_eager(tagged_int, lambda e, g, x: same_value(e.value.t, g.value.t, x))
    assert stats["graph_breaks"] == 3


def test_a_made_object_keeps_eagers_identities_slots_and_tensor_state():
    def twice(x):
        box = Box(Box(x + 1))
        return box, box, box.value

    def check_twice(eager, got, x):
        assert got[0] is got[1] and got[0].value is got[2] and torch.equal(got[2].value, x + 1)
    def check_private(eager, got, x):
        assert torch.equal(got.value.hidden(), x * 3)

    def tensor_attribute(x):
        t = x + 1
        t.note = "set in the call"
        return Box(t)

    def check_note(eager, got, x):      # a replay would not set it: a graph break
        assert got.value.note == "set in the call" and torch.equal(got.value, x + 1)

    _replays_as_eager(twice, check_twice)
    _replays_as_eager(lambda x: Box(_Private(x * 3)), check_private)
    _replays_as_eager(tensor_attribute, check_note)
    assert stats["graph_breaks"] == 1


def test_a_made_object_holding_an_argument_container_is_a_graph_break():
    compiled = torch.compile(lambda pair: Box(pair))
    for k in range(3):
        pair = (torch.full((2,), float(k)), torch.ones(1))
        got = compiled(pair)
        assert got.value is pair
    assert stats["graph_breaks"] == 1


def test_a_made_object_a_module_keeps_and_returns_is_one_object_made_again_each_replay():
    class Keeper(torch.nn.Module):
        def forward(self, x):
            self.state = Box(x + 1)
            return self.state

    model = Keeper()
    compiled = torch.compile(model)
    for k in range(3):
        x = torch.full((2,), float(k))
        got = compiled(x)
        assert model.state is got and torch.equal(got.value, x + 1)
    assert stats["replays"] == 2 and stats["graph_breaks"] == 0


def test_a_library_object_nested_in_an_argument_dict_that_the_call_updates_is_a_side_effect():
    cache_utils = pytest.importorskip("transformers.cache_utils")

    def step(k, state):
        keys, _ = state["cache"].update(k, k, layer_idx=0)
        return keys.sum()

    compiled = torch.compile(step)
    eager_state, compiled_state = {"cache": cache_utils.DynamicCache()}, {"cache": cache_utils.DynamicCache()}
    for n in range(3):
        k = torch.full((1, 1, 1, 2), float(n + 1))
        assert compiled(k, compiled_state).item() == step(k, eager_state).item()
    assert stats["graph_breaks"] >= 1


def test_a_list_a_module_keeps_and_a_made_object_holds_is_one_list_at_each_replay():
    class Recurrent(torch.nn.Module):
        def forward(self, x):
            self.hc = [x + 1, x * 3]
            return Box(self.hc)

    model = Recurrent()
    compiled = torch.compile(model)
    for k in range(3):
        x = torch.full((2,), float(k))
        got = compiled(x)
        assert got.value is model.hc and torch.equal(got.value[1], x * 3)
    assert stats["replays"] == 2


def test_a_result_list_or_dict_key_shared_with_what_the_call_made_is_a_graph_break_keeping_identity():
    def shared(x):
        pair = [x + 1, x * 2]
        return pair, Box(pair)

    def keyed(x):
        return {Box(x + 1): x * 2}

    for fn in (shared, keyed):
        compiled = torch.compile(fn)
        for k in range(3):
            x = torch.full((2,), float(k))
            got = compiled(x)
            if fn is shared:
                assert got[0] is got[1].value and torch.equal(got[0][1], x * 2)
            else:
                (key, value), = got.items()
                assert torch.equal(key.value, x + 1) and torch.equal(value, x * 2)
    assert stats["graph_breaks"] == 2


def test_a_librarys_object_a_module_holds_that_the_call_updates_is_a_side_effect_not_a_stale_replay():
    cache_utils = pytest.importorskip("transformers.cache_utils")

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.cache = cache_utils.DynamicCache()

        def forward(self, k):
            keys, _ = self.cache.update(k, k, layer_idx=0)
            return keys.sum()

    eager, compiled_model = Decoder(), Decoder()
    compiled = torch.compile(compiled_model)
    for n in range(4):
        k = torch.full((1, 1, 1, 2), float(n + 1))
        assert compiled(k).item() == eager(k).item()
        assert compiled_model.cache.layers[0].keys.shape == eager.cache.layers[0].keys.shape
    assert stats["graph_breaks"] >= 1
