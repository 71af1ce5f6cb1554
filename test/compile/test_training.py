"""Training through torch.compile: a graph autograd records is split into a compiled forward and a compiled
backward (AOT autograd) run as one autograd.Function, with eager's gradients; random draws, buffers the
forward writes and frozen parameters behave as eager. A function that runs backward itself (a whole training
step) holds the backward and the optimizer's update in its graph."""
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._dynamo.eval_frame import stats


def _twins(make):
    torch.manual_seed(0)
    model = make()
    reference = make()
    reference.load_state_dict(model.state_dict())
    return model, reference


def _batches(count):
    """count batches of 8 rows of 6 features and their classes (of 3), the same every time."""
    gen = torch.Generator().manual_seed(1)
    for _ in range(count):
        yield torch.randn(8, 6, generator=gen), torch.randint(0, 3, (8,), generator=gen)


def _grads(model):
    return {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_training_steps_give_eagers_gradients_and_parameters(backend):
    def make():
        return nn.Sequential(nn.Linear(6, 16), nn.GELU(approximate="tanh"), nn.LayerNorm(16), nn.Linear(16, 3))

    model, reference = _twins(make)
    compiled = torch.compile(model, backend=backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    for step in range(4):
        x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
        opt.zero_grad()
        ref_opt.zero_grad()
        F.cross_entropy(compiled(x), y).backward()
        F.cross_entropy(reference(x), y).backward()
        torch.testing.assert_close(_grads(model), _grads(reference), rtol=1e-5, atol=1e-6)
        opt.step()
        ref_opt.step()
    torch.testing.assert_close(model.state_dict(), reference.state_dict(), rtol=1e-5, atol=1e-6)
    entry = compiled._compiled.entries[0]
    assert entry.compiled.__qualname__.startswith("_runner")       # the AOT forward/backward pair


def test_dropout_masks_in_backward_are_the_forwards_and_the_generator_moves_once():
    def make():
        return nn.Sequential(nn.Linear(5, 5), nn.Dropout(0.5))

    model, reference = _twins(make)
    compiled = torch.compile(model)
    for seed in (3, 4):
        x = torch.randn(4, 5)
        torch.manual_seed(seed)
        out = compiled(x)
        after = torch.rand(1)
        torch.manual_seed(seed)
        want = reference(x)
        assert torch.equal(after, torch.rand(1))
        torch.testing.assert_close(out, want)
        out.sum().backward()
        want.sum().backward()
        torch.testing.assert_close(_grads(model), _grads(reference))


def test_batch_norm_running_statistics_update_once_per_call():
    def make():
        return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))

    model, reference = _twins(make)
    compiled = torch.compile(model)
    for _ in range(3):
        x = torch.randn(6, 3)
        compiled(x).sum().backward()
        reference(x).sum().backward()
    torch.testing.assert_close(model.state_dict(), reference.state_dict(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(_grads(model), _grads(reference), rtol=1e-5, atol=1e-6)


def test_frozen_parameters_get_no_gradient():
    model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
    model[0].weight.requires_grad_(False)
    compiled = torch.compile(model)
    for _ in range(2):
        compiled(torch.randn(2, 3)).sum().backward()
    assert model[0].weight.grad is None and model[0].bias.grad is not None


def test_gradients_reach_inputs_and_the_backward_is_not_differentiable_twice():
    def f(x, y):
        return (x.sigmoid() * y).sum(), x.detach() * 2

    compiled = torch.compile(f)
    x, y = torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True)
    compiled(x, y)
    loss, plain = compiled(x, y)
    assert not plain.requires_grad
    gx, gy = torch.autograd.grad(loss, (x, y))
    torch.testing.assert_close(gx, (x.sigmoid() * (1 - x.sigmoid()) * y).detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(gy, x.sigmoid().detach())
    loss, _ = compiled(x, y)
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    torch.testing.assert_close(g, gx)       # the first order is there, with a node that refuses the second
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="torch.compile with aot_autograd does not currently support double "
                                           "backward"):
        g.sum().backward()


def test_a_gradient_penalty_through_a_compiled_module_raises_on_replays_instead_of_dropping_its_term():
    torch.manual_seed(0)
    critic = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    compiled = torch.compile(critic)

    def penalised(model):
        critic.zero_grad()
        x = torch.linspace(-1, 1, 12).reshape(3, 4).requires_grad_(True)
        (g,) = torch.autograd.grad(model(x).sum(), x, create_graph=True)
        (model(x).mean() + 10 * ((g.norm(2, dim=1) - 1) ** 2).mean()).backward()
        return critic[0].weight.grad.clone()

    eager = penalised(critic)
    torch.testing.assert_close(penalised(compiled), eager)      # the capture runs the module for real
    for _ in range(2):
        with pytest.raises(RuntimeError, match="does not currently support double backward"):
            penalised(compiled)


@pytest.mark.parametrize("wrt", ["x", "w"])
def test_a_second_derivative_with_respect_to_an_input_the_backward_does_not_save_raises_the_refusal(wrt):
    def f(x, w):
        return (x.sin() * w).sum()

    compiled = torch.compile(f)
    for call in range(3):
        x, w = torch.linspace(-1, 1, 5, requires_grad=True), torch.linspace(0, 2, 5, requires_grad=True)
        (g,) = torch.autograd.grad(compiled(x, w), x, create_graph=True)
        target = {"x": x, "w": w}[wrt]
        if call == 0:           # the capture's own call runs for real
            (second,) = torch.autograd.grad(g.sum(), target)
            expected = -x.detach().sin() * w.detach() if wrt == "x" else x.detach().cos()
            torch.testing.assert_close(second, expected)
            continue
        with pytest.raises(RuntimeError, match="does not currently support double backward"):
            torch.autograd.grad(g.sum(), target)


def test_a_second_derivative_not_running_through_what_the_compiled_backward_saved_is_computed():
    """A compiled linear loss head saves nothing for its backward: a gradient penalty through the eager network
    before it is differentiable there, as in PyTorch (the refusal is reached only through saved values)."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    compiled = torch.compile(lambda out: out.mean() * 3.0)

    def penalty_gradient(head, x):
        grads = torch.autograd.grad(head(net(x)), list(net.parameters()), create_graph=True)
        penalty = sum((g ** 2).sum() for g in grads)
        return torch.autograd.grad(penalty, list(net.parameters()), allow_unused=True)

    for step in range(3):
        x = torch.linspace(-2, 2, 64).reshape(16, 4) * (step + 1)
        for got, expected in zip(penalty_gradient(compiled, x), penalty_gradient(lambda out: out.mean() * 3.0, x)):
            torch.testing.assert_close(got, expected)


def test_the_backward_fuses_its_pointwise_nodes():
    from torch._dynamo import aot_autograd

    graphs = []
    original = aot_autograd._partition

    def spy(*args):
        forward, backward = original(*args)
        graphs.append(backward)
        return forward, backward

    aot_autograd._partition = spy
    try:
        compiled = torch.compile(lambda x: torch.tanh(x * 3).exp().sum())
        compiled(torch.randn(10, requires_grad=True)).backward()
    finally:
        aot_autograd._partition = original
    targets = [str(n.target) for n in graphs[0].nodes if n.op == "call_function"]
    assert "aten.tanh_backward.default" in targets or "aten.mul.Tensor" in targets


def test_the_backward_fuses_what_reads_saved_values_and_gradients(monkeypatch):
    from torch._inductor import compile_fx as module

    compiled_graphs = []
    original = module.compile_fx

    def spy(gm, example_inputs, **kwargs):
        call = original(gm, example_inputs, **kwargs)
        compiled_graphs.append(getattr(call, "_inductor_groups", []))
        return call

    monkeypatch.setattr(module, "compile_fx", spy)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4))
    compiled = torch.compile(model)
    compiled(torch.randn(5, 8)).sum().backward()
    backward_groups = compiled_graphs[-1]
    fused = [str(m.target) for g in backward_groups for m in g.members]
    assert "aten.gelu_backward.default" in fused


def _train_step(model, opt):
    def step(x, y):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("optimizer", ["SGD", "AdamW"])
def test_a_whole_training_step_is_one_graph_with_eagers_losses_and_parameters(backend, optimizer):
    # forward, loss, backward (the engine's operators traced) and the optimizer's update in one graph
    def make():
        return nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 3))

    model, reference = _twins(make)
    kwargs = {"lr": 0.1, "momentum": 0.9} if optimizer == "SGD" else {"lr": 1e-2, "weight_decay": 0.01}
    opt = getattr(torch.optim, optimizer)(model.parameters(), **kwargs)
    ref_opt = getattr(torch.optim, optimizer)(reference.parameters(), **kwargs)
    compiled = torch.compile(_train_step(model, opt), backend=backend, fullgraph=True)
    eager = _train_step(reference, ref_opt)
    before = stats["replays"]
    for x, y in _batches(6):
        torch.testing.assert_close(compiled(x, y), eager(x, y).detach(), rtol=1e-6, atol=1e-6)
        torch.testing.assert_close(_grads(model), _grads(reference), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(model.state_dict(), reference.state_dict(), rtol=1e-5, atol=1e-6)
    assert stats["replays"] - before == 4          # captured at step 1, again once the optimizer has state
    graph = compiled._ember_compiled.entries[-1].graph_module.graph
    targets = {str(n.target) for n in graph.nodes}
    assert "aten.nll_loss_backward.default" in targets and "aten.addmm.default" in targets
    # each parameter's first gradient is the backward's value itself, not a copy into a fresh tensor
    assert not targets & {"aten.new_empty_strided.default", "aten.copy_.default"}


def test_gradients_accumulate_across_replays_of_a_compiled_backward():
    w = torch.ones(3, requires_grad=True)

    @torch.compile(backend="eager")
    def accumulate(x):
        loss = (w * x).pow(2).sum()
        loss.backward()
        return loss

    for _ in range(4):
        accumulate(torch.full((3,), 2.0))
    assert w.grad.tolist() == [4 * 8.0] * 3        # d/dw (w x)^2 = 2 w x^2 = 8 at w = 1, x = 2, four times
    assert stats["replays"] >= 2 and stats["graph_breaks"] == 0


def test_autograd_grad_inside_a_compiled_function_returns_eagers_gradients():
    x = torch.randn(5, 4)
    w = torch.randn(4, 3, requires_grad=True)

    def f(x):
        return torch.autograd.grad(torch.tanh(x @ w).sum(), w)[0]

    compiled = torch.compile(f, fullgraph=True)
    for _ in range(3):
        torch.testing.assert_close(compiled(x), f(x), rtol=1e-6, atol=1e-6)
    assert w.grad is None and stats["replays"] == 2


def test_gradients_reach_the_argument_of_each_call_and_stop_at_its_autograd_history():
    torch.manual_seed(0)
    model = nn.Linear(3, 1).requires_grad_(False)

    def saliency(x):
        model(x).sum().backward()

    compiled = torch.compile(saliency)
    for _ in range(4):                  # a fresh leaf each call: its own .grad is written, and the graph replays
        x = torch.randn(2, 3, requires_grad=True)
        compiled(x)
        torch.testing.assert_close(x.grad, model.weight.expand(2, 3))
    assert stats["replays"] >= 2
    base = torch.ones(2, 3, requires_grad=True)
    compiled(base * 3)                  # history made outside: a guard failure, then a break, never a replay
    torch.testing.assert_close(base.grad, 3 * model.weight.expand(2, 3))


def test_gradient_hooks_added_or_removed_after_the_capture_are_honoured():
    def step(m, x):
        m(x).sum().backward()
        g = m.weight.grad.clone()
        m.zero_grad()
        return g

    torch.manual_seed(0)
    m = nn.Linear(3, 2)
    compiled = torch.compile(step)
    x = torch.ones(1, 3)
    plain = compiled(m, x)
    compiled(m, x)
    handle = m.weight.register_hook(lambda g: g * 100)
    torch.testing.assert_close(compiled(m, x), plain * 100)
    handle.remove()
    torch.testing.assert_close(compiled(m, x), plain)
    m.register_full_backward_pre_hook(lambda mod, grad_out: (grad_out[0] * 7,))
    torch.testing.assert_close(compiled(m, x), plain * 7)


@pytest.mark.parametrize("pool", [nn.AdaptiveAvgPool2d(2), nn.AvgPool2d(2, padding=1, count_include_pad=False)])
def test_a_whole_step_with_average_pooling_and_zero_grad_to_zeros_is_one_graph(pool):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), pool, nn.Flatten(), nn.LazyLinear(3))
    model(torch.randn(1, 1, 8, 8))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad(set_to_none=False)
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        return loss

    compiled = torch.compile(step)
    for _ in range(3):
        compiled(torch.randn(2, 1, 8, 8))
    assert stats["graph_breaks"] == 0 and stats["replays"] >= 1


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW"])
def test_a_tensor_learning_rate_a_scheduler_moves_is_read_at_each_replay(optimizer):
    # PyTorch's advice for compiled optimizers under a scheduler: the lr as a tensor, written in place, read by the
    # fused kernel's .tensor_lr overload (no graph break, no recompile as it moves)
    def make():
        return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))

    model, reference = _twins(make)
    kwargs = {"momentum": 0.9} if optimizer == "SGD" else {"weight_decay": 0.01}
    opt = getattr(torch.optim, optimizer)(model.parameters(), lr=torch.tensor(0.05), **kwargs)
    ref_opt = getattr(torch.optim, optimizer)(reference.parameters(), lr=torch.tensor(0.05), **kwargs)
    schedulers = [torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=5) for o in (opt, ref_opt)]
    compiled = torch.compile(_train_step(model, opt), fullgraph=True)
    eager = _train_step(reference, ref_opt)
    before = stats["replays"]
    for x, y in _batches(8):
        torch.testing.assert_close(compiled(x, y), eager(x, y).detach(), rtol=1e-6, atol=1e-6)
        for scheduler in schedulers:
            scheduler.step()
    torch.testing.assert_close(model.state_dict(), reference.state_dict(), rtol=1e-5, atol=1e-6)
    lr = opt.param_groups[0]["lr"]
    assert isinstance(lr, torch.Tensor) and float(lr) < 0.05       # moved in place by the scheduler
    assert stats["replays"] - before == 6          # captured at steps 1 and 2 only


class _StatisticsInOneBuffer(nn.Module):
    """A batch norm whose running statistics are views of one non-dense buffer (row 0 the mean, row 1 the
    variance)."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        stats = torch.zeros(8, 2)
        stats[:, 1] = 1
        self.register_buffer("stats", stats[::2].t())

    def forward(self, x):
        return F.batch_norm(self.linear(x), self.stats[0], self.stats[1], training=True)


def test_running_statistics_a_compiled_batch_norm_writes_through_views_reach_their_buffer():
    model, reference = _twins(_StatisticsInOneBuffer)
    compiled = torch.compile(model)
    gen = torch.Generator().manual_seed(2)
    for _ in range(3):
        x = torch.randn(6, 4, generator=gen) + 1
        compiled(x).sum().backward()
        reference(x).sum().backward()
        torch.testing.assert_close(model.stats, reference.stats)


class _TruncatedBPTT(nn.Module):
    """A language model carrying its LSTM's (h, c) from one call to the next, detached (truncated BPTT)."""

    def __init__(self):
        super().__init__()
        self.embed, self.rnn, self.out = nn.Embedding(20, 8), nn.LSTM(8, 16, batch_first=True), nn.Linear(16, 20)
        self.state = None

    def forward(self, x):
        y, (h, c) = self.rnn(self.embed(x), self.state)
        self.state = (h.detach(), c.detach())
        return self.out(y)


def test_a_recurrent_state_tuple_kept_on_the_module_is_replayed_not_captured_again():
    torch.manual_seed(0)
    model, reference = _TruncatedBPTT(), _TruncatedBPTT()
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, reference)]
    batches = torch.Generator().manual_seed(1)
    for _ in range(8):
        x, y = torch.randint(0, 20, (3, 5), generator=batches), torch.randint(0, 20, (3, 5), generator=batches)
        for run, optimizer in zip((compiled, reference), optimizers):
            optimizer.zero_grad()
            F.cross_entropy(run(x).flatten(0, 1), y.flatten()).backward()
            optimizer.step()
    assert stats["captures"] == 2 and stats["graph_breaks"] == 0      # None first, then the tuple
    assert type(model.state) is tuple
    for ours, theirs in zip([*model.parameters(), *model.state], [*reference.parameters(), *reference.state]):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-5)


class _ResettingAgent(nn.Module):
    """A recurrent state that starts as the module's own buffers, which the forward also reads to reset finished
    sequences."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 4)
        self.register_buffer("h0", torch.full((1, 2, 4), 0.5))
        self.register_buffer("c0", torch.zeros(1, 2, 4))
        self.state = (self.h0, self.c0)

    def forward(self, x, done):
        h, c = self.state
        keep = (1 - done).view(1, -1, 1)
        out, (h, c) = self.rnn(x, (h * keep + self.h0 * (1 - keep), c * keep + self.c0 * (1 - keep)))
        self.state = (h.detach(), c.detach())
        return out


def test_a_recurrent_state_whose_members_are_also_read_by_name_keeps_both_reads():
    torch.manual_seed(0)
    model, reference = _ResettingAgent(), _ResettingAgent()
    reference.load_state_dict(model.state_dict())
    reference.state = (reference.h0, reference.c0)
    compiled = torch.compile(model)
    for step in range(5):
        x, done = torch.randn(1, 2, 3), torch.tensor([float(step % 2), 0.0])
        torch.testing.assert_close(compiled(x, done), reference(x, done))
        for ours, theirs in zip(model.state, reference.state):
            torch.testing.assert_close(ours, theirs)
    torch.testing.assert_close(model.h0, torch.full((1, 2, 4), 0.5))


def test_an_intermediate_that_retains_its_gradient_replays_with_eagers_gradient():
    def step(x, w):
        h = x @ w
        h.retain_grad()
        h.relu().sum().backward()
        return h.grad.clone()

    compiled = torch.compile(step)
    w, x = torch.randn(3, 3, requires_grad=True), torch.randn(2, 3)
    captures = stats["captures"]
    for _ in range(4):
        w.grad = None
        got, got_w = compiled(x, w), w.grad
        w.grad = None
        torch.testing.assert_close(got, step(x, w))
        torch.testing.assert_close(got_w, w.grad)
    assert stats["captures"] - captures == 1


def test_an_embeddings_forward_saves_no_weight_sized_zeros_for_its_backward(monkeypatch):
    from torch._dynamo import aot_autograd

    graphs = []
    original = aot_autograd._partition

    def spy(*args):
        graphs.append(original(*args))
        return graphs[-1]

    monkeypatch.setattr(aot_autograd, "_partition", spy)
    torch.manual_seed(0)
    embedding, reference = nn.Embedding(50, 8), nn.Embedding(50, 8)
    reference.load_state_dict(embedding.state_dict())
    compiled = torch.compile(embedding)
    indices = torch.randint(0, 50, (4, 6))
    for _ in range(2):
        compiled(indices).pow(2).sum().backward()
        reference(indices).pow(2).sum().backward()
    torch.testing.assert_close(embedding.weight.grad, reference.weight.grad)
    forward, backward = graphs[0]
    made_by = {str(n.target) for n in forward.nodes if n.op == "call_function"}
    assert "aten.zeros.default" not in made_by
    assert "aten.zeros.default" in {str(n.target) for n in backward.nodes if n.op == "call_function"}


@pytest.mark.parametrize("backward", ["inside", "outside"])
def test_a_returned_tensor_that_retains_its_gradient_has_it_at_every_call(backward):
    def forward(x, w):
        h = x @ w
        h.retain_grad()
        if backward == "inside":
            h.relu().sum().backward()
        return h

    compiled = torch.compile(forward)
    w, x = torch.randn(3, 3, requires_grad=True), torch.randn(2, 3)
    for _ in range(3):
        h = compiled(x, w)
        if backward == "outside":
            h.relu().sum().backward()
        torch.testing.assert_close(h.grad, (h > 0).to(h.dtype))
