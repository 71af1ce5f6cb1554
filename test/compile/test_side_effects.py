"""What a compiled call reads or changes in Python outside its graph: globals its helpers read are guarded, and a
change to a list, dict, object, global or closure variable (a side effect a replay would not redo) is a graph break,
so every call gives what the eager call gives. (Each case was a silent difference before.)"""
import collections
import logging
import sys
import types

import numpy as np
import pytest

import torch
import torch.nn as nn
from torch._dynamo.eval_frame import stats

FACTOR = 2.0
HISTORY: list = []
SEEN: dict = {}
SETTINGS = types.SimpleNamespace(scale=2.0)
log = logging.getLogger("test_side_effects")


class Config:
    def __init__(self, scale):
        self.scale = scale


CONFIG = Config(2.0)


def scaled(x):
    return x * FACTOR


def act(x):
    return torch.relu(x)


def test_a_global_a_helper_reads_is_guarded():
    global FACTOR
    compiled = torch.compile(lambda x: scaled(x) + 1, backend="eager")
    x = torch.ones(2)
    try:
        compiled(x)
        FACTOR = 3.0
        assert compiled(x).tolist() == [4.0, 4.0]
    finally:
        FACTOR = 2.0


def test_a_helper_function_swapped_in_a_global_is_guarded():
    global act
    original = act
    compiled = torch.compile(lambda x: act(x) * 2, backend="eager")
    x = torch.tensor([-1.0, 1.0])
    try:
        compiled(x)
        act = torch.abs
        assert compiled(x).tolist() == [2.0, 2.0]
    finally:
        act = original


def test_the_attributes_of_objects_read_through_globals_and_module_attributes_are_guarded():
    def helper(x):
        return x * CONFIG.scale + SETTINGS.scale

    compiled = torch.compile(helper, backend="eager")
    x = torch.ones(1)
    compiled(x)
    CONFIG.scale, SETTINGS.scale = 5.0, 1.0
    try:
        assert compiled(x).tolist() == [6.0]
    finally:
        CONFIG.scale, SETTINGS.scale = 2.0, 2.0

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.config = Config(2.0)

        def forward(self, x):
            return x * self.config.scale

    model = Scaled()
    compiled_model = torch.compile(model, backend="eager")
    compiled_model(x)
    model.config.scale = 7.0
    assert compiled_model(x).tolist() == [7.0]


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_appending_to_a_global_list_is_a_graph_break_so_every_call_appends(backend):
    def f(x):
        y = x * 2
        HISTORY.append(y)
        return y

    HISTORY.clear()
    compiled = torch.compile(f, backend=backend)
    breaks = stats["graph_breaks"]
    for _ in range(4):
        compiled(torch.ones(2))
    # captured twice (the second time, the side effect came again with what it changed), then eager
    assert len(HISTORY) == 4 and stats["graph_breaks"] == breaks + 2


def test_a_side_effect_done_once_lazy_init_then_replays_as_a_graph():
    cache = {}

    def f(x):
        if "w" not in cache:
            cache["w"] = torch.full((2,), 3.0)
        return x * cache["w"]

    compiled = torch.compile(f, backend="eager")
    captures, replays = stats["captures"], stats["replays"]
    for _ in range(4):
        assert compiled(torch.ones(2)).tolist() == [3.0, 3.0]
    assert stats["captures"] == captures + 2 and stats["replays"] == replays + 2
    cache["w"] = torch.full((2,), 5.0)          # what the graph read, changed: captured again
    assert compiled(torch.ones(2)).tolist() == [5.0, 5.0]


def test_changes_to_argument_containers_dicts_objects_and_closures_are_graph_breaks():
    def appends(x, acc):
        acc.append(x * 2)
        return x + 1

    compiled = torch.compile(appends, backend="eager")
    lengths = []
    for _ in range(3):
        acc = [torch.zeros(2)]
        compiled(torch.ones(2), acc)
        lengths.append(len(acc))
    assert lengths == [2, 2, 2]

    def records(x, key):
        SEEN[key] = x * 2
        return x

    SEEN.clear()
    compiled_records = torch.compile(records, backend="eager")
    for _ in range(2):
        compiled_records(torch.ones(1), "k")
        SEEN.clear()
    compiled_records(torch.ones(1), "k")
    assert list(SEEN) == ["k"]

    def counter():
        calls = 0

        def f(x):
            nonlocal calls
            calls += 1
            return x * calls
        return f

    counted = torch.compile(counter(), backend="eager")
    assert [counted(torch.ones(1)).item() for _ in range(3)] == [1.0, 2.0, 3.0]

    state = Config(0)

    def bumps(x, holder):
        holder.scale += 1
        return x * holder.scale

    compiled_bumps = torch.compile(bumps, backend="eager")
    captures = stats["captures"]
    assert [compiled_bumps(torch.ones(1), state).item() for _ in range(4)] == [1.0, 2.0, 3.0, 4.0]
    assert stats["captures"] == captures + 2        # then its guards no longer hold on what the call changes


def test_a_module_keeping_state_in_a_list_attribute_appends_on_every_call():
    class Recorder(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(2, 2)
            self.outputs = []

        def forward(self, x):
            y = self.linear(x)
            self.outputs.append(y.detach())
            return y

    model = Recorder()
    compiled = torch.compile(model)
    for _ in range(3):
        compiled(torch.ones(1, 2))
    assert len(model.outputs) == 3


def test_a_side_effect_under_fullgraph_raises_unsupported_naming_it():
    def f(x):
        HISTORY.append(1)
        return x + 1

    with pytest.raises(torch._dynamo.exc.Unsupported, match="global HISTORY"):
        torch.compile(f, fullgraph=True, backend="eager")(torch.ones(1))


def test_logging_and_reading_unchanged_containers_stay_one_graph():
    table = {"scale": 2.0}
    layers = [nn.Linear(2, 2), nn.Linear(2, 2)]

    def f(x):
        log.debug("step")
        for layer in layers:
            x = layer(x)
        return x * table["scale"]

    compiled = torch.compile(f)
    x = torch.ones(1, 2)
    captures = stats["captures"]
    breaks = stats["graph_breaks"]
    for _ in range(3):
        torch.testing.assert_close(compiled(x), f(x))
    assert stats["captures"] == captures + 1 and stats["graph_breaks"] == breaks
    layers.append(nn.Linear(2, 2))            # a member added: captured again, with the new layer
    torch.testing.assert_close(compiled(x), f(x))
    assert stats["captures"] == captures + 2


# -- what the program's functions read: their bytecode says which globals and how --------------------------------------
data = torch.zeros(1)           # a global named as the attribute a helper reads (p.data)
NESTED = {"model": {"scale": 2.0}, "step": 0}
this_module = sys.modules[__name__]
MODULE_SCALE = 2.0


class Slotted:
    __slots__ = ("scale",)

    def __init__(self, scale):
        self.scale = scale


SLOTTED = Slotted(2.0)


class ClassConfig:
    scale = 2.0


def test_an_attribute_named_as_a_global_and_unread_keys_do_not_capture_again():
    global data
    p = nn.Parameter(torch.ones(2))

    def f(x):
        p.data.clamp_(max=5.0)
        return x * NESTED["model"]["scale"]

    compiled = torch.compile(f, backend="eager")
    captures = stats["captures"]
    for step in range(4):
        data = torch.full((1,), float(step))            # rebinding the unrelated global
        NESTED["step"] = step                            # a key the function does not read
        assert compiled(torch.ones(1)).tolist() == [2.0]
    assert stats["captures"] == captures + 1
    NESTED["model"]["scale"] = 3.0                       # the key it reads, two levels down
    try:
        assert compiled(torch.ones(1)).tolist() == [3.0]
    finally:
        NESTED["model"]["scale"] = 2.0


def test_module_class_and_slot_attributes_read_through_globals_are_guarded():
    global MODULE_SCALE

    def f(x):
        return x * this_module.MODULE_SCALE + x * ClassConfig.scale + x * SLOTTED.scale

    compiled = torch.compile(f, backend="eager")
    x = torch.ones(1)
    compiled(x)
    try:
        MODULE_SCALE, ClassConfig.scale, SLOTTED.scale = 3.0, 4.0, 5.0
        assert compiled(x).tolist() == [12.0]
    finally:
        MODULE_SCALE, ClassConfig.scale, SLOTTED.scale = 2.0, 2.0, 2.0


def test_a_helpers_closure_and_a_functions_mutable_default_are_seen():
    def make():
        scale = 2.0

        def helper(x):
            return x * scale

        def set_scale(value):
            nonlocal scale
            scale = value
        return helper, set_scale

    helper, set_scale = make()
    compiled = torch.compile(lambda x: helper(x) + 1, backend="eager")
    results = []
    for value in (2.0, 3.0, 4.0):
        set_scale(value)
        results.append(compiled(torch.ones(1)).item())
    assert results == [3.0, 4.0, 5.0]

    def accumulate(x, seen=[]):         # the shared default is the point
        seen.append(1)
        return x * len(seen)

    compiled_accumulate = torch.compile(accumulate, backend="eager")
    assert [compiled_accumulate(torch.ones(1)).item() for _ in range(4)] == [1.0, 2.0, 3.0, 4.0]


def test_an_object_argument_is_guarded_down_to_its_nested_attributes():
    class Sub:
        def __init__(self):
            self.scale = 2.0

    class Scaler:
        def __init__(self):
            self.w, self.sub = torch.tensor([2.0]), Sub()

        def apply(self, x):
            return x * self.w * self.sub.scale

    scaler = Scaler()
    compiled = torch.compile(lambda x, s: s.apply(x), backend="eager")
    results = []
    for i in range(2):
        scaler.w = torch.tensor([2.0 + i])
        results.append(compiled(torch.ones(1), scaler).item())
    scaler.sub.scale = 5.0
    results.append(compiled(torch.ones(1), scaler).item())
    assert results == [4.0, 6.0, 15.0]


def test_a_global_the_call_creates_and_a_container_of_results_a_module_keeps_are_graph_breaks():
    def f(x):
        global CREATED
        CREATED = x * 2
        return x

    compiled = torch.compile(f, backend="eager")
    for step in range(3):
        compiled(torch.full((1,), float(step)))
        assert CREATED.item() == 2.0 * step

    class Summarised(nn.Module):
        def forward(self, x):
            y = x * 2
            self.summary = {"mean": y.mean()}
            return y

    model = Summarised()
    compiled_model = torch.compile(model)
    for step in range(3):
        compiled_model(torch.full((2,), float(step)))
        assert model.summary["mean"].item() == 2.0 * step


def test_a_side_effect_after_another_break_settles_instead_of_capturing_each_call():
    losses = []

    def f(x):
        losses.append((x * 2).sum().item())
        return x

    compiled = torch.compile(f, backend="eager")
    captures = stats["captures"]
    for _ in range(6):
        compiled(torch.ones(2))
    assert losses == [4.0] * 6 and stats["captures"] == captures + 2


class Base:
    scale = 2.0


class Derived(Base):
    def get(self):
        return self.scale


class EMA:
    def __init__(self):
        self.decay, self.shadow = 0.5, torch.zeros(1)

    def update(self, value):            # named as dict.update: a program's method reads its object
        self.shadow = self.shadow * self.decay + value * (1 - self.decay)
        return self.shadow


DERIVED, AVERAGE = Derived(), EMA()
TABLES = {"scales": [1.0, 2.0], "nested": ({"s": 2.0},)}
RECENT = collections.deque(maxlen=8)


def test_inherited_class_attributes_program_methods_and_nested_lists_and_tuples_are_guarded():
    def f(x):
        tables = TABLES                     # an alias: used whole, nested members guarded
        return x * DERIVED.get() + x * tables["scales"][1] + x * tables["nested"][0]["s"]

    compiled = torch.compile(f, backend="eager")
    x = torch.ones(1)
    assert compiled(x).tolist() == [6.0]
    try:
        Base.scale = 3.0
        assert compiled(x).tolist() == [7.0]
        TABLES["scales"][1] = 4.0
        assert compiled(x).tolist() == [9.0]
        TABLES["nested"][0]["s"] = 5.0
        assert compiled(x).tolist() == [12.0]
    finally:
        Base.scale, TABLES["scales"][1], TABLES["nested"][0]["s"] = 2.0, 2.0, 2.0

    averaged = torch.compile(lambda x: AVERAGE.update(x), backend="eager")
    eager = EMA()
    for decay in (0.5, 0.9, 0.0):
        AVERAGE.decay = eager.decay = decay
        torch.testing.assert_close(averaged(torch.ones(1)), eager.update(torch.ones(1)))


def test_a_deque_appended_to_and_a_closure_passed_as_an_argument_are_seen():
    def f(x):
        RECENT.append(x.sum())
        return x

    compiled = torch.compile(f, backend="eager")
    RECENT.clear()
    for _ in range(3):
        compiled(torch.ones(2))
    assert len(RECENT) == 3

    settings = {"s": 2.0}

    def act(x):
        return x * settings["s"]

    apply = torch.compile(lambda x, fn: fn(x) + 1, backend="eager")
    results = []
    for s in (2.0, 3.0, 4.0):
        settings["s"] = s
        results.append(apply(torch.ones(1), act).item())
    assert results == [3.0, 4.0, 5.0]


def test_a_training_step_holding_its_model_and_optimizer_in_a_closure_replays():
    def make_step():
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)

        def step(x, y):
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()        # its step counters change every call: not settings a guard compares
            return loss
        return step

    compiled, eager = torch.compile(make_step(), backend="eager"), make_step()
    captures, replays = stats["captures"], stats["replays"]
    gen = torch.Generator().manual_seed(1)
    for _ in range(5):
        x, y = torch.randn(6, 4, generator=gen), torch.randint(0, 2, (6,), generator=gen)
        torch.testing.assert_close(compiled(x, y), eager(x, y))
    assert stats["captures"] == captures + 2 and stats["replays"] == replays + 3


class TrainerState:
    def __init__(self):
        self.scale, self.step, self.history, self.sub = 2.0, 0, [], {"shift": 1.0}


def describe(state):
    return state.scale


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.state = TrainerState()

    def forward(self, x):
        return x * self.state.scale + self.state.sub["shift"]


class PassesItsStateOn(Scaled):
    def forward(self, x):
        return x * describe(self.state) + self.state.sub["shift"]      # passed on: guarded whole


def test_a_modules_config_is_guarded_on_what_its_methods_read_from_it():
    for whole, make in ((False, Scaled), (True, PassesItsStateOn)):
        model = make()
        compiled = torch.compile(model, backend="eager")
        x = torch.ones(1)
        captures = stats["captures"]
        for step in range(3):               # what forward does not read changes between calls
            model.state.step = step
            model.state.history.append(step)
            torch.testing.assert_close(compiled(x), model(x))
        assert stats["captures"] == captures + (3 if whole else 1)
        model.state.scale = 5.0             # what it reads
        torch.testing.assert_close(compiled(x), model(x))
        model.state.sub["shift"] = 4.0
        torch.testing.assert_close(compiled(x), model(x))


def test_draws_from_pythons_or_numpys_global_random_generators_are_graph_breaks():
    import random

    def skip_some(x):
        return x * 10 if random.random() < 0.5 else x

    def noisy(x):
        return x + float(np.random.rand())

    for f in (skip_some, noisy):
        compiled = torch.compile(f)
        random.seed(0)
        np.random.seed(0)
        got = [compiled(torch.ones(1)).item() for _ in range(6)]
        random.seed(0)
        np.random.seed(0)
        assert got == [f(torch.ones(1)).item() for _ in range(6)]
    with pytest.raises(torch._dynamo.exc.Unsupported, match="random"):
        torch.compile(skip_some, fullgraph=True)(torch.ones(1))


class _Jitter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rng = __import__("random").Random(0)

    def forward(self, x):
        return x * (1 + self.rng.random())


def test_draws_from_random_generators_the_program_holds_are_graph_breaks():
    numpy_rng, legacy = np.random.default_rng(0), np.random.RandomState(0)

    def noisy(x):
        return x + float(numpy_rng.normal())

    def legacy_noisy(x, rng):
        return x + float(rng.rand())

    class NumpyJitter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rng = np.random.default_rng(1)

        def forward(self, x):
            return x * (1 + float(self.rng.random()))

    draw = __import__("random").Random(2).random        # bound once

    def drawn(x):
        return x + draw()

    def defaulted(x, rng=np.random.RandomState(3)):
        return x + float(rng.rand())

    cases = [(_Jitter(), ()), (NumpyJitter(), ()), (noisy, ()), (legacy_noisy, (legacy,)), (drawn, ()),
             (defaulted, ())]
    for fn, extra in cases:
        compiled = torch.compile(fn)
        got = [compiled(torch.ones(1), *extra).item() for _ in range(4)]
        assert len(set(got)) == 4           # a fresh draw on every call, as eager
    with pytest.raises(torch._dynamo.exc.Unsupported, match="RandomState"):
        torch.compile(legacy_noisy, fullgraph=True)(torch.ones(1), legacy)
    # a generator without a state to read is not watched, and not refused either
    system = __import__("random").SystemRandom()
    torch.testing.assert_close(torch.compile(lambda x: x + (system is not None))(torch.ones(1)), torch.full((1,), 2.0))


def _counting():
    k = 0
    while True:
        k += 1
        yield float(k)


class _Batches(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.items = iter(range(100))

    def forward(self, x):
        return x * next(self.items)


def test_items_taken_from_iterators_the_program_holds_are_graph_breaks():
    import itertools

    def taking(items):
        return lambda x: x * next(items)

    loader = iter(torch.utils.data.DataLoader(torch.arange(20.0), batch_size=2))
    cases = [taking(iter([1.0, 2.0, 3.0, 4.0])), taking(itertools.count(1)), taking(_counting()),
             taking(float(i) for i in range(10)), taking(iter({1.0: 0, 2.0: 0, 3.0: 0, 4.0: 0})),
             lambda x: x * sum(next(zip_items)), lambda x: x * next(loader).sum(), _Batches()]
    zip_items = zip(range(10), range(10, 20))
    for fn in cases:
        compiled = torch.compile(fn)
        got = [compiled(torch.ones(1)).item() for _ in range(4)]
        assert len(set(got)) == 4           # the next item on every call, as eager
    held = iter([1.0, 2.0])
    with pytest.raises(torch._dynamo.exc.Unsupported, match="was advanced"):
        torch.compile(lambda x: x * next(held), fullgraph=True)(torch.ones(1))
    # an iterator the call holds but does not advance leaves the graph alone
    untouched = torch.compile(lambda x: x * 2 + (held is None))
    for _ in range(3):
        untouched(torch.ones(1))
    assert untouched._ember_compiled.entries[0].compiled is not None


class _Stream:
    """A program's own iterator object: its members are snapshotted as any object's."""

    def __init__(self):
        self.buffer, self.position = [], 0

    def __iter__(self):
        return self

    def __next__(self):
        self.position += 1
        return self.position


def test_iterators_held_but_not_advanced_leave_the_graph_and_an_iterator_objects_members_are_watched():
    import itertools
    held = [iter(range(10)), itertools.cycle([1, 2]), zip(range(3), [4, 5, 6]), enumerate(range(4)),
            map(abs, range(3)), (i for i in range(5))]
    for iterator in held:
        compiled = torch.compile(lambda x: x * 2 + (iterator is None))
        for _ in range(3):
            compiled(torch.ones(1))
        assert stats["graph_breaks"] == 0
    stream = _Stream()

    def record(x, s):
        s.buffer.append(x * 2)
        return x

    compiled = torch.compile(record)
    for value in range(4):
        compiled(torch.full((1,), float(value)), stream)
    assert [t.item() for t in stream.buffer] == [0.0, 2.0, 4.0, 6.0]


def test_a_returned_generator_is_the_calls_own():
    def lazily(x):
        return (x * i for i in range(3))

    compiled = torch.compile(lazily)
    for value in (1.0, 2.0, 3.0):
        x = torch.full((2,), value)
        assert [t.tolist() for t in compiled(x)] == [t.tolist() for t in lazily(x)]


def _scaled(x, scale=1.0):
    return x * scale


class _Defaulted(torch.nn.Module):
    def forward(self, x, k=2.0):
        return x * k


def test_defaults_reassigned_after_the_compile_are_seen():
    x = torch.ones(2)
    def keyword(x, *, k=1.0):
        return x * k

    for fn, owner in ((_scaled, _scaled), (_Defaulted(), _Defaulted.forward), (keyword, keyword)):
        compiled = torch.compile(fn)
        compiled(x)
        name = "__kwdefaults__" if owner is keyword else "__defaults__"
        before = getattr(owner, name)
        try:
            setattr(owner, name, {"k": 7.0} if owner is keyword else (7.0,))
            torch.testing.assert_close(compiled(x), torch.full((2,), 7.0))
        finally:
            setattr(owner, name, before)
        torch.testing.assert_close(compiled(x), fn(x))


class _ClassSetting(torch.nn.Module):
    factor = 2.0

    @classmethod
    def current(cls):
        return cls.factor

    def forward(self, x):
        return x * self.current()


def test_a_class_attribute_a_classmethod_reads_is_guarded():
    model, x = _ClassSetting(), torch.ones(2)
    compiled = torch.compile(model)
    compiled(x)
    try:
        _ClassSetting.factor = 5.0
        torch.testing.assert_close(compiled(x), torch.full((2,), 5.0))
    finally:
        _ClassSetting.factor = 2.0
    torch.testing.assert_close(compiled(x), torch.full((2,), 2.0))


class _Ticking(torch.nn.Module):
    step = 0

    @classmethod
    def tick(cls):
        cls.step += 1
        return cls.step

    def forward(self, x):
        return x * self.tick()


def test_a_classmethod_assigning_a_class_attribute_is_a_side_effect():
    compiled, x = torch.compile(_Ticking()), torch.ones(1)
    try:
        assert [compiled(x).item() for _ in range(5)] == [1.0, 2.0, 3.0, 4.0, 5.0] and _Ticking.step == 5
        with pytest.raises(torch._dynamo.exc.Unsupported, match="_Ticking.step was assigned"):
            torch.compile(_Ticking(), fullgraph=True)(x)
    finally:
        _Ticking.step = 0


def test_narrow_with_a_tensor_start_reads_its_value_each_call():
    def window(x, start):
        return x.narrow(0, start, 2) * 2

    compiled, x = torch.compile(window), torch.arange(6.0)
    for start in (0, 0, 3, 1):
        torch.testing.assert_close(compiled(x, torch.tensor(start)), window(x, torch.tensor(start)))
    with pytest.raises(torch._dynamo.exc.Unsupported, match="item"):
        torch.compile(window, fullgraph=True)(x, torch.tensor(1))


def test_writes_into_a_numpy_array_the_program_holds_happen_at_each_call():
    counts = np.zeros(3)

    def count(x):
        counts[0] += 1
        return x * 2

    class Tally(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = np.arange(3.0)

        def forward(self, x):
            self.table += 1
            return x + 1

    compiled, tally = torch.compile(count), Tally()
    compiled_tally = torch.compile(tally)
    for _ in range(3):
        compiled(torch.ones(1))
        compiled_tally(torch.ones(1))
    assert counts.tolist() == [3.0, 0.0, 0.0]
    assert tally.table.tolist() == [3.0, 4.0, 5.0]
    captures = stats["captures"]        # (the write seen again, each settles to run eagerly)
    for _ in range(3):
        compiled(torch.ones(1))
        compiled_tally(torch.ones(1))
    assert stats["captures"] == captures and counts[0] == 6.0
    breaks = stats["graph_breaks"]
    read_only = np.arange(4.0)
    reads = torch.compile(lambda x: x * float(read_only.sum()))
    for _ in range(3):          # an array only read: one graph
        reads(torch.ones(1))
    assert stats["graph_breaks"] == breaks and stats["replays"] >= 2


def test_the_values_of_a_numpy_array_the_program_reads_are_guarded_wherever_it_is_held():
    held = np.arange(4.0)
    from_global = torch.compile(lambda x: x * float(held.sum()))

    class Weighted(nn.Module):
        def __init__(self):
            super().__init__()
            self.weights = np.ones(2)

        def forward(self, x):
            return x * float(self.weights.sum())

    from_argument = torch.compile(lambda x, a: x * float(a.sum()))
    module = Weighted()
    from_module = torch.compile(module)
    argument = np.arange(3.0)
    for fill in (1.0, 1.0, 2.0, 5.0):
        held[:], module.weights[:], argument[:] = fill, fill, fill
        assert from_global(torch.ones(1)).item() == 4 * fill
        assert from_module(torch.ones(1)).item() == 2 * fill
        assert from_argument(torch.ones(1), argument).item() == 3 * fill


def _helper(x):
    return x * 2


def _calls_helper(x):
    return _helper(x) + 1


def _plus_hundred(x):
    return x + 100


def test_code_replaced_after_the_compile_is_seen():
    x = torch.ones(2)
    for fn, owner in ((_scaled, _scaled), (_calls_helper, _helper), (_Defaulted(), _Defaulted.forward)):
        compiled = torch.compile(fn)
        expected = fn(x)
        torch.testing.assert_close(compiled(x), expected)
        before = owner.__code__
        try:
            owner.__code__ = _plus_hundred.__code__ if owner is not _Defaulted.forward else \
                (lambda self, x, k=2.0: x + 100).__code__
            torch.testing.assert_close(compiled(x), fn(x))
            assert not torch.equal(fn(x), expected)
        finally:
            owner.__code__ = before
        torch.testing.assert_close(compiled(x), expected)


class _Scaler:
    factor = 2.0

    def times(self, x):
        return x * self.factor

    @property
    def offset(self):
        return 1.0


class _UsesScaler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scaler = _Scaler()

    def forward(self, x):
        return self.scaler.times(x) + self.scaler.offset


def test_code_replaced_on_a_method_or_a_property_getter_is_seen():
    model, x = _UsesScaler(), torch.ones(2)
    compiled = torch.compile(model)
    expected = model(x)
    torch.testing.assert_close(compiled(x), expected)
    for function in (_Scaler.times, _Scaler.offset.fget):
        before = function.__code__
        try:
            function.__code__ = (lambda self, x: x * 10).__code__ if function is _Scaler.times else \
                (lambda self: 5.0).__code__
            torch.testing.assert_close(compiled(x), model(x))
            assert not torch.equal(model(x), expected)
        finally:
            function.__code__ = before
        torch.testing.assert_close(compiled(x), expected)


def test_a_global_read_by_a_function_exec_d_from_a_string_is_guarded():
    # exec(source, namespace): the namespace is the program's, as a module's globals are
    namespace = {"SCALE": 2.0}
    exec("def scaled(x):\n    return x * SCALE\n", namespace)
    compiled = torch.compile(namespace["scaled"])
    x = torch.ones(2)
    assert compiled(x).tolist() == [2.0, 2.0]
    namespace["SCALE"] = 5.0
    assert compiled(x).tolist() == [5.0, 5.0]
    exec("def helper(x):\n    return x + OFFSET\n", namespace)
    namespace["OFFSET"] = 1.0
    outer = torch.compile(lambda x: namespace["helper"](x) * 2)
    assert outer(x).tolist() == [4.0, 4.0]
    namespace["OFFSET"] = 3.0
    assert outer(x).tolist() == [8.0, 8.0]
