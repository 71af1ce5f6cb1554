"""torch.fx.symbolic_trace: the graph recorded for a module or function (ops, targets, node names,
printouts in PyTorch 2.13's format), leaf modules, wrap, concrete_args and the errors a Proxy
raises where its value would be needed."""
import math
import operator

import pytest

import torch
import torch.fx as fx
from torch.fx.proxy import TraceError


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)
        self.offset = torch.nn.Parameter(torch.randn(3))

    def forward(self, x):
        h = torch.relu(self.linear(x))
        s = torch.sum(h, dim=1, keepdim=True)
        h = h.clamp(min=0.1) + self.offset
        return h * s + h.sum()


# The strings below are what PyTorch 2.13 prints for SmallNet (checked with /work/ref-torch:
# str(gm.graph), gm.code, the node list and gm.print_readable(print_output=False)).
SMALLNET_GRAPH = """graph():
    %x : [num_users=1] = placeholder[target=x]
    %linear : [num_users=1] = call_module[target=linear](args = (%x,), kwargs = {})
    %relu : [num_users=2] = call_function[target=torch.relu](args = (%linear,), kwargs = {})
    %sum_1 : [num_users=1] = call_function[target=torch.sum](args = (%relu,), kwargs = {dim: 1, keepdim: True})
    %clamp : [num_users=1] = call_method[target=clamp](args = (%relu,), kwargs = {min: 0.1})
    %offset : [num_users=1] = get_attr[target=offset]
    %add : [num_users=2] = call_function[target=operator.add](args = (%clamp, %offset), kwargs = {})
    %mul : [num_users=1] = call_function[target=operator.mul](args = (%add, %sum_1), kwargs = {})
    %sum_2 : [num_users=1] = call_method[target=sum](args = (%add,), kwargs = {})
    %add_1 : [num_users=1] = call_function[target=operator.add](args = (%mul, %sum_2), kwargs = {})
    return add_1"""

SMALLNET_CODE = ("\n\n\ndef forward(self, x):\n"
                 "    linear = self.linear(x);  x = None\n"
                 "    relu = torch.relu(linear);  linear = None\n"
                 "    sum_1 = torch.sum(relu, dim = 1, keepdim = True)\n"
                 "    clamp = relu.clamp(min = 0.1);  relu = None\n"
                 "    offset = self.offset\n"
                 "    add = clamp + offset;  clamp = offset = None\n"
                 "    mul = add * sum_1;  sum_1 = None\n"
                 "    sum_2 = add.sum();  add = None\n"
                 "    add_1 = mul + sum_2;  mul = sum_2 = None\n"
                 "    return add_1\n    ")

SMALLNET_NODES = [("placeholder", "x", "x"), ("call_module", "linear", "linear"),
                  ("call_function", "relu", torch.relu), ("call_function", "sum_1", torch.sum),
                  ("call_method", "clamp", "clamp"), ("get_attr", "offset", "offset"),
                  ("call_function", "add", operator.add), ("call_function", "mul", operator.mul),
                  ("call_method", "sum_2", "sum"), ("call_function", "add_1", operator.add),
                  ("output", "output", "output")]


def test_trace_records_the_ops_targets_and_names_pytorch_records():
    gm = fx.symbolic_trace(SmallNet())
    assert [(n.op, n.name, n.target) for n in gm.graph.nodes] == SMALLNET_NODES


def test_graph_printout_and_generated_code_are_pytorchs():
    gm = fx.symbolic_trace(SmallNet())
    assert str(gm.graph) == SMALLNET_GRAPH
    assert gm.code == SMALLNET_CODE
    # the module printout is the module repr, the code and PyTorch's reminder line
    assert str(gm) == "\n".join([torch.nn.Module.__repr__(gm), SMALLNET_CODE,
                                 "# To see more debug info, please use `graph_module.print_readable()`"])
    assert type(gm).__name__ == "SmallNet"


def test_traced_module_computes_what_the_module_computes():
    torch.manual_seed(0)
    net = SmallNet()
    gm = fx.symbolic_trace(net)
    x = torch.randn(5, 4)
    assert torch.equal(gm(x), net(x))


def test_users_and_inputs_are_linked_both_ways():
    graph = fx.symbolic_trace(SmallNet()).graph
    nodes = {n.name: n for n in graph.nodes}
    assert list(nodes["relu"].users) == [nodes["sum_1"], nodes["clamp"]]
    assert nodes["add"].all_input_nodes == [nodes["clamp"], nodes["offset"]]
    assert nodes["add"].prev is nodes["offset"] and nodes["add"].next is nodes["mul"]
    assert repr(nodes["add"]) == "add"


def test_names_that_shadow_builtins_get_a_suffix_and_duplicates_count_up():
    def fn(x, y):
        sum = x + 1
        return torch.sum(sum), x.sum(), torch.sum(y), getattr(x, "T"), sum + y

    names = [n.name for n in fx.symbolic_trace(fn).graph.nodes]
    # PyTorch 2.13 names this program the same way (checked with /work/ref-torch)
    # (getattr's node is made when the attribute is first used: at the return)
    assert names == ["x", "y", "add", "sum_1", "sum_2", "sum_3", "add_1", "getattr_1", "output"]


def test_nested_module_targets_become_underscored_names():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 2, 1)

    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer1 = Block()

        def forward(self, img):
            return self.layer1.conv(img)

    torch.manual_seed(0)
    outer = Outer()
    gm = fx.symbolic_trace(outer)
    conv = [n for n in gm.graph.nodes if n.op == "call_module"][0]
    assert (conv.name, conv.target) == ("layer1_conv", "layer1.conv")
    img = torch.randn(1, 1, 3, 3)
    assert torch.equal(gm(img), outer(img))


def test_sequential_is_traced_into_its_children():
    torch.manual_seed(0)
    seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    gm = fx.symbolic_trace(seq)
    calls = [(n.op, n.target) for n in gm.graph.nodes if n.op == "call_module"]
    assert calls == [("call_module", "0"), ("call_module", "1"), ("call_module", "2")]
    # PyTorch's code for a Sequential: children reached with getattr since "0" is no identifier
    assert 'getattr(self, "0")(input_1)' in gm.code
    x = torch.randn(2, 3)
    assert torch.equal(gm(x), seq(x))


def test_custom_tracer_can_keep_a_module_as_a_leaf():
    class Inner(torch.nn.Module):
        def forward(self, x):
            return torch.tanh(x) * 2

    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return self.inner(x) + 1

    class KeepInner(fx.Tracer):
        def is_leaf_module(self, m, module_qualified_name):
            return isinstance(m, Inner) or super().is_leaf_module(m, module_qualified_name)

    traced_through = fx.symbolic_trace(Outer()).graph
    assert [n.op for n in traced_through.nodes] == ["placeholder", "call_function", "call_function",
                                                    "call_function", "output"]
    kept = KeepInner().trace(Outer())
    assert [(n.op, n.target) for n in kept.nodes if n.op == "call_module"] == [("call_module", "inner")]
    outer = Outer()
    gm = fx.GraphModule(outer, kept)
    x = torch.randn(3)
    assert torch.equal(gm(x), outer(x))


def test_tensor_methods_operators_and_attributes_become_nodes():
    def fn(x, y):
        a, b = x.chunk(2, dim=0)
        shape = x.shape
        return (-a) @ b.t(), 2 - y, y ** 2, x[0, 1:], x.size(1), shape[0], y > 0, abs(y), x.view(shape)

    gm = fx.symbolic_trace(fn)
    by_name = {n.name: n for n in gm.graph.nodes}
    assert by_name["chunk"].op == "call_method" and by_name["getitem"].args == (by_name["chunk"], 0)
    assert by_name["neg"].target is operator.neg and by_name["matmul"].target is operator.matmul
    assert by_name["sub"].args == (2, by_name["y"])
    assert by_name["getattr_1"].target is getattr and by_name["getattr_1"].args == (by_name["x"], "shape")
    assert by_name["abs_1"].target is operator.abs and by_name["gt"].target is operator.gt
    x, y = torch.randn(2, 2), torch.randn(3)
    for got, want in zip(gm(x, y), fn(x, y)):
        assert torch.equal(torch.as_tensor(got), torch.as_tensor(want))


def test_tensor_constants_are_stored_on_the_module_and_fetched():
    class WithConstants(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.arange(3.0))
            self.plain = torch.ones(3)

        def forward(self, x):
            return x + self.buf + self.plain * x + torch.full((3,), 2.0) * x

    module = WithConstants()
    gm = fx.symbolic_trace(module)
    fetched = [n.target for n in gm.graph.nodes if n.op == "get_attr"]
    # as PyTorch 2.13 (checked with /work/ref-torch)
    assert fetched == ["buf", "plain", "_tensor_constant0"]
    x = torch.randn(3)
    assert torch.equal(gm(x), module(x))
    assert set(gm.state_dict()) == {"buf", "plain", "_tensor_constant0"}


def test_bool_iteration_and_len_of_a_proxy_raise_pytorchs_errors():
    def branches(x):
        if x.sum() > 0:
            return x
        return -x

    def loops(x):
        return [v for v in x]

    def measures(x):
        return len(x)

    with pytest.raises(TraceError, match="^symbolically traced variables cannot be used as inputs to control flow$"):
        fx.symbolic_trace(branches)
    with pytest.raises(TraceError, match=r"^Proxy object cannot be iterated\. This can be attempted when the Proxy "
                                         r"is used in a loop or as a \*args or \*\*kwargs function argument\."):
        fx.symbolic_trace(loops)
    with pytest.raises(RuntimeError, match=r"^'len' is not supported in symbolic tracing by default\. If you want "
                                           r"this call to be recorded, please call torch\.fx\.wrap\('len'\) at "
                                           r"module scope$"):
        fx.symbolic_trace(measures)
    assert issubclass(TraceError, ValueError)


def sign_of_sum(x):
    # data-dependent control flow: only traceable as a leaf
    if x.sum() > 0:
        return x
    return -x


fx.wrap("sign_of_sum")


@fx.wrap
def scaled(x, factor):
    return x * factor


def test_wrapped_functions_stay_one_call_function_node():
    def fn(x):
        return sign_of_sum(x) + scaled(x, 3.0)

    gm = fx.symbolic_trace(fn)
    calls = [(n.name, n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert calls == [("sign_of_sum", sign_of_sum), ("scaled", scaled), ("add", operator.add)]
    # the wrapped functions are globals of the generated code, re-registered with wrap() there
    assert gm.graph.python_code("self").globals[f"{__name__.replace('.', '_')}_sign_of_sum"] is sign_of_sum
    assert 'wrap("' in gm.code
    for x in (torch.tensor([1.0, 2.0]), torch.tensor([-3.0, 1.0])):
        assert torch.equal(gm(x), fn(x))


def test_math_functions_are_wrapped_automatically():
    def fn(x):
        return x * math.sqrt(x.size(0))

    gm = fx.symbolic_trace(fn)
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [math.sqrt, operator.mul]
    x = torch.randn(4)
    assert torch.equal(gm(x), fn(x))


def test_concrete_args_specialise_an_argument_and_check_it():
    def fn(x, double):
        if double:
            return x * 2
        return x

    gm = fx.symbolic_trace(fn, concrete_args={"double": True})
    assert [n.name for n in gm.graph.nodes if n.op == "placeholder"] == ["x", "double_1"]
    x = torch.randn(3)
    assert torch.equal(gm(x, True), fn(x, True))
    with pytest.raises(AssertionError, match="double has been specialized to have value True but got another value"):
        gm(x, False)


def test_concrete_none_is_checked_with_assert_is_none():
    def fn(x, extra=None):
        return x if extra is None else x + extra

    gm = fx.symbolic_trace(fn, concrete_args={"extra": None})
    x = torch.randn(2)
    assert torch.equal(gm(x), x)
    with pytest.raises(AssertionError, match="extra has been specialized to have value None"):
        gm(x, torch.ones(2))


def test_defaults_and_varargs_become_placeholders():
    def fn(x, y=3, *rest, **options):
        return torch.sum(x) + y

    gm = fx.symbolic_trace(fn)
    placeholders = [(n.name, n.target, n.args) for n in gm.graph.nodes if n.op == "placeholder"]
    assert placeholders == [("x", "x", ()), ("y", "y", (3,)), ("_rest", "*rest", ()),
                            ("_options", "**options", ())]
    # PyTorch's signature for it (checked with /work/ref-torch)
    assert "def forward(self, x, y = 3, *rest, **options):" in gm.code
    x = torch.randn(2)
    assert torch.equal(gm(x), fn(x))
    assert torch.equal(gm(x, 5), fn(x, 5))


def test_tracing_restores_module_call_and_getattr():
    call, getattr_ = torch.nn.Module.__call__, torch.nn.Module.__getattr__

    def fails(x):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        fx.symbolic_trace(fails)
    fx.symbolic_trace(SmallNet())
    assert torch.nn.Module.__call__ is call and torch.nn.Module.__getattr__ is getattr_
    assert not fx._symbolic_trace.is_fx_tracing()
