"""What a compiled function reads of the process, its generators, the operating system and its objects' identities,
and a tensor's memory swapped through .data: each call sees it as the eager function would (a replay would repeat
the value the capture read, or skip the swap, so each is a graph break, as PyTorch's Dynamo breaks on them)."""
import os
import threading

import pytest

import torch


def _calls(fn, changes):
    """fn's results, compiled and eager, around each change of the state it reads."""
    compiled = torch.compile(fn)
    got, want = [], []
    for change in changes:
        change()
        got.append(compiled(torch.zeros(1)))
        want.append(fn(torch.zeros(1)))
    return got, want


def _same(got, want):
    for g, w in zip(got, want):
        if isinstance(w, torch.Tensor):
            torch.testing.assert_close(g, w, rtol=0, atol=0)
        else:
            assert g == w


def test_the_generators_state_read_inside_is_read_at_each_call():
    gen = torch.Generator().manual_seed(0)
    seeds = iter(range(10, 20))

    def through_torch(x):
        return x + torch.get_rng_state()[:8].sum() + torch.initial_seed()

    def through_a_generator(x):
        return x + gen.get_state()[:8].sum() + gen.initial_seed()

    _same(*_calls(through_torch, [lambda: torch.manual_seed(next(seeds)) for _ in range(3)]))
    _same(*_calls(through_a_generator, [lambda: gen.manual_seed(next(seeds)) for _ in range(3)]))


def test_a_generator_seeded_inside_through_its_own_method_is_seeded_at_each_call():
    gen = torch.Generator()

    def reseeded(x):
        gen.manual_seed(3)
        return x + torch.rand(2, generator=gen)

    compiled = torch.compile(reseeded)
    first = compiled(torch.zeros(1))
    torch.rand(5, generator=gen)
    torch.testing.assert_close(compiled(torch.zeros(1)), first, rtol=0, atol=0)


def test_the_thread_count_read_inside_is_read_at_each_call():
    threads = torch.get_num_threads()
    try:
        _same(*_calls(lambda x: x + torch.get_num_threads(),
                      [lambda n=n: torch.set_num_threads(n) for n in (1, 2, 1)]))
    finally:
        torch.set_num_threads(threads)


def test_what_the_operating_system_says_is_read_at_each_call(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = iter(range(10))

    def files(x):
        return x + len(os.listdir(tmp_path)) + os.path.exists(tmp_path / "0") + len(os.getcwd()) + os.getpid() % 7

    def another_file():
        (tmp_path / str(next(made))).write_text("")

    _same(*_calls(files, [another_file, another_file, lambda: os.chdir(tmp_path / ".."), another_file]))


def test_the_current_thread_and_an_objects_identity_are_read_at_each_call():
    def thread_of(x):
        return x + (threading.current_thread() is threading.main_thread())

    compiled = torch.compile(thread_of)
    assert compiled(torch.zeros(1)).item() == 1.0
    seen = []
    worker = threading.Thread(target=lambda: seen.append(compiled(torch.zeros(1)).item()))
    worker.start()
    worker.join()
    assert seen == [0.0]

    cache = {}

    def memo(x):
        if id(x) in cache:
            return cache[id(x)]
        cache[id(x)] = x * 100
        return x * 100

    compiled = torch.compile(memo)
    x = torch.ones(1)
    compiled(x)
    x.fill_(-1.0)
    assert compiled(x).item() == 100.0          # the cached tensor, as eager hands back
    assert compiled(torch.ones(1)).item() == 100.0


@pytest.mark.parametrize("where", ["argument", "parameter"])
def test_a_tensors_memory_swapped_through_data_inside_is_swapped_at_each_call(where):
    if where == "argument":
        def swap(x, y):
            x.data = y * 2
            return x + 1

        compiled = torch.compile(swap)
        x = torch.zeros(2)
        for k in range(3):
            assert compiled(x, torch.full((2,), float(k))).tolist() == [2.0 * k + 1] * 2
            assert x.tolist() == [2.0 * k] * 2
    else:
        layer = torch.nn.Linear(2, 2, bias=False)
        torch.nn.init.constant_(layer.weight, 4.0)

        def halve(x):
            layer.weight.data = layer.weight.data * 0.5
            return layer(x)

        compiled = torch.compile(halve)
        for expected in (2.0, 1.0, 0.5):
            assert compiled(torch.ones(1, 2)).tolist() == [[2 * expected] * 2]
            assert layer.weight[0, 0].item() == expected


@pytest.mark.parametrize("kind", ["file", "in memory"])
def test_a_counter_kept_in_the_programs_own_module_counts_at_each_call(tmp_path, monkeypatch, kind):
    import importlib
    import sys
    import types

    if kind == "file":
        (tmp_path / "counted_config.py").write_text("step = 0\nscale = 1\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        config = importlib.import_module("counted_config")
    else:
        config = types.ModuleType("counted_config")
        config.step, config.scale = 0, 1
    monkeypatch.setitem(sys.modules, "counted_config", config)

    def step(x):
        config.step += 1
        return x * config.scale

    compiled = torch.compile(step)
    for k in range(1, 5):
        compiled(torch.ones(1))
        assert config.step == k


def test_what_a_partial_binds_by_keyword_is_read_and_changed_at_each_call():
    import functools

    from torch._dynamo.eval_frame import stats

    def scaled(x, cfg, log):
        log.append(1)
        return x * cfg["scale"]

    def reads(x, cfg):
        return x * cfg["scale"]

    cfg, log = {"scale": 1.0}, []
    compiled = torch.compile(functools.partial(scaled, cfg=cfg, log=log))
    bound = functools.partial(reads, cfg=cfg)
    through_a_global = torch.compile(lambda x: bound(x) + 1)
    for k in range(1, 4):
        assert compiled(torch.ones(1)).item() == k and len(log) == k
        assert through_a_global(torch.ones(1)).item() == k + 1
        cfg["scale"] += 1

    def logged(scale, log, x):
        log.append(1)
        return x * scale[0]

    scale, log = [2.0], []          # lists of numbers, bound by position: they can change too
    positional = torch.compile(functools.partial(logged, scale, log))
    for k in range(1, 4):
        assert positional(torch.ones(1)).item() == scale[0] and len(log) == k
        scale[0] += 1

    unchanged = torch.compile(functools.partial(reads, cfg={"scale": 2.0}))
    captures = stats["captures"]
    for _ in range(3):
        assert unchanged(torch.ones(1)).item() == 2.0
    assert stats["captures"] - captures == 1


def test_what_a_partial_passed_as_an_argument_binds_is_guarded():
    import functools

    def scale(x, k):
        return x * (k[0] if isinstance(k, list) else k)

    def applies(x, op):
        return op(x) + 1

    compiled, x = torch.compile(applies), torch.ones(2)
    bound, numbers = functools.partial(scale, k=2.0), [3.0]
    by_list = functools.partial(scale, k=numbers)
    for change in (lambda: None, lambda: bound.keywords.update(k=5.0), lambda: numbers.__setitem__(0, 4.0)):
        change()
        for op in (bound, by_list):
            torch.testing.assert_close(compiled(x, op), applies(x, op))


class _Bound:
    def __init__(self, k):
        self.k = k

    def times(self, x):
        return x * self.k


_BOUND = _Bound(2.0)
_BOUND_METHOD = _BOUND.times


def test_functions_in_an_argument_container_and_the_object_of_a_bound_method_are_guarded():
    import functools

    def applies_first(x, ops):
        return ops[0](x) + 1

    def through_a_global(x):
        return _BOUND_METHOD(x) + 1

    box, x = [2.0], torch.ones(2)

    def boxed(x):
        return x * box[0]

    owner = _Bound(2.0)
    compiled, global_compiled = torch.compile(applies_first), torch.compile(through_a_global)
    containers = [[functools.partial(_Bound.times, _Bound(3.0))], (boxed,), [functools.partial(owner.times)]]
    changes = [lambda: containers[0][0].args[0].__setattr__("k", 7.0), lambda: box.__setitem__(0, 9.0),
               lambda: setattr(owner, "k", 8.0), lambda: setattr(_BOUND, "k", 5.0)]
    try:
        for change in [lambda: None, *changes]:
            change()
            for ops in containers:
                torch.testing.assert_close(compiled(x, ops), applies_first(x, ops))
            torch.testing.assert_close(global_compiled(x), through_a_global(x))
    finally:
        _BOUND.k = 2.0


class _Counted:
    def __init__(self):
        self.reads, self._scale = 0, 2.0

    @property
    def scale(self):
        self.reads += 1
        return self._scale


class _Derived:
    def __init__(self):
        self._scale, self.step, self._inner = 2.0, 0, _Counted()

    @property
    def scale(self):
        return self._scale * 2

    @property
    def inner(self):
        return self._inner


COUNTED, DERIVED = _Counted(), _Derived()


def test_a_property_read_through_a_global_runs_its_getter_once_per_call_and_replays_while_its_object_holds():
    from torch._dynamo.eval_frame import stats

    counted = torch.compile(lambda x: x * COUNTED.scale)
    for k in range(1, 5):
        assert counted(torch.ones(1)).item() == COUNTED._scale
        assert COUNTED.reads == k           # eager's count: the guards do not run the getter
        if k == 2:
            COUNTED._scale = 5.0
    derived = torch.compile(lambda x: x * DERIVED.scale)
    captures = stats["captures"]
    for _ in range(3):
        assert derived(torch.ones(1)).item() == 4.0
        DERIVED.step += 1                   # an attribute the getter does not read: still replayed
    assert stats["captures"] - captures == 1
    DERIVED._scale = 3.0
    assert derived(torch.ones(1)).item() == 6.0
    through = torch.compile(lambda x: x * DERIVED.inner._scale)
    for value in (2.0, 7.0):
        DERIVED._inner._scale = value
        assert through(torch.ones(1)).item() == value


def test_a_capture_keeps_the_garbage_collector_collecting_and_a_programs_own_switch():
    import gc
    import weakref

    class Cycle:
        def __init__(self):
            self.me = self

    def f(x, switch_off):
        seen = weakref.ref(Cycle())         # cyclic garbage made inside the call is still collected there
        gc.collect()
        if switch_off:
            gc.disable()
        return x * 2, gc.isenabled(), seen() is None

    try:
        _, enabled, collected = torch.compile(f)(torch.ones(1), False)
        assert enabled and collected and gc.isenabled()
        torch.compile(f)(torch.ones(1), True)
        assert not gc.isenabled()
    finally:
        gc.enable()
