"""GraphModule rebuilding (pickles, deep and shallow copies, dict roots), print_readable nesting, the
name table, globals reached through ``torch``, and Proxy.__torch_function__'s tracer check."""
import copy
import pickle
import typing

import pytest

import torch
import torch.fx as fx
from torch.fx._codegen import _module_under_torch, _NameTable
from torch.fx.graph_module import reduce_graph_module


class Inner(torch.nn.Module):
    def forward(self, x):
        return x.relu() + 1


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = fx.symbolic_trace(Inner())
        self.lin = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.lin(self.a(x))


class _KeepGraphModules(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, fx.GraphModule) or super().is_leaf_module(m, qualname)


def _outer():
    root = Outer()
    return fx.GraphModule(root, _KeepGraphModules().trace(root))


def test_print_readable_nests_graph_module_children():
    text = _outer().print_readable(print_output=False)
    lines = text.split("\n")
    assert lines[0] == "class GraphModule(torch.nn.Module):"
    assert "    class a(torch.nn.Module):" in lines
    assert "        def forward(self, x):" in lines
    assert "class lin" not in text  # only GraphModule children are shown
    assert all(line.strip() or line == "" for line in lines)  # blank lines carry no indentation


def test_str_ends_with_the_code_and_the_hint():
    gm = fx.symbolic_trace(Inner())
    assert str(gm).endswith(gm.code + "\n# To see more debug info, please use `graph_module.print_readable()`")


def test_pickle_round_trip_keeps_plain_attributes_and_children():
    gm = _outer()
    gm.extra = {"k": 1}
    back = pickle.loads(pickle.dumps(gm))
    x = torch.randn(3, 2)
    assert back.extra == {"k": 1} and isinstance(back.a, torch.nn.Module)
    assert torch.allclose(back(x), gm(x)) and back.code == gm.code


def test_reduce_graph_module_reads_the_old_code_key():
    gm = fx.symbolic_trace(Inner())
    reducer, (body, imports) = gm.__reduce__()
    assert reducer is reduce_graph_module
    body = dict(body)
    body["code"] = body.pop("_code")
    rebuilt = reduce_graph_module(body, imports)
    assert rebuilt.code == gm.code


def test_deepcopy_carries_hooks_meta_and_preserved_attributes_only():
    gm = _outer()
    gm.extra = 5
    gm.meta["_user_preserved_attributes"] = {"kept": 3}
    seen = []
    gm._deepcopy_hooks.append(seen.append)
    twin = copy.deepcopy(gm)
    assert seen == [twin] and twin._deepcopy_hooks == gm._deepcopy_hooks
    assert twin.kept == 3 and not hasattr(twin, "extra")
    assert twin.meta == gm.meta and twin.meta is not gm.meta
    assert twin.lin is not gm.lin and isinstance(twin.a, fx.GraphModule)


def test_copy_shares_children_and_meta():
    gm = _outer()
    shallow = copy.copy(gm)
    assert shallow.meta is gm.meta and shallow.lin is gm.lin and type(shallow).__name__ == "GraphModule"


def test_dict_root_installs_parents_before_their_attributes():
    g = fx.Graph()
    x = g.placeholder("x")
    deep = g.get_attr("m.w")
    shallow = g.call_module("m", (x,))
    g.output(g.call_function(torch.add, (shallow, deep)))
    m = torch.nn.Linear(2, 2)
    gm = fx.GraphModule({"m.w": torch.ones(2), "m": m}, g)
    assert gm.m is m and torch.equal(gm.m.w, torch.ones(2)) and "w" in dict(gm.m.named_buffers())


@pytest.mark.parametrize("name, expected", [
    ("torch", True), ("torch.nn.functional", True), ("torch._dynamo", True), ("torch._dynamo.eval", False),
    ("torch.x._inductor.y", False), ("torch._dynamox.y", True), ("torchvision", False), ("torch..a", False),
])
def test_module_under_torch(name, expected):
    assert _module_under_torch(name) is expected


def test_name_table_suffixes_per_stem():
    table = _NameTable()
    names = [table.claim(c, None) for c in ("add", "add", "add_5", "add", "sum", "x_1", "x_1")]
    assert names == ["add", "add_1", "add_5", "add_6", "sum_1", "x_1", "x_2"]
    node = object()
    assert table.claim("y", node) == table.claim("other", node) == "y"
    table.attach("y", node)
    with pytest.raises(AssertionError):
        table.attach("z", node)


def test_typing_aliases_keep_their_spelling():
    def f(x: typing.List[int], y: list[int]):
        return x

    code = fx.symbolic_trace(f).code
    assert "x : typing_List[int]" in code and "y : list[int]" in code


def test_torch_function_rejects_proxies_of_two_tracers():
    a = fx.Proxy(fx.Graph().placeholder("a"))
    b = fx.Proxy(fx.Graph().placeholder("b"))
    with pytest.raises(RuntimeError, match="Found multiple different tracers"):
        torch.add(a, b)
    with pytest.raises(StopIteration):
        fx.Proxy.__torch_function__(torch.add, (), (1, 2))
