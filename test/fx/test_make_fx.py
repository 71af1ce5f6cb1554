"""make_fx, tracing at the operator level through a TorchDispatchMode: the graphs it builds (printed as
PyTorch 2.13 prints them for the same programs: indexing as select/slice/unsqueeze/index, a training step's
forward and backward) and their replay."""
from __future__ import annotations

import pytest

import torch
from torch.fx.experimental.proxy_tensor import make_fx

aten = torch.ops.aten


def test_make_fx_prints_the_graph_pytorch_prints():
    gm = make_fx(lambda x, y: torch.relu(x @ y + 1).sum(0))(torch.randn(3, 4), torch.randn(4, 5))
    # recorded from PyTorch 2.13's make_fx of the same function
    assert gm.code == (
        "\n\n\ndef forward(self, x_1, y_1):\n"
        "    mm = torch.ops.aten.mm.default(x_1, y_1);  x_1 = y_1 = None\n"
        "    add = torch.ops.aten.add.Tensor(mm, 1);  mm = None\n"
        "    relu = torch.ops.aten.relu.default(add);  add = None\n"
        "    sum_1 = torch.ops.aten.sum.dim_IntList(relu, [0]);  relu = None\n"
        "    return sum_1\n    ")


# Each indexing form's operators, as PyTorch 2.13's make_fx records them.
INDEXING = [
    (lambda x: x[0], ["select.int(x_1, 0, 0)"]),
    (lambda x: x[1:3], ["slice.Tensor(x_1, 0, 1, 3)"]),
    (lambda x: x[:, 1], ["select.int(x_1, 1, 1)"]),
    (lambda x: x[None, 0], ["unsqueeze.default(x_1, 0)", "select.int(unsqueeze, 1, 0)"]),
    (lambda x: x[..., 1], ["select.int(x_1, 2, 1)"]),
    (lambda x: x[-1, ::2], ["select.int(x_1, 0, -1)", "slice.Tensor(select, 0, 0, 9223372036854775807, 2)"]),
    (lambda x: x[1, None, 2:], ["select.int(x_1, 0, 1)", "unsqueeze.default(select, 0)",
                                "slice.Tensor(unsqueeze, 1, 2, 9223372036854775807)"]),
]


@pytest.mark.parametrize("index", range(len(INDEXING)))
def test_indexing_reaches_the_mode_as_select_slice_and_unsqueeze(index):
    fn, expected = INDEXING[index]
    x = torch.randn(4, 5, 6)
    gm = make_fx(fn)(x)
    calls = [line.split("torch.ops.aten.")[1].split(";")[0]
             for line in gm.code.splitlines() if "torch.ops.aten." in line]
    assert calls == expected
    assert torch.equal(gm(x), fn(x))


def test_tensor_indices_and_assignment_trace_to_index_and_index_put():
    x, i = torch.randn(4, 5, 6), torch.tensor([0, 2])

    def f(x, i):
        y = x.clone()
        y[0, 1:3] = 2.0
        y[i] = x[1] * 2
        return y[:, i, 1]

    gm = make_fx(f)(x, i)
    ops = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert aten.index_put_.default in ops and aten.fill_.Scalar in ops and aten.index.Tensor in ops
    other = torch.randn(4, 5, 6)
    assert torch.equal(gm(other, i), f(other, i))


def test_make_fx_of_a_training_step_records_forward_and_backward_and_replays_it():
    torch.manual_seed(0)
    linear = torch.nn.Linear(4, 2)

    def step(x):
        loss = linear(x).pow(2).mean()
        loss.backward()
        return loss

    x = torch.randn(3, 4)
    gm = make_fx(step)(x)
    ops = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert ops[:3] == ["aten.t.default", "aten.addmm.default", "aten.pow.Tensor_Scalar"]
    assert "aten.mm.default" in ops                                  # the weight's gradient
    assert {n.target for n in gm.graph.nodes if n.op == "get_attr"} == {"_param_constant0", "_param_constant1"}
    expected = linear(x).pow(2).mean()
    assert torch.equal(gm(x), expected)


def test_decompositions_replace_an_operator_by_what_they_call():
    table = {aten.relu.default: lambda t: aten.clamp_min.default(t, 0)}
    gm = make_fx(torch.relu, decomposition_table=table)(torch.randn(5))
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [aten.clamp_min.default]
    x = torch.randn(5)
    assert torch.equal(gm(x), torch.relu(x))


def test_tracing_modes_ember_cannot_provide_say_what_is_missing():
    with pytest.raises(NotImplementedError, match="FakeTensor"):
        make_fx(torch.sin, tracing_mode="fake")
    with pytest.raises(AssertionError, match="Unexpected tracing type: bogus"):
        make_fx(torch.sin, tracing_mode="bogus")


@pytest.mark.parametrize("fn", [lambda a: a * a.sum().item(), lambda a: a * float(a.sum()),
                                lambda a: a if a.sum() > 0 else -a])
def test_reading_a_traced_value_raises_instead_of_baking_it_into_the_graph(fn):
    with pytest.raises(RuntimeError, match="trying to get value out of a tracing tensor"):
        make_fx(fn)(torch.ones(3))
    assert torch.ones(2).sum().item() == 2.0               # item is itself again afterwards


def test_data_is_recorded_as_detach():
    gm = make_fx(lambda a: a * a.data)(torch.ones(3))
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [aten.detach.default, aten.mul.Tensor]
    x = torch.randn(3)
    assert torch.equal(gm(x), x * x)
