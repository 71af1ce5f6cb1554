"""GraphModule rebuilding (pickles, deep and shallow copies, dict roots), print_readable nesting, the
name table, globals reached through ``torch``, and Proxy.__torch_function__'s tracer check. The printouts,
generated code and errors are PyTorch 2.13's for the same programs, recorded by tools/record_fx_reference.py
in test/data/fx/fx.json."""
import copy
import pickle

import pytest

import torch
import torch.fx as fx
from tools import fx_reference_modules as cases
from tools import record_fx_reference as record
from torch.fx._codegen import _module_under_torch, _NameTable
from torch.fx.graph_module import reduce_graph_module

REFERENCE = record.reference()
Inner = cases.codegen_modules(torch)["Inner"]


def _outer():
    return cases.outer_graph_module(torch)


def test_print_readable_nests_graph_module_children():
    # only GraphModule children are shown, nested in the parent's class
    run = record.run_case(torch, "print_readable_nested")
    assert run.seen == REFERENCE["print_readable_nested"]
    text = run.text
    assert all(line.strip() or line == "" for line in text.split("\n"))  # blank lines carry no indentation


def test_str_ends_with_the_code_and_the_hint():
    # the module's repr, its code and PyTorch's hint
    run = record.run_case(torch, "graph_module_str")
    assert run.seen == REFERENCE["graph_module_str"]
    assert str(run.gm).startswith(torch.nn.Module.__repr__(run.gm)) and run.gm.code in str(run.gm)


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
    run = record.run_case(torch, "shallow_copy_type")
    assert run.seen == REFERENCE["shallow_copy_type"]
    assert run.shallow.meta is run.gm.meta and run.shallow.lin is run.gm.lin


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
    assert record.run_case(torch, "typing_alias_annotations").seen == REFERENCE["typing_alias_annotations"]


def test_torch_function_rejects_proxies_of_two_tracers():
    # (torch.add's own repr in the message is each library's: it shows as <torch.add>)
    assert record.run_case(torch, "proxies_of_two_tracers").seen == REFERENCE["proxies_of_two_tracers"]
