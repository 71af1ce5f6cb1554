"""Graph breaks: what a graph cannot hold (a tensor's value read in Python, a differentiable backward, a
disabled function) runs the function eagerly for those guards, with eager's results; under fullgraph=True it
raises torch._dynamo.exc.Unsupported, as PyTorch's."""
import pytest

import torch
from torch._dynamo.eval_frame import stats

from fake_libraries import fake_library


def branchy(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


def test_data_dependent_branching_runs_eagerly_with_eager_results():
    compiled = torch.compile(branchy, backend="inductor")
    for x in (torch.ones(3), -torch.ones(3), torch.ones(3)):
        assert torch.equal(compiled(x), branchy(x))
    assert stats["graph_breaks"] == 1


@pytest.mark.parametrize("read", [lambda t: t.item(), lambda t: t.tolist(), lambda t: bool(t.sum()),
                                  lambda t: t.numpy(), lambda t: float(t.max())])
def test_reading_a_value_under_fullgraph_raises_unsupported(read):
    def f(x):
        read(x)
        return x * 2

    with pytest.raises(torch._dynamo.exc.Unsupported, match="reading a tensor's value in a compiled function"):
        torch.compile(f, backend="eager", fullgraph=True)(torch.ones(1))
    assert issubclass(torch._dynamo.exc.Unsupported, RuntimeError)


def test_graph_breaks_are_logged(capsys, monkeypatch):
    monkeypatch.setenv("TORCH_LOGS", "graph_breaks")
    torch.compile(branchy, backend="eager")(torch.ones(2))
    err = capsys.readouterr().err
    assert "[__graph_breaks] Graph break in user code at" in err
    assert "[__graph_breaks] Graph Break Reason: Tensor.item" in err


def test_a_differentiable_backward_inside_a_compiled_function_is_a_graph_break():
    w = torch.ones(3, requires_grad=True)

    def f(x):
        (g,) = torch.autograd.grad((w * x).pow(2).sum(), w, create_graph=True)
        return g.sum()

    compiled = torch.compile(f, backend="eager")
    compiled(torch.full((3,), 2.0))
    assert stats["graph_breaks"] == 1
    with pytest.raises(torch._dynamo.exc.Unsupported, match=r"torch.autograd.grad\(create_graph=True\)"):
        torch.compile(f, backend="eager", fullgraph=True)(torch.ones(3))


def test_a_disabled_function_is_a_graph_break_and_runs_as_it_is():
    @torch.compiler.disable
    def helper(x):
        return x * 2

    compiled = torch.compile(lambda x: helper(x) + 1, backend="eager")
    assert compiled(torch.ones(1)).item() == 3.0 and stats["graph_breaks"] == 1
    with pytest.raises(torch._dynamo.exc.Unsupported, match="Skip calling `torch.compiler.disable\\(\\)`d function"):
        torch.compile(lambda x: helper(x) + 1, backend="eager", fullgraph=True)(torch.ones(1))
    assert helper(torch.ones(1)).item() == 2.0 and helper._torchdynamo_disable


def test_explain_counts_the_break():
    out = torch._dynamo.explain(branchy)(torch.ones(2))
    assert (out.graph_count, out.graph_break_count) == (0, 1)
    assert out.break_reasons[0].reason.startswith("Tensor.item")


def test_module_hooks_and_tensor_hooks_run_eagerly_each_call():
    seen = []
    model = torch.nn.Linear(3, 2)
    handle = model.register_forward_hook(lambda m, args, out: seen.append(out.detach().clone()))
    compiled = torch.compile(model, backend="eager")
    for _ in range(2):
        compiled(torch.ones(1, 3))
    captures = stats["captures"]        # (the hook's list guarded, changed again: it settles to run eagerly)
    for _ in range(2):
        compiled(torch.ones(1, 3))
    assert len(seen) == 4 and stats["captures"] == captures
    handle.remove()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="Tensor.register_hook inside a compiled function"):
        torch.compile(lambda x: x.register_hook(lambda g: g), backend="eager", fullgraph=True)(
            torch.ones(1, requires_grad=True))


def _doubled(module, args, out):
    return out * 2


def _shifted(module, args):
    return (args[0] + 1,)


def test_forward_hooks_of_the_programs_own_are_captured_and_guarded_on_being_added_or_removed():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    doubled = model[0].register_forward_hook(_doubled)
    model[2].register_forward_pre_hook(_shifted)
    compiled, x = torch.compile(model), torch.randn(3, 4)
    for _ in range(3):
        torch.testing.assert_close(compiled(x), model(x))
    assert (stats["captures"], stats["graph_breaks"], stats["replays"]) == (1, 0, 2)
    doubled.remove()
    torch.testing.assert_close(compiled(x), model(x))
    called = torch.compile(lambda t: model(t))      # (the compiled module would run a global hook itself too)
    called(x)
    everywhere = torch.nn.modules.module.register_module_forward_hook(_doubled)
    try:
        torch.testing.assert_close(called(x), model(x))
    finally:
        everywhere.remove()
    torch.testing.assert_close(called(x), model(x))
    assert stats["captures"] == 4 and stats["graph_breaks"] == 0      # (the first capture served again)
    model[0].zero_grad()
    compiled(x).sum().backward()
    grad, model[0].weight.grad = model[0].weight.grad, None
    model(x).sum().backward()
    torch.testing.assert_close(grad, model[0].weight.grad)


def test_backward_hooks_and_a_librarys_forward_hooks_are_graph_breaks():
    import functools
    full = torch.nn.Linear(3, 2)
    full.register_full_backward_hook(lambda module, grad_in, grad_out: None)
    partial = torch.nn.Linear(3, 2)
    partial.register_forward_hook(functools.partial(_doubled))
    for model in (full, partial):
        compiled = torch.compile(model)
        for _ in range(2):
            torch.testing.assert_close(compiled(torch.ones(1, 3)), model(torch.ones(1, 3)))
    assert stats["graph_breaks"] == 2


_LIBRARY_HOOKS = """
SCALE = 2.0


def doubled(module, args, output):
    return output * 2


def require_grads(module, args, output):
    output.requires_grad_(True)


def scaled(module, args, output):
    return output * SCALE


def scaling(factor):
    def scaled_by(module, args, output):
        return output * factor
    return scaled_by


def counted(module, args, output, seen=[]):
    seen.append(0)
    return output * seen.__len__()


def reaching(module, args, output):        # (a dunder attribute can reach globals: __init__.__globals__)
    return output * module.__class__.__name__.__len__()
"""


@pytest.fixture
def library_hooks(tmp_path, monkeypatch):
    return fake_library(tmp_path, monkeypatch, "fake_library_hooks", _LIBRARY_HOOKS)


def test_a_librarys_forward_hook_reading_only_its_arguments_is_captured(library_hooks):
    """transformers' gradient_checkpointing_enable() hooks `output.requires_grad_(True)` on the embeddings."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Linear(4, 2))
    model[0].register_forward_hook(library_hooks.require_grads)
    doubled = model[1].register_forward_hook(library_hooks.doubled)
    compiled, ids = torch.compile(model), torch.tensor([[1, 2, 3]])
    for _ in range(3):
        torch.testing.assert_close(compiled(ids), model(ids))
    assert (stats["captures"], stats["graph_breaks"], stats["replays"]) == (1, 0, 2)
    doubled.remove()        # guarded on the hooks as on a program's own
    torch.testing.assert_close(compiled(ids), model(ids))
    assert stats["captures"] == 2 and stats["graph_breaks"] == 0


@pytest.mark.parametrize("hook", ["scaled", "closure", "counted", "reaching"])
def test_a_librarys_forward_hook_reading_a_global_a_closure_a_default_or_a_dunder_is_a_graph_break(
        library_hooks, hook):
    import types

    def made():
        if hook == "closure":
            return library_hooks.scaling(2.0)
        found = getattr(library_hooks, hook)        # a copy of its own: `counted` changes its default list
        return types.FunctionType(found.__code__, found.__globals__, found.__name__,
                                  ([],) if hook == "counted" else found.__defaults__)

    torch.manual_seed(0)
    model, reference = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    reference.load_state_dict(model.state_dict())
    model.register_forward_hook(made())
    reference.register_forward_hook(made())
    compiled = torch.compile(model)
    for scale in (2.0, 3.0, 4.0):
        library_hooks.SCALE = scale     # (what no guard on the library's globals would see)
        torch.testing.assert_close(compiled(torch.ones(1, 3)), reference(torch.ones(1, 3)))
    assert stats["graph_breaks"] >= 1


def test_a_tensor_subclass_input_runs_eagerly_and_keeps_its_type():
    class Tagged(torch.Tensor):
        pass

    x = torch.ones(3).as_subclass(Tagged)
    compiled = torch.compile(lambda t: t * 2, backend="eager")
    for _ in range(2):
        out = compiled(x)
        assert type(out) is Tagged and out.tolist() == [2.0] * 3
    with pytest.raises(torch._dynamo.exc.Unsupported, match="an input of Tensor subclass Tagged"):
        torch.compile(lambda t: t * 2, backend="eager", fullgraph=True)(x)


def test_torch_dynamo_graph_break_runs_the_frame_eagerly_and_raises_under_fullgraph():
    def f(x):
        x = x + 1
        torch._dynamo.graph_break()
        return x * 2

    torch._dynamo.graph_break()         # outside a capture: nothing
    compiled = torch.compile(f, backend="inductor")
    for _ in range(2):
        assert torch.equal(compiled(torch.ones(2)), f(torch.ones(2)))
    assert stats["graph_breaks"] == 1
    with pytest.raises(torch._dynamo.exc.Unsupported, match=r"Call to `torch._dynamo.graph_break\(\)`"):
        torch.compile(f, backend="eager", fullgraph=True)(torch.ones(2))


def test_counters_count_frames_graphs_captured_calls_and_graph_breaks_by_reason():
    from torch._dynamo.utils import counters

    def chain(x):
        return (x * 2).sin() + 1

    counters.clear()
    compiled = torch.compile(chain, backend="aot_eager")
    compiled(torch.ones(3))
    compiled(torch.ones(3))
    torch.compile(branchy, backend="eager")(torch.ones(3))

    def raises(x):
        raise ValueError("the program's own")

    with pytest.raises(ValueError):
        torch.compile(raises)(torch.ones(1))
    assert counters["frames"] == {"total": 3, "ok": 2}
    assert counters["stats"] == {"unique_graphs": 1, "calls_captured": 3}
    [(reason, count)] = counters["graph_break"].items()
    assert count == 1 and "reading a tensor's value" in reason
    torch._dynamo.reset()           # as PyTorch's: the counters stay until the program clears them
    assert counters["frames"]["total"] == 3 and torch._dynamo.utils.counters is counters


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_is_captured_and_each_replay_checks_its_indices_and_offsets(mode):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(10, 4, mode=mode)
    compiled = torch.compile(lambda i, o: bag(i, o).sum())
    offsets = torch.tensor([0, 4])
    for indices in (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 2, 4, 6, 8, 3, 2, 1])):
        compiled(indices, offsets).backward()
        got, bag.weight.grad = bag.weight.grad, None
        bag(indices, offsets).sum().backward()
        assert torch.equal(got, bag.weight.grad)
        bag.weight.grad = None
    assert stats["graph_breaks"] == 0 and stats["replays"] == 1
    with pytest.raises(RuntimeError, match=r"Index 7 of input takes value 12 which is not in the valid range \[0, 10\)"):
        compiled(torch.tensor([1, 2, 4, 5, 4, 3, 2, 12]), offsets)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        compiled(torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([1, 4]))
    assert stats["captures"] == 1


def test_the_same_break_a_third_time_with_a_counter_changed_runs_eagerly_without_capturing_again():
    class Counting(torch.nn.Module):
        """A metric's update (torchmetrics: a bincount of the data, a count kept on the module)."""

        def __init__(self):
            super().__init__()
            self.updates = 0

        def forward(self, x):
            self.updates += 1
            return torch.bincount(x).float().sum() + self.updates

    eager_model, compiled_model = Counting(), Counting()
    compiled = torch.compile(compiled_model)
    for k in range(6):
        x = torch.tensor([k % 3, 1, 2])
        assert compiled(x).item() == eager_model(x).item()
    assert compiled_model.updates == 6
    assert stats["captures"] == 3 and stats["graph_breaks"] == 3      # then eager, no capture per call

    class Gated(torch.nn.Module):
        def forward(self, x):
            return x.sum().item() if self.training else x * 2

    gated = Gated()
    compiled = torch.compile(gated)
    for training in (True, True, False, True, False):       # the flag that decides the break stays guarded
        gated.train(training)
        x = torch.ones(2)
        got = compiled(x)
        assert got == 2.0 if training else torch.equal(got, x * 2)
    assert stats["captures"] == 5

    def scaled(x, mode, settings={"scale": 1}):       # a setting changed once between two breaks stays guarded
        return x.sum().item() * settings["scale"] if mode == "item" else x * 2

    compiled = torch.compile(scaled)
    compiled(torch.ones(2), "item")
    scaled.__defaults__[0]["scale"] = 2
    assert compiled(torch.ones(2), "item") == 4.0
    captures = stats["captures"]
    for _ in range(3):
        assert torch.equal(compiled(torch.ones(2), "double"), torch.full((2,), 2.0))
    assert stats["captures"] == captures + 1        # compiled once for "double", then replayed
