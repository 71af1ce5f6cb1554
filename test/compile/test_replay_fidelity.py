"""A replayed graph behaves as the eager call would have: aliased arguments, objects and registries the call read,
tensors made inside, data-dependent sizes, custom autograd Functions, requires_grad set inside, gradients of any
layout and inputs of any layout through AOT autograd, .grad read from arguments, argument names, the
accuracy of fused sums, buffers registered and parameters made inside forward. (Each case was a silent
difference before.)"""
from dataclasses import dataclass

import numpy as np
import pytest

import torch
import torch.nn as nn
from torch._dynamo.eval_frame import stats


def twice(compiled, *args):
    """The replay's result (the first call is captured, eagerly)."""
    compiled(*args)
    return compiled(*args)


SCALE = 2.0


def test_the_same_tensor_passed_twice_is_guarded_as_one():
    compiled = torch.compile(lambda a, b: a + b, backend="eager")
    x, y = torch.ones(2), torch.full((2,), 10.0)
    compiled(x, x)
    assert compiled(x, y).tolist() == [11.0, 11.0]


def test_data_and_tensors_made_inside_are_not_baked_in():
    data = torch.compile(lambda x: x.data * 2, backend="eager")
    data(torch.zeros(2))
    assert data(torch.ones(2)).tolist() == [2.0, 2.0]

    def accumulate(x):
        t = torch.tensor([0.0, 0.0])
        t.add_(x)
        return t

    compiled = torch.compile(accumulate)
    assert [compiled(torch.ones(2)).tolist() for _ in range(3)] == [[1.0, 1.0]] * 3


def test_a_storages_bytes_read_in_the_call_are_not_baked_in():
    def scaled(x):
        storage = x.untyped_storage()
        return x * storage.tolist()[0] + storage[1] + bytes(storage)[0]

    compiled = torch.compile(scaled)
    for k in range(3):
        x = torch.tensor([k + 1, 2], dtype=torch.uint8)
        assert torch.equal(compiled(x), scaled(x))
    with pytest.raises(torch._dynamo.exc.Unsupported, match="reading a storage's bytes"):
        torch.compile(scaled, fullgraph=True)(torch.ones(2, dtype=torch.uint8))


def test_sizes_that_depend_on_the_data_are_graph_breaks():
    counted = torch.compile(lambda x: x * x.nonzero().shape[0], backend="eager")
    counted(torch.tensor([1.0, 0.0, 0.0]))
    assert counted(torch.tensor([1.0, 1.0, 1.0])).tolist() == [3.0] * 3
    masked = torch.compile(lambda x: x[x > 0] * 2 + 1)
    masked(torch.tensor([1.0, -1.0, -2.0]))
    assert masked(torch.tensor([1.0, 2.0, 3.0])).tolist() == [3.0, 5.0, 7.0]
    with pytest.raises(torch._dynamo.exc.Unsupported, match="a result whose size depends on the data"):
        torch.compile(lambda x: x.nonzero(), fullgraph=True)(torch.ones(2))


def test_globals_objects_and_module_registries_the_call_read_are_guarded():
    compiled = torch.compile(lambda x: x * SCALE, backend="eager")
    for _ in range(3):
        compiled(torch.ones(1))
    assert stats["captures"] == 1 and stats["replays"] == 2

    @dataclass
    class Config:
        scale: float

    config = Config(2.0)
    scaled = torch.compile(lambda x, c: x * c.scale, backend="eager")
    scaled(torch.ones(1), config)
    config.scale = 5.0
    assert scaled(torch.ones(1), config).tolist() == [5.0]

    class Activated(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.relu

        def forward(self, x):
            return self.act(x)

    model = Activated()
    module = torch.compile(model, backend="eager")
    x = torch.tensor([1.0, -2.0])
    module(x)
    model.act = torch.neg
    assert module(x).tolist() == [-1.0, 2.0]
    stack = nn.Sequential(nn.Linear(2, 3))
    grown = torch.compile(stack, backend="eager")
    grown(torch.ones(1, 2))
    stack.append(nn.Linear(3, 1))
    assert grown(torch.ones(1, 2)).shape == (1, 1)


def test_a_custom_autograd_function_keeps_its_backward():
    class StraightThrough(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, grad):
            return grad * 10

    for backend in ("eager", "aot_eager", "inductor"):
        torch.compiler.reset()
        compiled = torch.compile(lambda x: StraightThrough.apply(x) + x, backend=backend)
        for _ in range(2):
            x = torch.tensor([0.3, 1.7], requires_grad=True)
            compiled(x).sum().backward()
            assert x.grad.tolist() == [11.0, 11.0], backend
        # one node applies the Function: compiled, no graph break
        assert stats["graph_breaks"] == 0 and stats["replays"] == 1, backend


def test_requires_grad_set_inside_and_enable_grad_under_no_grad_are_kept():
    made = torch.compile(lambda x: x * torch.ones(2, requires_grad=True), backend="eager")
    assert [made(torch.ones(2)).requires_grad for _ in range(3)] == [True] * 3

    def f(x):
        with torch.enable_grad():
            return (x * 2).sin()

    compiled = torch.compile(f)
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert [compiled(x).requires_grad for _ in range(3)] == [True] * 3


def test_gradients_of_any_layout_and_inputs_of_any_layout_through_aot_autograd():
    transposed = torch.compile(lambda x: (x * 3).t())
    for _ in range(2):
        x = torch.ones(2, 3, requires_grad=True)
        transposed(x).backward(torch.arange(6.0).reshape(3, 2))
        assert x.grad.tolist() == [[0.0, 6.0, 12.0], [3.0, 9.0, 15.0]]
    flattened = torch.compile(lambda x: (x * 3).reshape(-1))
    for _ in range(2):
        x = torch.ones(2, 3, requires_grad=True)
        flattened(x).sum().backward()            # an expanded (stride 0) incoming gradient
        assert x.grad.tolist() == [[3.0] * 3] * 2
    w = torch.ones(3, requires_grad=True)
    affine = torch.compile(lambda x: x * w + 1)
    for x in (torch.arange(12.0).reshape(2, 6)[:, ::2], torch.arange(3.0).expand(2, 3)):
        torch.testing.assert_close(twice(affine, x), x * w + 1)


def test_grad_read_first_or_from_an_argument_is_read_at_each_call():
    w = nn.Parameter(torch.zeros(2))
    w.grad = torch.full((2,), 10.0)
    first = torch.compile(lambda x: w.grad - x, backend="eager")
    assert twice(first, torch.ones(2)).tolist() == [9.0, 9.0]

    def doubled(p):
        return p.grad * 2 + p * 0

    compiled = torch.compile(doubled, backend="eager")
    p1, p2 = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    p1.grad, p2.grad = torch.ones(2), torch.full((2,), 7.0)
    compiled(p1)
    compiled(p1)
    assert compiled(p2).tolist() == [14.0, 14.0]


def test_numpy_arguments_and_clashing_parameter_names_work():
    compiled = torch.compile(lambda x, a: x * float(a.sum()), backend="eager")
    x = torch.ones(2)
    compiled(x, np.ones(2))
    assert compiled(x, np.full(2, 2.0)).tolist() == [4.0, 4.0]

    def clash(x_0, x):
        return x_0 + x[0] + x[1]

    assert twice(torch.compile(clash), torch.ones(1), [torch.ones(1), torch.ones(1)]).tolist() == [3.0]


def test_fused_sums_keep_eagers_accuracy():
    x = torch.rand(1 << 22)
    compiled = torch.compile(lambda x: (x * 1.0).sum())
    exact = np.sum(x.numpy().astype(np.float64))
    got = float(twice(compiled, x))
    assert abs(got - exact) / exact < 1e-7


def test_a_buffer_registered_inside_forward_is_registered_again_with_each_replays_value():
    class Running(nn.Module):
        def forward(self, x):
            self.register_buffer("last", x * 2, persistent=False)
            return x + 1

    model = Running()
    compiled = torch.compile(model)
    for value in (1.0, 2.0, 3.0):
        compiled(torch.full((2,), value))
        assert model.last.tolist() == [2 * value] * 2 and "last" in model._buffers


def test_a_new_parameter_assigned_inside_forward_is_a_graph_break():
    class Fresh(nn.Module):
        def forward(self, x):
            self.w = nn.Parameter(torch.randn(2))
            return x * self.w

    model = Fresh()
    compiled = torch.compile(model)
    weights = set()
    for _ in range(3):
        out = compiled(torch.ones(2))
        weights.add(id(model.w))
        assert torch.equal(out, model.w.detach())
    assert len(weights) == 3 and stats["graph_breaks"] >= 1 and stats["replays"] == 0


def test_the_generators_state_set_inside_is_a_graph_break():
    def f(x):
        state = torch.get_rng_state()
        a = torch.rand(3) + x
        torch.set_rng_state(state)
        return a - torch.rand(3)        # the same draws again: zero

    compiled = torch.compile(f)
    for _ in range(3):
        assert torch.equal(compiled(torch.zeros(3)), torch.zeros(3))
    assert stats["graph_breaks"] >= 1


def test_a_generator_state_the_call_is_given_is_set_at_each_call_even_when_it_was_the_current_one():
    """Equal to the generator's state at the capture, but a state from outside the call: a graph break."""
    def f(state, x):
        torch.set_rng_state(state)
        return x + torch.rand(3)

    torch.manual_seed(0)
    state = torch.get_rng_state()
    compiled = torch.compile(f)
    for seed in range(3):
        torch.manual_seed(seed)
        got, after = compiled(state, torch.zeros(3)), torch.rand(2)
        torch.manual_seed(seed)
        expected = f(state, torch.zeros(3))
        assert torch.equal(got, expected) and torch.equal(after, torch.rand(2))
    assert stats["graph_breaks"] >= 1


@pytest.mark.parametrize("p", [0.0, 0.3])
def test_a_whole_step_checkpointing_a_block_compiles_unless_its_recomputation_draws(p):
    """torch.utils.checkpoint's recomputation sets the generator's state back to the forward's (under fork_rng):
    where the block draws nothing that sets the state it has, a no-op at each replay too, so the step compiles;
    with dropout inside, the state set is a graph break."""
    from torch.utils.checkpoint import checkpoint

    def make():
        torch.manual_seed(0)
        return torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)

    def stepper(first, second):
        def step(x):
            hidden = checkpoint(lambda t: torch.nn.functional.dropout(first(t).tanh(), p), x, use_reentrant=False)
            loss = second(hidden).square().sum()
            loss.backward()
            return loss
        return step

    mine, theirs = make(), make()
    compiled, eager = torch.compile(stepper(*mine)), stepper(*theirs)
    for n in range(3):
        x = torch.linspace(-1, 1, 8).reshape(2, 4) * (n + 1)
        torch.manual_seed(n)
        got = compiled(x)
        torch.manual_seed(n)
        torch.testing.assert_close(got, eager(x))
        for a, b in zip(mine, theirs):
            torch.testing.assert_close(a.weight.grad, b.weight.grad)
            torch.testing.assert_close(a.bias.grad, b.bias.grad)
    assert (stats["graph_breaks"] >= 1) if p > 0 else (stats["graph_breaks"] == 0 and stats["replays"] >= 1)


def test_a_parametrized_weight_is_computed_once_per_call_as_eager():
    # the guards never read a computed property (reading spectral_norm's weight runs its power iteration)
    def make():
        torch.manual_seed(0)
        return nn.utils.parametrizations.spectral_norm(nn.Linear(4, 4))

    eager, model = make(), make()
    compiled = torch.compile(lambda x: model(x))
    for _ in range(3):
        torch.testing.assert_close(compiled(torch.ones(1, 4)), eager(torch.ones(1, 4)))
    torch.testing.assert_close(model.parametrizations.weight[0]._u, eager.parametrizations.weight[0]._u)


def test_a_forward_hook_added_after_the_capture_runs():
    model = nn.Linear(2, 2)
    compiled = torch.compile(model)
    x = torch.ones(1, 2)
    plain = twice(compiled, x)
    model.register_forward_hook(lambda mod, args, out: out * 10)
    torch.testing.assert_close(compiled(x), plain * 10)


@dataclass
class _Output:
    loss: torch.Tensor
    note: str


class _Holder:
    def __init__(self, value):
        self.value = value


def test_a_result_object_holding_tensors_is_made_anew_holding_each_replays_tensors():
    for wrap in (lambda y: _Output(y, "ok"), _Holder):
        compiled = torch.compile(lambda x, wrap=wrap: wrap(x * 2))
        results = []
        for k in range(3):
            x = torch.full((3,), float(k))
            got = compiled(x)
            assert torch.equal(got.loss if isinstance(got, _Output) else got.value, x * 2)
            results.append(got)
        assert len({id(r) for r in results}) == 3 and type(results[2]) is type(results[0])
    assert stats["graph_breaks"] == 0 and stats["replays"] >= 4


def test_a_compiled_function_under_vmap_or_forward_ad_runs_as_it_is():
    from torch.func import jacrev, jvp, vmap
    f = lambda x: (x.sin() * x).sum()                                   # noqa: E731
    compiled = torch.compile(f)
    for scale in (1.0, 2.0, 3.0):
        x = torch.randn(4, 3) * scale
        torch.testing.assert_close(vmap(compiled)(x), vmap(f)(x))
    x = torch.randn(3)
    torch.testing.assert_close(jacrev(torch.compile(torch.sin))(x), torch.diag(x.cos()))
    torch.testing.assert_close(jvp(compiled, (x,), (torch.ones(3),)), jvp(f, (x,), (torch.ones(3),)))


def test_a_method_patched_on_the_instance_or_the_class_is_called():
    class Scaled(nn.Module):
        def helper(self, x):
            return x * 2

        def forward(self, x):
            return self.helper(x) + 1

    model = Scaled()
    compiled = torch.compile(model)
    x = torch.ones(2)
    assert twice(compiled, x).tolist() == [3.0, 3.0]
    model.helper = lambda x: x * 10
    assert compiled(x).tolist() == [11.0, 11.0]
    del model.helper
    Scaled.helper = lambda self, x: x * 100
    assert compiled(x).tolist() == [101.0, 101.0]


def test_an_explicit_generator_draws_as_eagers_at_each_call():
    def f(x, generator):
        return x + torch.randn(x.shape, generator=generator), torch.multinomial(x.softmax(0), 2, generator=generator)

    compiled = torch.compile(f)
    ours, theirs = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    x = torch.arange(4.0)
    for _ in range(3):
        for got, want in zip(compiled(x, ours), f(x, theirs)):
            assert torch.equal(got, want)
    assert stats["replays"] == 2


def test_a_tensor_state_reassigned_in_forward_is_read_at_each_call():
    class Average(nn.Module):
        def __init__(self, buffer):
            super().__init__()
            if buffer:
                self.register_buffer("avg", torch.zeros(3))
            else:
                self.avg = torch.zeros(3)

        def forward(self, x):
            self.avg = self.avg * 0.9 + x.mean(0) * 0.1
            return x - self.avg

    for buffer in (True, False):
        torch._dynamo.reset()
        model, reference = Average(buffer), Average(buffer)
        compiled = torch.compile(model)
        for k in range(5):
            x = torch.randn(4, 3)
            torch.testing.assert_close(compiled(x), reference(x))
            torch.testing.assert_close(model.avg, reference.avg)
        assert stats["replays"] == 4 and stats["captures"] == 1


def test_values_an_operators_own_kernel_reads_are_no_graph_break():
    # integer floor division checks its divisor for zeros: the check runs again with the operator at each replay
    compiled = torch.compile(lambda a, b: a // b + 1, fullgraph=True)
    a, b = torch.randint(-50, 50, (4, 5)), torch.randint(1, 6, (4, 5))
    assert torch.equal(twice(compiled, a, b), a // b + 1)
    b[0, 0] = 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        compiled(a, b)


def test_a_branch_on_torch_equal_is_a_graph_break():
    # equal reads the data inside the operator and returns a Python bool the program branches on
    compiled = torch.compile(lambda x, y: x * 2 if torch.equal(x, y) else x * 3)
    x = torch.ones(3)
    assert compiled(x, x.clone()).tolist() == [2.0] * 3
    assert compiled(x, x * 5).tolist() == [3.0] * 3
    assert stats["graph_breaks"] >= 1


class _Slotted:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def test_result_objects_holding_tensors_deep_or_in_slots_are_graph_breaks():
    for wrap in (_Slotted, lambda y: _Holder(_Holder(_Holder(y)))):
        compiled = torch.compile(lambda x, wrap=wrap: wrap(x + 1))
        for k in range(3):
            got = compiled(torch.full((2,), float(k)))
            while not isinstance(got, torch.Tensor):
                got = got.value
            assert got.tolist() == [k + 1.0] * 2


def test_a_state_also_read_through_another_name_keeps_that_names_tensor():
    class Aliased(nn.Module):
        def __init__(self):
            super().__init__()
            self.h = torch.zeros(3)
            self.first = self.h                     # the first state, kept

        def forward(self, x):
            y = self.first + x
            self.h = self.h * 0.5 + x
            return y

    model, reference = Aliased(), Aliased()
    compiled = torch.compile(model)
    for k in range(4):
        x = torch.full((3,), float(k + 1))
        torch.testing.assert_close(compiled(x), reference(x))
        torch.testing.assert_close(model.h, reference.h)


def test_a_state_read_for_its_layout_alone_and_reassigned_replays():
    class Reset(nn.Module):
        def __init__(self):
            super().__init__()
            self.h = torch.zeros(3)

        def forward(self, x):
            self.h = torch.zeros(self.h.shape) + x
            return self.h * 2

    model = Reset()
    compiled = torch.compile(model)
    for k in range(4):
        assert compiled(torch.full((3,), float(k))).tolist() == [2.0 * k] * 3
    assert stats["captures"] == 1


def test_a_library_modules_forward_replaced_on_the_instance_is_called():
    # as accelerate's and PEFT's hooks replace forward
    linear = nn.Linear(2, 2)
    model = nn.Sequential(linear, nn.ReLU())
    compiled = torch.compile(model)
    x = torch.ones(1, 2)
    twice(compiled, x)
    linear.forward = lambda inp: inp * 0 - 1
    assert compiled(x).tolist() == [[0.0, 0.0]]


def test_the_fresh_copy_pass_follows_a_copy_of_an_elided_copy():
    from torch._dynamo.graph_passes import elide_fresh_copies
    from torch.fx.graph import Graph
    aten = torch.ops.aten
    graph = Graph()
    meta = ((3,), (1,), torch.float32, torch.device("cpu"), 0)
    x = graph.placeholder("x")
    value = graph.call_function(aten.mul.Tensor, (x, x))
    fresh1 = graph.call_function(aten.empty_like.default, (x,))
    copy1 = graph.call_function(aten.copy_.default, (fresh1, value))
    fresh2 = graph.call_function(aten.empty_like.default, (x,))
    copy2 = graph.call_function(aten.copy_.default, (fresh2, copy1))
    for node in (x, value, fresh1, copy1, fresh2, copy2):
        node.meta["example"] = meta
    graph.output((copy2,))
    assert elide_fresh_copies(graph) == 2
    assert [n.target for n in graph.nodes if n.op == "call_function"] == [aten.mul.Tensor]
    assert list(graph.nodes)[-1].args[0] == (value,)


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
@pytest.mark.parametrize("make", [lambda x: torch.tensor([x[0], x[1]]), lambda x: torch.tensor(x),
                                  lambda x: torch.tensor([[x.sum()], [x.max()]])],
                         ids=["a list of elements", "a tensor", "nested reductions"])
def test_torch_tensor_of_tensors_reads_their_values_at_each_call(make):
    compiled = torch.compile(lambda x: make(x) * 2)
    for value in (1.0, 2.0, 3.0):
        x = torch.full((3,), value)
        torch.testing.assert_close(compiled(x), make(x) * 2)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="torch.tensor of tensors"):
        torch.compile(lambda x: make(x) * 2, fullgraph=True)(torch.ones(3))


class _Scaler:
    def __init__(self):
        self.k, self.shift, self.calls = 1.0, torch.zeros(3), 0

    def scale(self, x):
        return x * self.k + self.shift

    def count(self, x):
        self.calls += 1
        return x * self.calls

    def __call__(self, x):
        return x * self.k


def test_a_compiled_bound_method_or_callable_object_sees_its_objects_attributes_at_each_call():
    plain = _Scaler()
    method, instance = torch.compile(plain.scale), torch.compile(plain)
    x = torch.randn(3)
    for k in (1.0, 2.0, 3.0):
        plain.k, plain.shift = k, torch.full((3,), -k)
        torch.testing.assert_close(method(x), x * k - k)
        torch.testing.assert_close(instance(x), x * k)


def test_a_compiled_bound_method_that_changes_its_object_does_so_at_each_call():
    counter, reference = _Scaler(), _Scaler()
    counting = torch.compile(counter.count)
    ones = torch.ones(1)
    assert [counting(ones).item() for _ in range(4)] == [reference.count(ones).item() for _ in range(4)]
    assert counter.calls == 4


def test_a_leaf_updated_in_place_under_no_grad_still_gives_a_differentiable_result():
    def step(w, g):
        with torch.no_grad():
            w.sub_(0.1 * g)
        return (w * 2).sum()

    compiled = torch.compile(step)
    for seed in range(3):
        torch.manual_seed(seed)
        w, g = torch.randn(3, requires_grad=True), torch.randn(3)
        w_eager = w.detach().clone().requires_grad_()
        out, expected = compiled(w, g), step(w_eager, g)
        assert out.requires_grad and out.grad_fn is not None
        out.backward()
        expected.backward()
        torch.testing.assert_close(out, expected)
        torch.testing.assert_close(w.grad, w_eager.grad)
        torch.testing.assert_close(w.detach(), w_eager.detach())


def test_a_compiled_generator_function_runs_as_it_is():
    def powers(x):
        for k in range(3):
            yield x * k

    compiled = torch.compile(powers)
    for value in (1.0, 2.0, 3.0):
        x = torch.full((2,), value)
        assert [t.tolist() for t in compiled(x)] == [t.tolist() for t in powers(x)]
    with pytest.raises(torch._dynamo.exc.Unsupported, match="generator"):
        torch.compile(powers, fullgraph=True)(torch.ones(2))

    class Powers:
        def __call__(self, x):
            yield from powers(x)

    compiled_object = torch.compile(Powers())
    for value in (1.0, 2.0):
        x = torch.full((2,), value)
        assert [t.tolist() for t in compiled_object(x)] == [t.tolist() for t in powers(x)]


def test_a_tensor_pickled_inside_is_read_at_each_call():
    import io
    import pickle

    def pickled(x):
        return pickle.loads(pickle.dumps(x)) * 2

    def saved(x):
        buffer = io.BytesIO()
        torch.save(x, buffer)
        buffer.seek(0)
        return torch.load(buffer) * 2

    for fn in (pickled, saved):
        compiled = torch.compile(fn)
        for start in range(3):
            x = torch.arange(3.0) + start
            torch.testing.assert_close(compiled(x), x * 2)


def test_print_and_log_records_inside_are_graph_breaks_so_each_call_emits_them(capsys, caplog):
    import logging
    log = logging.getLogger("test_replay_fidelity")

    def printing(x):
        print("step")
        return x * 2

    def logging_(x):
        log.warning("step")
        log.debug("not emitted: no record, no break")
        return x + 1

    for fn in (printing, logging_):
        compiled = torch.compile(fn)
        for _ in range(3):
            compiled(torch.ones(1))
    assert capsys.readouterr().out.count("step") == 3
    assert [r.getMessage() for r in caplog.records].count("step") == 3
    assert stats["graph_breaks"] == 2
    quiet = torch.compile(lambda x: (log.debug("off"), x * 3)[1])
    for _ in range(3):
        quiet(torch.ones(1))
    assert stats["graph_breaks"] == 2


def test_an_environment_variable_read_inside_is_guarded_and_the_clock_is_read_at_each_call(monkeypatch):
    import os
    import time

    scaled = torch.compile(lambda x: x * float(os.environ.get("EMBER_TEST_SCALE", "1")))
    for value in ("2", "3", "2"):
        monkeypatch.setenv("EMBER_TEST_SCALE", value)
        assert scaled(torch.ones(1)).item() == float(value)
    monkeypatch.delenv("EMBER_TEST_SCALE")
    assert scaled(torch.ones(1)).item() == 1.0
    clocked = torch.compile(lambda x: x * 0 + time.perf_counter_ns() % 1000003)
    assert len({clocked(torch.ones(1)).item() for _ in range(4)}) > 1


def test_a_returned_closure_over_a_computed_tensor_is_the_calls_own():
    def make_adder(x):
        y = x * 2
        return lambda z: z + y

    compiled = torch.compile(make_adder)
    for value in (1.0, 2.0, 3.0):
        x = torch.full((2,), value)
        torch.testing.assert_close(compiled(x)(torch.zeros(2)), make_adder(x)(torch.zeros(2)))


def test_the_clock_and_randomness_under_any_name_are_read_at_each_call():
    import datetime
    import os
    import uuid
    from time import perf_counter_ns

    def under_imported_name(x):
        return x * 0 + perf_counter_ns() % 1000003

    def through_datetime(x):
        return x * 0 + datetime.datetime.now().microsecond

    def from_the_system(x):
        return x * 0 + os.urandom(2)[0] * 256 + os.urandom(2)[1]

    def through_a_library(x):
        return x * 0 + uuid.uuid4().int % 1000003

    for fn in (under_imported_name, through_datetime, from_the_system, through_a_library):
        compiled = torch.compile(fn)
        assert len({compiled(torch.ones(1)).item() for _ in range(6)}) > 1, fn.__name__


def test_writes_to_a_stream_or_file_inside_happen_at_each_call(tmp_path):
    import io
    import sys

    stream = io.StringIO()
    written = torch.compile(lambda x: (stream.write("s"), x * 2)[1])
    to_stdout = torch.compile(lambda x: (sys.stdout.write(""), x + 1)[1])
    with open(tmp_path / "log.txt", "w") as file:
        to_file = torch.compile(lambda x: (file.write("f"), x - 1)[1])
        for _ in range(3):
            written(torch.ones(1)), to_stdout(torch.ones(1)), to_file(torch.ones(1))
    assert stream.getvalue() == "sss"
    assert (tmp_path / "log.txt").read_text() == "fff"
    assert stats["graph_breaks"] == 3


def test_attributes_the_program_set_on_a_tensor_argument_are_guarded():
    scaled = torch.compile(lambda x: x * x.scale)
    x = torch.ones(2)
    x.scale = 2.0
    assert twice(scaled, x).tolist() == [2.0, 2.0]
    x.scale = 5.0
    assert scaled(x).tolist() == [5.0, 5.0]
    plain = torch.compile(lambda x: x * 3)
    for _ in range(3):          # a tensor without attributes of the program's: no guard to pass
        plain(torch.ones(2))
    assert stats["recompiles"] == 1
    private = torch.compile(lambda x: x * x._scale)     # a name with a leading underscore is the program's too
    x._scale = 2.0
    assert twice(private, x).tolist() == [2.0, 2.0]
    x._scale = 3.0
    assert private(x).tolist() == [3.0, 3.0]
    weight = torch.ones(2, requires_grad=True)      # Ember's own state under such names moves without a guard
    doubled = torch.compile(lambda w: (w * 2).sum())
    before = stats["recompiles"]
    for _ in range(3):
        doubled(weight).backward()
    assert stats["recompiles"] == before and weight.grad.tolist() == [6.0, 6.0]


class _Settings:
    pass


def test_objects_and_containers_kept_on_a_tensor_argument_are_guarded_on_what_they_hold():
    def f(x):
        return x * x.meta.scale + x._private.offset + x.table["shift"]

    compiled = torch.compile(f)
    x = torch.ones(2)
    x.meta, x._private, x.table = _Settings(), _Settings(), {"shift": 0.0}
    x.meta.scale, x._private.offset = 2.0, 1.0
    assert twice(compiled, x).tolist() == [3.0, 3.0]
    before = stats["recompiles"]
    for change in (lambda: setattr(x.meta, "scale", 5.0), lambda: setattr(x._private, "offset", -1.0),
                   lambda: x.table.update(shift=10.0)):
        change()
        assert compiled(x).tolist() == f(x).tolist()
    assert stats["recompiles"] == before + 3
    assert twice(compiled, x).tolist() == [14.0, 14.0] and stats["recompiles"] == before + 3


def test_what_the_program_keeps_on_a_modules_parameters_and_tensors_is_guarded():
    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(3, 3)
            self.linear.weight.scale = 2.0
            self.offsets = torch.ones(3)
            self.offsets.table = {"shift": 1.0}

        def forward(self, x):
            return self.linear(x) * self.linear.weight.scale + self.offsets.table["shift"]

    model = Scaled()
    compiled = torch.compile(model)
    x = torch.randn(2, 3)
    torch.testing.assert_close(twice(compiled, x), model(x))
    before = stats["recompiles"]
    for change in (lambda: setattr(model.linear.weight, "scale", 5.0), lambda: model.offsets.table.update(shift=3.0),
                   lambda: setattr(model.linear.weight, "meta", _Settings())):     # (meta: never read)
        change()
        torch.testing.assert_close(compiled(x), model(x))
    assert stats["recompiles"] == before + 2
    torch.testing.assert_close(twice(compiled, x), model(x))
    assert stats["recompiles"] == before + 2


def test_what_a_loop_keeps_on_parameters_and_arguments_without_the_call_reading_it_captures_once():
    model = torch.nn.Linear(3, 3)
    model.weight.step, model.weight.stats, model.bias._history = 0, {"grad_norm": 0.0}, []
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    before = stats["captures"]
    for _ in range(10):
        compiled(torch.randn(4, 3)).sum().backward()
        model.weight.stats["grad_norm"] = model.weight.grad.norm().item()
        model.bias._history.append(1)
        optimizer.step()
        optimizer.zero_grad()
        model.weight.step += 1
    tagged = torch.compile(lambda x: x * 2)
    x = torch.ones(2)
    x.seen = {"calls": 0}
    for _ in range(3):
        tagged(x)
        x.seen["calls"] += 1
    assert stats["captures"] - before == 2


def test_attributes_of_parameters_closures_and_defaults_the_call_reads_are_guarded():
    class Reads(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(1, 1)
            self.linear.weight.meta = _Settings()
            self.linear.weight.meta.scale = 2.0

        def forward(self, x):
            return x * next(iter(self.parameters())).meta.scale

    def make():
        held = torch.ones(1)
        held.factor = 2.0
        return (lambda x: x * held.factor), held

    default = torch.ones(1)
    default.factor = 2.0

    def with_default(x, t=default):
        return x * t.factor

    model = Reads()
    closure, held = make()
    for f in (model, closure, with_default):
        compiled = torch.compile(f)
        for k in range(3):
            model.linear.weight.meta.scale = held.factor = default.factor = 2.0 + k
            torch.testing.assert_close(compiled(torch.ones(1)), f(torch.ones(1)))


def test_attributes_read_by_computed_names_are_guarded_and_a_counter_named_as_a_method_is_not():
    def by_name(x, name):
        return x * getattr(x, name)

    compiled = torch.compile(by_name)
    x = torch.ones(2)
    for k in range(3):
        x.scale = float(k)
        assert compiled(x, "scale").tolist() == [float(k)] * 2
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters())

    def train(x):
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()        # (a method named as the counter below)

    step = torch.compile(train)
    before = stats["captures"]
    for k in range(6):
        for p in model.parameters():
            p.step = k
        step(torch.randn(2, 4))
    assert stats["captures"] - before <= 2
    called = torch.compile(lambda t: t * t.factor())       # a callable attribute, read by a method call
    t = torch.ones(2)
    for k in range(3):
        t.factor = lambda k=k: float(k)
        assert called(t).tolist() == [float(k)] * 2


def test_the_pause_profiling_idiom_inside_a_compiled_function_works():
    import sys

    def paused(x):
        previous = sys.getprofile()
        sys.setprofile(None)
        y = x * 2
        sys.setprofile(previous)
        return y + 1

    events = []
    sys.setprofile(lambda frame, event, arg: events.append(event))
    try:
        compiled = torch.compile(paused)
        for _ in range(3):
            assert compiled(torch.ones(2)).tolist() == [3.0, 3.0]
    finally:
        sys.setprofile(None)
    assert events


def test_a_container_on_a_tensor_too_large_or_deep_to_guard_runs_eagerly_and_stays_right():
    x = torch.ones(1)
    x.table = {f"k{j}": float(j) for j in range(600)}
    deep = _Settings()
    deep.scale, level = 2.0, deep
    for _ in range(5):
        outer = _Settings()
        outer.child, level = level, outer
    x.tree = level
    wide = torch.compile(lambda x: x * x.table["k1"])
    nested = torch.compile(lambda x: x * x.tree.child.child.child.child.child.scale)
    for k in range(3):
        x.table["k1"], deep.scale = 1.0 + k, 2.0 + k
        assert wide(x).item() == 1.0 + k and nested(x).item() == 2.0 + k


def test_an_object_on_a_tensor_argument_changed_by_the_call_is_changed_at_every_call():
    def count(x):
        x.meta.calls += 1
        return x * 2

    compiled = torch.compile(count)
    x = torch.ones(2)
    x.meta = _Settings()
    x.meta.calls = 0
    for _ in range(4):
        assert compiled(x).tolist() == [2.0, 2.0]
    assert x.meta.calls == 4


def test_embers_and_dynamos_own_tensor_state_moves_without_a_guard():
    doubled = torch.compile(lambda w: (w * 2).sum())
    w = torch.ones(3, requires_grad=True)
    torch._dynamo.mark_dynamic(w, 0)            # (a set under _dynamo_dynamic_indices)
    view = w[1:]                                # (its version under _view_version)
    doubled(w).backward()
    doubled(view).backward()
    before = stats["recompiles"]
    for _ in range(3):
        doubled(w).backward()
        doubled(view).backward()
    assert stats["recompiles"] == before and w.grad.tolist() == [8.0, 16.0, 16.0]


def test_a_storage_offset_the_program_reads_is_guarded_and_otherwise_views_at_any_offset_replay():
    base = torch.arange(10.0)
    offset = torch.compile(lambda x: x * x.storage_offset())
    for start in (1, 1, 2, 3):
        torch.testing.assert_close(offset(base[start:start + 4]), base[start:start + 4] * start)
    doubled = torch.compile(lambda x: x * 2)
    before = stats["recompiles"]
    for start in range(4):
        torch.testing.assert_close(doubled(base[start:start + 4]), base[start:start + 4] * 2)
    assert stats["recompiles"] == before


def _distinct(compiled, calls=5):
    return len({compiled(torch.ones(1)).item() for _ in range(calls)}) > 1


def test_the_clock_kept_in_a_container_an_attribute_or_a_partial_and_randomness_a_library_draws_are_read_each_call():
    import functools
    import random
    import time

    clocks = {"now": time.perf_counter_ns}

    class Timed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.clock = time.perf_counter_ns

        def forward(self, x):
            return x * 0 + self.clock() % 1000003

    ticking = functools.partial(time.perf_counter_ns)
    system = random.SystemRandom()
    for fn in (lambda x: x * 0 + clocks["now"]() % 1000003, Timed(), lambda x: x * 0 + ticking() % 1000003,
               lambda x: x * 0 + int(system.random() * 1000003), lambda x: x * 0 + float(np.random.default_rng().random())):
        assert _distinct(torch.compile(fn)), fn


def test_a_librarys_writes_for_the_program_happen_at_each_call():
    import io
    import json
    import os
    import pickle

    text, data = io.StringIO(), io.BytesIO()
    read_end, write_end = os.pipe()
    writers = [lambda x: (json.dump({"k": 1}, text), x * 2)[1], lambda x: (pickle.dump(1, data), x * 2)[1],
               lambda x: (os.write(write_end, b"o"), x * 2)[1]]
    for fn in writers:
        compiled = torch.compile(fn)
        for _ in range(3):
            compiled(torch.ones(1))
    os.close(write_end)
    assert text.getvalue() == '{"k": 1}' * 3 and len(data.getvalue()) == 3 * len(pickle.dumps(1))
    assert os.read(read_end, 16) == b"ooo"
    os.close(read_end)


def test_the_clock_is_seen_under_a_profiler_in_python_or_cprofile_and_the_profiler_still_sees_every_call():
    import cProfile
    import pstats
    import sys
    import time

    events = []
    sys.setprofile(lambda frame, event, arg: events.append(event))
    try:
        assert _distinct(torch.compile(lambda x: x * 0 + time.perf_counter_ns() % 1000003))
    finally:
        sys.setprofile(None)
    assert "c_call" in events              # the program's profiler still ran
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        assert _distinct(torch.compile(lambda x: x * 0 + time.process_time_ns() % 1000003))
        doubled = torch.compile(lambda x: x * 2)
        for _ in range(3):
            assert doubled(torch.ones(1)).item() == 2.0
    finally:
        profiler.disable()
    assert sys.getprofile() is None
    calls = {name: count for (_, _, name), (count, *_) in pstats.Stats(profiler).stats.items()}
    assert calls["<built-in method time.process_time_ns>"] == 5     # one per call, the capture's included


def test_a_profiler_the_compiled_function_stops_stays_stopped():
    import cProfile
    import sys

    profiler = cProfile.Profile()

    def stop(x):
        profiler.disable()
        return x * 2

    profiler.enable()
    assert torch.compile(stop)(torch.ones(1)).item() == 2.0
    assert sys.getprofile() is None


def test_an_object_the_call_makes_and_returns_is_its_own_at_each_call():
    from dataclasses import dataclass

    @dataclass
    class Stats:
        count: int = 0

    def made(x):
        return x * 2, Stats(), {1, 2}, np.zeros(2)

    compiled = torch.compile(made)
    for _ in range(3):
        _, stats, seen, array = compiled(torch.ones(1))
        assert (stats.count, seen, array.tolist()) == (0, {1, 2}, [0.0, 0.0])
        stats.count, array[0] = 5, 1.0
        seen.add(3)
    kept = Stats()
    returns_kept = torch.compile(lambda x: (x * 2, kept))
    for _ in range(3):
        assert returns_kept(torch.ones(1))[1] is kept


def test_tensor_attributes_set_after_the_capture_or_inside_the_call_are_seen():
    masked = torch.compile(lambda x: x * 0 if hasattr(x, "masked") else x * 2)
    x = torch.ones(2)
    assert twice(masked, x).tolist() == [2.0, 2.0]
    x.masked = True
    assert masked(x).tolist() == [0.0, 0.0]

    def tag(x):
        x.seen = True
        y = x * 2
        y.tag = "doubled"
        return y

    compiled = torch.compile(tag)
    for _ in range(3):
        fresh = torch.ones(1)
        assert compiled(fresh).tag == "doubled" and fresh.seen


def test_numpy_scalar_arguments_are_compared_by_value():
    compiled = torch.compile(lambda x, scale: x * scale)
    schedule = np.full(6, 0.5, dtype=np.float32)
    for i in range(6):
        assert compiled(torch.ones(2), schedule[i]).tolist() == [0.5, 0.5]
    assert stats["captures"] == 1


def test_a_partials_and_a_hooks_closure_are_guarded():
    import functools

    scale = 1.0

    def act(x):
        return x * scale

    bound = functools.partial(act)
    by_partial = torch.compile(lambda x: bound(x))
    assert twice(by_partial, torch.ones(1)).item() == 1.0
    scale = 3.0
    assert by_partial(torch.ones(1)).item() == 3.0

    factor = [1.0]
    model = torch.nn.Linear(1, 1)
    model.register_forward_hook(lambda m, args, out: out * factor[0])
    compiled = torch.compile(model)
    x = torch.ones(1, 1)
    twice(compiled, x)
    factor[0] = 3.0
    torch.testing.assert_close(compiled(x), model(x))


@pytest.mark.parametrize("backend", ["inductor", "aot_eager"])
def test_a_programs_own_generator_drawn_in_a_graph_autograd_records_follows_eagers_sequence(backend):
    # compiling ahead of time traces the graph once more: the draws it makes must not advance the generator
    def noisy(x, generator):
        return x * 1.0 + torch.rand(x.shape, generator=generator)

    compiled = torch.compile(noisy, backend=backend)
    mine, theirs = torch.Generator().manual_seed(0), torch.Generator().manual_seed(0)
    for _ in range(3):
        x = torch.zeros(3, requires_grad=True)
        got = compiled(x, mine)
        got.sum().backward()
        assert torch.equal(got, noisy(x, theirs))
