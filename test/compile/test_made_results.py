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
