"""What a compiled call reads or changes in Python outside its graph: globals its helpers read are guarded, and a
change to a list, dict, object, global or closure variable (a side effect a replay would not redo) is a graph break,
so every call gives what the eager call gives. (Each case was a silent difference before.)"""
import logging
import types

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
    for _ in range(3):
        compiled(torch.ones(2))
    assert len(HISTORY) == 3 and stats["graph_breaks"] == breaks + 1


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
    assert [compiled_bumps(torch.ones(1), state).item() for _ in range(3)] == [1.0, 2.0, 3.0]
    assert [counted(torch.ones(1)).item() for _ in range(2)] == [4.0, 5.0]
    assert stats["captures"] == captures + 1        # the break's guards do not fail on what the call changes


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
