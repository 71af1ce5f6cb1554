"""torch.profiler and torch.autograd.profiler: events come from the dispatcher (every operator call,
nested under record_function ranges), summaries in PyTorch's table, Chrome traces, and schedules
whose actions were recorded from PyTorch 2.13 (tools/record_profiler_reference.py)."""
import json
from pathlib import Path

import pytest

import torch
from torch.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule
from tools.record_profiler_reference import STEPS, actions

SCHEDULES = json.loads((Path(__file__).resolve().parent.parent / "data" / "profiler" / "schedule.json").read_text())


def test_profile_counts_each_operator_call():
    x = torch.ones(8)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            x = torch.add(x, 1)
        x.mul_(2)
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["aten::add"].count == 3 and averages["aten::mul_"].count == 1
    assert all(e.cpu_time_total >= e.self_cpu_time_total >= 0 for e in prof.events())


def test_record_function_ranges_hold_the_ops_inside():
    layer = torch.nn.Linear(4, 3)
    with profile(record_shapes=True) as prof:
        with record_function("forward_pass"):
            layer(torch.randn(2, 4)).relu()
    events = prof.events()
    scope = next(e for e in events if e.name == "forward_pass")
    inside = [e for e in events if e.cpu_parent is scope]
    assert {e.name for e in inside} >= {"aten::linear", "aten::relu"} and scope.is_user_annotation
    assert scope.cpu_time_total >= sum(e.cpu_time_total for e in inside)
    linear = next(e for e in events if e.name == "aten::linear")
    assert linear.input_shapes[:2] == [[2, 4], [3, 4]]
    top = [e for e in events if e.cpu_parent is None]
    assert sum(e.self_cpu_time_total for e in events) == pytest.approx(sum(e.cpu_time_total for e in top))


def test_table_has_pytorch_columns_and_footer():
    with profile(record_shapes=True) as prof:
        torch.ones(3).sum()
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=5)
    lines = table.splitlines()
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total", "CPU",
                                "time", "avg", "#", "of", "Calls", "Input", "Shapes"]
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert lines[-1].startswith("Self CPU time total: ") and any("aten::sum" in line for line in lines)


def test_chrome_trace_is_complete_events(tmp_path):
    with profile(record_shapes=True) as prof:
        torch.ones(2, 2).matmul(torch.ones(2, 2))
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    matmul = next(e for e in trace["traceEvents"] if e["name"] == "aten::matmul")
    assert matmul["ph"] == "X" and matmul["dur"] >= 0 and matmul["args"]["Input Dims"] == [[2, 2], [2, 2]]


@pytest.mark.parametrize("case", SCHEDULES["cases"],
                         ids=lambda c: ",".join(f"{k}={v}" for k, v in c["schedule"].items()))
def test_schedule_actions_as_pytorch(case):
    assert actions(torch, case["schedule"]) == case["actions"]
    assert len(case["actions"]) == STEPS


def test_scheduled_profile_hands_over_each_cycle():
    traces = []
    plan = schedule(wait=1, warmup=1, active=2, repeat=2)
    with profile(schedule=plan, on_trace_ready=lambda p: traces.append(
            [e.name for e in p.events() if e.name.startswith("ProfilerStep")])) as prof:
        for _ in range(10):
            torch.ones(2).add(1)
            prof.step()
    assert traces == [["ProfilerStep#2", "ProfilerStep#3"], ["ProfilerStep#6", "ProfilerStep#7"]]
    assert plan(2) is ProfilerAction.RECORD


def test_no_profiler_no_events_and_one_profiler_at_a_time():
    with record_function("alone"):
        torch.ones(1).add(1)
    with torch.autograd.profiler.profile() as outer:
        with pytest.raises(RuntimeError, match="Profiler is already enabled on this thread"):
            with profile():
                pass
    assert outer.function_events is not None
    with profile() as later:
        pass
    assert list(later.events()) == []


def test_autograd_profiler_sees_backward_ops():
    x = torch.ones(3, requires_grad=True)
    with torch.autograd.profiler.profile() as prof:
        (x * 2).sum().backward()
    names = {e.key for e in prof.key_averages()}
    assert {"aten::mul", "aten::sum"} <= names and prof.self_cpu_time_total > 0
