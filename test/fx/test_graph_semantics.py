"""torch.fx Graph/Node semantics checked against PyTorch 2.13 (its answers for the same programs are
recorded by tools/record_fx_reference.py in test/data/fx/fx.json): purity of random ops under dead-code
elimination, ordering of nodes by graph position, replace_pattern's failure modes, naming, printing and
copying."""
import pytest

import torch
from tools import fx_reference_graphs as cases
from tools import record_fx_reference as record

REFERENCE = record.reference()


def _check(case):
    run = record.run_case(torch, case)
    assert run.seen == REFERENCE[case]
    return run


# -- dead-code elimination and random ops ----------------------------------------------------------------------------

def test_eliminate_dead_code_keeps_unused_random_draws():
    _check("dead_code_keeps_random_draws")


@pytest.mark.parametrize("name", cases.RANDOM_FUNCTIONS)
def test_torch_random_functions_are_impure_whatever_impure_random_says(name):
    # [is_impure(), is_impure(impure_random=False)]
    assert record.run_case(torch, "torch_random_impurity").seen[name] == REFERENCE["torch_random_impurity"][name]


@pytest.mark.parametrize("name", cases.PURE_FUNCTIONS)
def test_other_functions_are_pure(name):
    assert record.run_case(torch, "pure_functions").seen[name] == REFERENCE["pure_functions"][name]


def test_aten_random_ops_follow_impure_random_and_mutating_ops_are_always_impure():
    _check("aten_impurity")


def test_dead_code_elimination_drops_pure_unused_nodes_but_not_placeholders():
    _check("dead_code_drops_pure_nodes")


# -- nodes order by graph position -----------------------------------------------------------------------------------

def test_nodes_compare_by_position():
    _check("node_comparisons")
    graph, _ = cases.neg_chain(torch, 3)
    assert sorted(reversed(list(graph.nodes))) == list(graph.nodes)


def test_order_follows_moves_and_insertions_and_erased_nodes_keep_their_place():
    _check("order_after_moves")


def test_order_survives_many_insertions_at_one_place():
    # inserting_after(n) puts each new node right after n: the latest comes first
    in_order = list(_check("many_insertions").graph.nodes)
    assert all(first < second for first, second in zip(in_order, in_order[1:]))
    assert sorted(reversed(in_order)) == in_order


def test_nodes_of_different_graphs_compare_by_position_and_equal_positions_are_unordered():
    _check("cross_graph_order")


# -- insertion points ------------------------------------------------------------------------------------------------

def test_insertion_points_apply_at_once_and_restore_on_exit():
    # (inserting_after without `with`, as in PyTorch, moves the point for good)
    _check("insertion_points")


# -- replace_pattern -------------------------------------------------------------------------------------------------

def test_replace_pattern_with_a_placeholder_only_pattern_raises_and_leaves_the_graph_intact():
    # PyTorch raises the same error, but only after rewriting the earlier matches into a cyclic graph
    run = _check("replace_pattern_placeholder_only")
    run.gm.graph.lint()
    assert run.gm.code == run.before


def test_replace_pattern_reports_targets_neither_module_has():
    # the error's args as PyTorch gives them; a plain function replacement copies nothing and checks nothing
    _check("replace_pattern_missing_target")


def test_replace_pattern_lints_a_replacement_graph_module_that_lost_an_attribute():
    _check("replace_pattern_broken_replacement_module")


def test_replace_pattern_copies_the_replacements_modules_and_parameters():
    run = _check("replace_pattern_copies_modules")
    gm, rep = run.gm, run.rep
    assert gm.lin is not rep.lin
    x = torch.randn(2, 3)
    assert torch.allclose(gm(x), rep(x) + 1)


# -- naming, printing, code generation -------------------------------------------------------------------------------

def test_generated_names_and_globals_match_pytorch():
    _check("generated_names_and_globals")


def test_format_node_quirks_of_pytorch():
    _check("format_node_quirks")


def test_call_module_needs_an_existing_submodule():
    _check("call_module_checks")


# -- copying ---------------------------------------------------------------------------------------------------------

def test_graph_copy_node_copy_and_deepcopy():
    run = _check("graph_and_node_copies")
    graph, x, y, neg = run.graph, run.x, run.y, run.neg
    assert run.copied_into_target is run.target.find_nodes(op="call_function", target=neg.target)[0]
    assert run.old_output is run.out and run.copied.args == (x,)
    assert run.twin.args == (y,) and run.twin.meta == neg.meta and run.twin.meta is not neg.meta
    assert run.clone.output_node().type is int
    assert run.clone._codegen is not graph._codegen


def test_find_nodes():
    _check("find_nodes")
