"""Sizes that vary: dynamic=True, mark_dynamic, and PyTorch's automatic dynamic shapes (a second call that
differs only in sizes). Each new size is captured once (its Python runs again), the captures count as one
entry against the recompile limit, and the inductor's kernels are generic in sizes: compiled once, their
element-wise results the specialised kernels' bits (a row's sums may add in another order: gcc vectorises a
loop of unknown length otherwise than one of a known, short length)."""
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
import torch._dynamo
import torch.nn.functional as F
from torch._dynamo import config as dynamo_config
from torch._dynamo import eval_frame
from torch._inductor import codecache

from strided_operands import strided_pair


def rows_and_sums(x, w):
    """A softmax and a layer norm over rows, a sum over the outer dim and one over the inner dim."""
    y = torch.softmax(x * 2 + 1, dim=-1)
    z = F.layer_norm(x, (x.shape[-1],), w, None)
    return y.sum(0) + z.mean(0), (x.exp() - 1).sum(1)


def entries(compiled):
    return compiled._ember_compiled.entries


def test_dynamic_true_captures_each_new_size_once_and_compiles_its_kernels_once():
    compiled = torch.compile(rows_and_sums, dynamic=True)
    built = codecache.builds["count"]
    for n, m in [(3, 5), (4, 7), (6, 5), (17, 33), (2, 9), (70, 300)]:
        x, w = torch.randn(n, m), torch.randn(m)
        compiled(x, w)
        replays = eval_frame.stats["replays"]
        got, want = compiled(x, w), rows_and_sums(x, w)
        assert eval_frame.stats["replays"] == replays + 1
        for g, e in zip(got, want):
            torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)
    assert codecache.builds["count"] <= built + 1         # the first size's library serves every other size
    assert eval_frame.stats["recompiles"] == 0
    assert compiled._ember_compiled._counted() == 1
    source = entries(compiled)[0].compiled._inductor_source
    assert "n[0]" in source and "[70, 300]" not in source


def test_a_second_size_is_one_recompile_then_sizes_vary_without_recompiling():
    compiled = torch.compile(lambda x: (x * 3).tanh() + 1)
    for size in range(4, 16):           # more sizes than the recompile limit, each served again
        x = torch.randn(size, 3)
        compiled(x)
        with dynamo_config.patch(error_on_recompile=size > 5):
            torch.testing.assert_close(compiled(x), (x * 3).tanh() + 1)
    assert eval_frame.stats["recompiles"] == 1
    assert eval_frame.stats["captures"] == 12
    assert [e.family is None for e in entries(compiled)].count(True) == 1      # the first, specialised capture


def test_dynamic_false_specialises_every_size_until_the_limit_then_runs_eagerly(caplog):
    compiled = torch.compile(lambda x: x.sin() * 2, dynamic=False)
    with caplog.at_level(logging.WARNING, logger="torch._dynamo"):
        for size in range(1, dynamo_config.recompile_limit + 3):
            x = torch.randn(size)
            torch.testing.assert_close(compiled(x), x.sin() * 2)
    assert len(entries(compiled)) == dynamo_config.recompile_limit
    assert all(e.family is None for e in entries(compiled))
    assert "recompile_limit" in caplog.text


@pytest.mark.parametrize("dynamic", [None, False])
def test_mark_dynamic_makes_the_first_capture_generic(dynamic):
    x = torch.randn(8, 6)
    torch._dynamo.mark_dynamic(x, 0)
    compiled = torch.compile(lambda x: (x + 1).relu() * x, dynamic=dynamic)
    compiled(x)
    assert entries(compiled)[0].family is not None
    assert "n[" in entries(compiled)[0].compiled._inductor_source


def test_an_integer_argument_that_changes_is_a_recompile_not_a_size():
    # its value is in the kernel's formula: generic kernels would not be shared
    compiled = torch.compile(lambda x, k: (x * k).exp().sum(0))
    x = torch.randn(5, 4)
    for k in range(1, 4):
        compiled(x, k)
        torch.testing.assert_close(compiled(x, k), (x * k).exp().sum(0))
    assert eval_frame.stats["recompiles"] == 2
    assert all(e.family is None for e in entries(compiled))


def test_another_dtype_under_dynamic_is_an_entry_of_its_own():
    compiled = torch.compile(lambda x: x * 2 + 1, dynamic=True)
    compiled(torch.ones(3))
    compiled(torch.ones(4))
    compiled(torch.ones(3, dtype=torch.float64))
    families = {e.family for e in entries(compiled)}
    assert len(families) == 2 and compiled._ember_compiled._counted() == 2


def test_new_sizes_are_captured_while_the_sizes_are_served_again(caplog):
    compiled = torch.compile(lambda x: x.cos() + x, dynamic=True)
    limit = dynamo_config.recompile_limit
    with caplog.at_level(logging.WARNING, logger="torch._dynamo"):
        for size in range(2, 2 + limit + 3):           # each size once: past the limit, eager
            x = torch.randn(size)
            torch.testing.assert_close(compiled(x), x.cos() + x)
    assert len(entries(compiled)) == limit and "run eagerly from now on" in caplog.text
    for size in range(2, 2 + limit):                   # the captured sizes served again...
        compiled(torch.randn(size))
    compiled(torch.randn(100))                         # ...earn a capture of one more
    assert len(entries(compiled)) == limit + 1
    with dynamo_config.patch(dynamic_size_captures=limit + 1):
        compiled(torch.randn(101))
    assert len(entries(compiled)) == limit + 1         # never past dynamic_size_captures


def test_a_new_size_is_logged_under_the_dynamic_artifact(capsys, monkeypatch):
    monkeypatch.setenv("TORCH_LOGS", "dynamic,recompiles")
    compiled = torch.compile(lambda x: x * 2)
    for size in (2, 3, 4):
        compiled(torch.ones(size))
    err = capsys.readouterr().err
    assert err.count("[__recompiles]") >= 1 and "size mismatch at index 0" in err
    assert "at new sizes" in err


def test_training_at_batch_sizes_that_vary_matches_eagers_gradients():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.GELU(approximate="tanh"), torch.nn.LayerNorm(16),
                                torch.nn.Linear(16, 3))
    compiled = torch.compile(model, dynamic=True)
    for batch in (4, 9, 4, 13):
        x = torch.randn(batch, 6)
        model.zero_grad()
        compiled(x).softmax(-1).sum(0)[0].backward()
        got = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        model(x).softmax(-1).sum(0)[0].backward()
        for g, e in zip(got, (p.grad for p in model.parameters())):
            torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-6)
    assert all(e.family is not None for e in compiled._compiled.entries)


def test_a_cache_entry_holds_neither_the_capturing_calls_inputs_nor_its_result():
    import gc
    import weakref
    compiled = torch.compile(lambda x: (x * 2).sin())
    x = torch.randn(50)
    result = compiled(x)
    inputs, out = weakref.ref(x), weakref.ref(result)
    del x, result
    gc.collect()
    assert inputs() is None and out() is None

shapes = st.lists(st.integers(2, 6), min_size=1, max_size=4)


@settings(max_examples=30, deadline=None)
@given(shape=shapes, drop=st.lists(st.booleans(), min_size=4, max_size=4), transpose=st.booleans(),
       seed=st.integers(0, 2**16))
def test_generic_kernels_give_the_specialised_kernels_values(shape, drop, transpose, seed):
    a, b, _ = strided_pair(shape, drop, transpose, seed)

    def f(a, b):
        y = torch.where(a > b, a * 2, b.exp()) + 1
        return y, y.sum(0), y.softmax(-1), y.mean(-1, keepdim=True)

    torch._dynamo.reset()
    static = torch.compile(f, dynamic=False)
    generic = torch.compile(f, dynamic=True)
    static(a, b)
    generic(a, b)
    specialised, got, want = static(a, b), generic(a, b), f(a, b)
    assert torch.equal(specialised[0], got[0])                      # element-wise: the same bits
    for s, g, e in zip(specialised, got, want):
        torch.testing.assert_close(g, s, rtol=1e-6, atol=1e-7)
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-6)
        assert g.stride() == e.stride()


def test_sizes_that_reach_the_kernels_code_count_against_the_recompile_limit(caplog):
    # x.shape[0] is a number in the formula: each size builds a library of its own
    compiled = torch.compile(lambda x: (x * x.shape[0]).exp(), dynamic=True)
    with caplog.at_level(logging.WARNING, logger="torch._dynamo"):
        for size in range(2, 2 + dynamo_config.recompile_limit + 3):
            x = torch.randn(size)
            compiled(x)                 # each size served again: the family would go on capturing
            torch.testing.assert_close(compiled(x), (x * size).exp())
    assert compiled._ember_compiled._counted() == dynamo_config.recompile_limit
    assert "hit config.recompile_limit" in caplog.text
