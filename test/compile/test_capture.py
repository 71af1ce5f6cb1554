"""Capture and replay: a compiled function's results are eager's, its first call is captured and later calls
replay the graph, and what the program does around the operators (grad mode, module attributes it sets,
optimizer steps, gradients read from parameters) is replayed too."""
import pytest

import torch
import torch.nn as nn
from torch._dynamo.eval_frame import stats


def captures():
    return stats["captures"]


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_compiled_function_gives_eager_results_and_replays_without_capturing_again(backend):
    def f(x, y):
        return (x * y + 1).relu(), (x - y).sum()

    compiled = torch.compile(f, backend=backend)
    x, y = torch.randn(5, 3), torch.randn(5, 3)
    for _ in range(3):
        got, want = compiled(x, y), f(x, y)
        torch.testing.assert_close(got, want)
    assert captures() == 1
    x2 = torch.randn(5, 3)
    torch.testing.assert_close(compiled(x2, y), f(x2, y))       # new values, same guards: a replay
    assert captures() == 1


def test_a_compiled_function_keeps_its_name_and_original():
    def scaled(x):
        """doc"""
        return x * 2

    compiled = torch.compile(scaled)
    assert compiled.__name__ == "scaled" and compiled.__doc__ == "doc"
    assert compiled._torchdynamo_orig_callable is scaled
    assert torch.compile()(scaled)(torch.ones(2)).tolist() == [2.0, 2.0]


def test_pytree_arguments_keyword_arguments_and_outputs_round_trip():
    def f(inputs, *, scale):
        return {"sum": inputs["a"] + inputs["b"][0], "scaled": [inputs["a"] * scale, 7]}

    compiled = torch.compile(f, backend="eager")
    args = {"a": torch.randn(3), "b": (torch.randn(3),)}
    for _ in range(2):
        got = compiled(args, scale=3.0)
        want = f(args, scale=3.0)
        torch.testing.assert_close(got, want)
        assert got["scaled"][1] == 7


def test_returning_an_input_gives_the_same_tensor_and_a_view_stays_a_view():
    def f(x):
        return x, x[1:], x.t()

    compiled = torch.compile(f, backend="eager")
    x = torch.randn(3, 3)
    for _ in range(2):
        same, tail, transposed = compiled(x)
        assert same is x
        assert tail.data_ptr() == x[1:].data_ptr() and transposed.stride() == (1, 3)


def test_in_place_writes_to_inputs_are_replayed():
    def f(x, y):
        x.add_(y)
        return x * 2

    compiled = torch.compile(f, backend="inductor")
    a, b = torch.zeros(4), torch.ones(4)
    compiled(a, b)
    out = compiled(a, b)
    assert a.tolist() == [2.0] * 4 and out.tolist() == [4.0] * 4


def test_gradients_flow_through_the_replayed_graph():
    def f(x, w):
        return torch.tanh(x @ w).sum()

    compiled = torch.compile(f, backend="inductor")
    for _ in range(2):
        x = torch.randn(4, 3, requires_grad=True)
        w = torch.randn(3, 2, requires_grad=True)
        compiled(x, w).backward()
        gx, gw = x.grad, w.grad
        x.grad = w.grad = None
        f(x, w).backward()
        torch.testing.assert_close((gx, gw), (x.grad, w.grad))


def test_no_grad_inside_the_function_is_replayed():
    def f(x):
        with torch.no_grad():
            frozen = x * 2
        return frozen, x * 3

    compiled = torch.compile(f, backend="eager")
    x = torch.randn(3, requires_grad=True)
    for _ in range(2):
        frozen, live = compiled(x)
        assert not frozen.requires_grad and live.requires_grad
    assert torch.is_grad_enabled()


def test_module_compiled_keeps_its_state_dict_keys_under_orig_mod_and_its_results():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    compiled = torch.compile(model)
    assert isinstance(compiled, torch._dynamo.OptimizedModule) and compiled._orig_mod is model
    assert list(compiled.state_dict()) == [f"_orig_mod.{k}" for k in model.state_dict()]
    x = torch.randn(5, 4)
    with torch.no_grad():
        for _ in range(2):
            torch.testing.assert_close(compiled(x), model(x))
    assert torch.compile(nn.Linear(2, 3)).in_features == 2      # attributes reach the module


def test_module_compile_in_place_keeps_the_type_and_keys():
    model = nn.Linear(3, 2)
    keys = list(model.state_dict())
    assert model.compile(backend="eager") is None
    assert type(model) is nn.Linear and list(model.state_dict()) == keys
    x = torch.randn(2, 3)
    want = x @ model.weight.t() + model.bias
    for _ in range(2):
        torch.testing.assert_close(model(x), want)
    assert captures() == 1


def test_parameters_updated_in_place_are_seen_by_the_replay():
    model = nn.Linear(3, 1)
    compiled = torch.compile(model, backend="inductor")
    x = torch.randn(2, 3)
    compiled(x)
    with torch.no_grad():
        model.weight.add_(1.0)
    torch.testing.assert_close(compiled(x), model(x))
    assert captures() == 1


def test_attributes_a_forward_assigns_are_assigned_on_replay_too():
    class Counter(nn.Module):
        def forward(self, x):
            self.last_total = x.sum()
            self.calls_seen = "yes"
            return x + 1

    model = Counter()
    compiled = torch.compile(model, backend="eager")
    compiled(torch.ones(3))
    del model.last_total, model.calls_seen
    compiled(torch.full((3,), 2.0))
    assert model.last_total.item() == 6.0 and model.calls_seen == "yes"


def test_dropout_in_a_compiled_module_follows_the_generator_as_eager():
    model = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5))
    compiled = torch.compile(model, backend="inductor")
    x = torch.randn(4, 6)
    for seed in (1, 2, 3):
        torch.manual_seed(seed)
        got = compiled(x)
        torch.manual_seed(seed)
        torch.testing.assert_close(got, model(x))


@pytest.mark.parametrize("make", [lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
                                  lambda p: torch.optim.Adam(p, lr=0.01),
                                  lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1)])
def test_a_compiled_optimizer_step_matches_eager_steps_with_fresh_gradients_each_step(make):
    torch.manual_seed(0)
    model, reference = nn.Linear(3, 2), nn.Linear(3, 2)
    reference.load_state_dict(model.state_dict())
    opt, ref_opt = make(model.parameters()), make(reference.parameters())
    step = torch.compile(opt.step, backend="inductor")
    for _ in range(5):
        x = torch.randn(6, 3)
        for m, o in ((model, opt), (reference, ref_opt)):
            o.zero_grad()
            m(x).pow(2).sum().backward()
        step()
        ref_opt.step()
    torch.testing.assert_close(model.state_dict(), reference.state_dict(), rtol=0, atol=0)
    assert captures() == 2          # the first step (state created), then every later one
    assert stats["graph_breaks"] == 0 and stats["replays"] == 3


def test_a_changed_learning_rate_recompiles_the_step():
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    step = torch.compile(opt.step, backend="eager")
    model(torch.ones(1, 2)).sum().backward()
    before = model.weight.detach().clone()
    step()
    opt.param_groups[0]["lr"] = 0.0
    step()
    torch.testing.assert_close(model.weight, before - 0.5 * model.weight.grad)
    assert captures() == 2


class _CountingSGD(torch.optim.SGD):
    """An SGD whose state keeps a plain count its update reads."""

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                count = self.state[p].get("count", 0) + 1
                self.state[p]["count"] = count
                p.sub_(p.grad * group["lr"] / count)


@pytest.mark.parametrize("change", ["state tensor replaced", "plain state value", "new state key"])
def test_a_step_replays_only_while_the_optimizers_state_is_the_one_it_captured(change):
    def run(compiled):
        torch.manual_seed(0)
        model = nn.Linear(3, 2)
        opt = (_CountingSGD if change == "plain state value" else torch.optim.SGD)(model.parameters(), lr=0.1,
                                                                                   momentum=0.9)
        step = torch.compile(opt.step, backend="inductor") if compiled else opt.step
        for i in range(4):
            model(torch.full((1, 3), float(i))).sum().backward()
            step()
            if i == 1 and change == "state tensor replaced":
                for state in opt.state.values():
                    state["momentum_buffer"] = state["momentum_buffer"] * 0.5
            if i == 1 and change == "new state key":
                for state in opt.state.values():
                    state["seen"] = True
        return model

    torch.testing.assert_close(run(True).state_dict(), run(False).state_dict(), rtol=0, atol=0)


def test_nested_compiled_functions_join_the_outer_graph():
    inner = torch.compile(lambda x: x.sin(), backend="eager")
    outer = torch.compile(lambda x: inner(x) * 2, backend="eager")
    x = torch.randn(3)
    for _ in range(2):
        torch.testing.assert_close(outer(x), x.sin() * 2)
    assert captures() == 1


def test_is_compiling_is_true_only_while_capturing():
    seen = []

    def f(x):
        seen.append((torch.compiler.is_compiling(), torch._dynamo.is_compiling()))
        return x + 1

    compiled = torch.compile(f, backend="eager")
    compiled(torch.ones(1))
    assert seen == [(True, True)] and torch.compiler.is_compiling() is False and not torch._dynamo.is_compiling()


def test_a_capture_sees_only_its_own_threads_calls():
    import threading
    model, other = torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)
    started, done = threading.Event(), threading.Event()
    seen = {}

    def elsewhere():
        started.wait(5)
        other.note = 1.0                                        # a module write on another thread
        with torch.no_grad():                                   # a grad-mode switch there
            seen["eager"] = torch.compile(lambda x: x + 1)(torch.ones(2))     # finds the capture busy
        seen["compiling"] = torch.compiler.is_compiling()
        done.set()

    def f(x):
        if torch.compiler.is_compiling():
            started.set()
            done.wait(5)
        return model(x) * 2

    worker = threading.Thread(target=elsewhere)
    worker.start()
    compiled = torch.compile(f)
    x = torch.randn(2, 3)
    compiled(x)
    worker.join()
    entry = compiled._ember_compiled.entries[0]
    assert entry.captured.writes == [] and not any("note" in line for line in entry.guards.describe())
    assert all(n.target is not torch._C._set_grad_enabled for n in entry.graph_module.graph.nodes)
    assert seen["compiling"] is False and torch.equal(seen["eager"], torch.full((2,), 2.0))
    torch.testing.assert_close(compiled(x), f(x))


_SHARED = [1, 2]


def test_a_container_the_call_received_or_reached_is_handed_back_as_it_is_on_replays():
    def passes(x, extra, options):
        return x + 1, extra, {"options": options, "shared": _SHARED}

    compiled = torch.compile(passes)
    for k in range(3):
        extra, options = [torch.ones(1), "tag"], {"k": 1}       # new objects, the same contents
        y, got_extra, out = compiled(torch.ones(1), extra, options=options)
        assert got_extra is extra and out["options"] is options and out["shared"] is _SHARED
        torch.testing.assert_close(y, torch.full((1,), 2.0))
    assert captures() == 1


def test_a_container_passed_twice_at_capture_is_never_handed_back_as_the_other_one():
    def second(x, ys, zs):
        return x + 1, zs

    compiled = torch.compile(second)
    shared = ["a"]
    compiled(torch.ones(1), shared, shared)
    ys, zs = ["a"], ["a"]
    _, got = compiled(torch.ones(1), ys, zs)
    assert got is not ys and got == zs
