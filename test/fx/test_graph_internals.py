"""Graph and Node internals that the public API shows: moving nodes, erasing, copying, linting and printing.
The names, printouts, warnings and errors are PyTorch 2.13's for the same programs, recorded by
tools/record_fx_reference.py in test/data/fx/fx.json."""
import copy
import operator

import torch
import torch.fx as fx
from tools import fx_reference_graphs as cases
from tools import record_fx_reference as record
from tools.fx_reference_run import Run

REFERENCE = record.reference()


def _chain_graph() -> tuple[fx.Graph, list[fx.Node]]:
    return cases.chain_graph(torch)


def _check(case: str) -> Run:
    run = record.run_case(torch, case)
    assert run.seen == REFERENCE[case]
    return run


def test_prepend_and_append_move_nodes_and_keep_order_keys_sorted() -> None:
    # the order after each move (moving a node next to itself or where it is changes nothing), and the refusal
    # to move a node of another graph
    run = _check("prepend_and_append")
    assert sorted(reversed(list(run.graph.nodes))) == list(run.graph.nodes)


def test_erase_node_blanks_arguments_and_checks_users_and_graph() -> None:
    # erasing a used node or another graph's node fails; an erased node's arguments are blanked (and it leaves
    # its inputs' users); erasing it again warns
    run = _check("erase_node_checks")
    assert run.d not in run.x.users and run.d not in run.a.users


def test_inserting_before_none_is_the_start_and_after_none_the_end() -> None:
    run = _check("insertion_at_ends")
    nodes = list(run.graph.nodes)
    assert nodes[0] is run.p and nodes[-1] is run.q
    assert nodes.index(run.r) == nodes.index(run.a) + 1
    assert nodes.index(run.s) == nodes.index(run.c) - 1


def test_create_node_checks_and_names() -> None:
    _check("create_node_checks")


def test_output_node_lint_and_str() -> None:
    _check("output_node_lint_and_str")


def test_lint_checks_targets_against_the_owning_module() -> None:
    _check("lint_owning_module_targets")


def test_get_attr_warns_when_the_reference_is_missing() -> None:
    # no warning for a parameter or a None buffer; one for a missing attribute, two for a missing module
    _check("get_attr_warnings")


def test_deepcopy_and_graph_copy() -> None:
    g, (x, a, b, c) = _chain_graph()
    g.output_node().meta["tag"] = 1
    twin = copy.deepcopy(g)
    assert str(twin) == str(g)
    assert twin.output_node().meta == {"tag": 1}
    h = fx.Graph()
    val_map: dict[fx.Node, fx.Node] = {}
    returned, old_out = h.graph_copy(g, val_map, return_output_node=True)
    assert old_out is g.output_node() and returned is val_map[c]
    h2 = fx.Graph()
    y = h2.placeholder("y")
    assert h2.graph_copy(g, {x: y}).args == (h2.find_nodes(op="call_function", target=operator.mul)[0], y)


def test_python_code_restores_node_reprs() -> None:
    # the code, and the nodes' reprs after generating it
    _check("python_code_of_chain")


def test_map_aggregate_keeps_namedtuples_and_makes_lists_immutable() -> None:
    # a torch.Size comes back a plain tuple, lists and dicts immutable ones, slices mapped through
    _check("map_aggregate")
