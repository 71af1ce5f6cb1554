"""torch.fx.subgraph_rewriter: replace_pattern finds every occurrence of a pattern function's graph
inside a GraphModule and replaces it with a replacement function's graph."""
from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import torch
from torch.fx._symbolic_trace import symbolic_trace
from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    # the pattern's node the match was grown from (the node the pattern returns)
    anchor: Node
    # pattern node -> graph node
    nodes_map: dict[Node, Node]


class _Candidate:
    """A match in progress: pattern node -> graph node, in the order they were matched."""

    def __init__(self) -> None:
        self.nodes_map: dict[Node, Node] = {}


class _SubgraphMatcher:
    """Matches a pattern graph (its inputs standing for any value) against subgraphs of a graph:
    same ops and targets, same literal arguments, and no node inside the match used from outside."""

    def __init__(self, pattern: Graph) -> None:
        self.pattern = pattern
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        output = pattern.output_node()
        self.returning = output.all_input_nodes
        if len(self.returning) != 1:
            raise NotImplementedError("replace_pattern: patterns must return exactly one value here")

    def match(self, graph: Graph) -> list[_Candidate]:
        found: list[_Candidate] = []
        claimed: set[Node] = set()
        for node in graph.nodes:
            candidate = _Candidate()
            if not self._match_nodes(self.returning[0], node, candidate) or not self._is_contained(candidate):
                continue
            compute = [g for p, g in candidate.nodes_map.items() if p.op not in ("placeholder", "output")]
            # overlapping matches can't both be replaced: the first one wins
            if any(g in claimed for g in compute):
                continue
            claimed.update(compute)
            found.append(candidate)
        return found

    def _match_nodes(self, pn: Node, gn: Node, candidate: _Candidate) -> bool:
        if pn in candidate.nodes_map:
            return candidate.nodes_map[pn] is gn
        if gn in candidate.nodes_map.values():
            return False
        if pn.op == "placeholder":
            candidate.nodes_map[pn] = gn
            return True
        if pn.op != gn.op or pn.target != gn.target:
            return False
        if len(pn.args) != len(gn.args) or list(pn.kwargs) != list(gn.kwargs):
            return False
        saved = dict(candidate.nodes_map)
        candidate.nodes_map[pn] = gn
        if self._match_args([*pn.args, *pn.kwargs.values()], [*gn.args, *gn.kwargs.values()], candidate):
            return True
        candidate.nodes_map = saved
        return False

    def _match_args(self, pattern_args: list[Any] | tuple[Any, ...], graph_args: list[Any] | tuple[Any, ...],
                    candidate: _Candidate) -> bool:
        if len(pattern_args) != len(graph_args):
            return False
        for pa, ga in zip(pattern_args, graph_args):
            if isinstance(pa, Node) and isinstance(ga, Node):
                ok = self._match_nodes(pa, ga, candidate)
            elif isinstance(pa, (list, tuple)) and isinstance(ga, (list, tuple)):
                ok = self._match_args(pa, ga, candidate)
            elif isinstance(pa, Node) and pa.op == "placeholder":
                # a pattern input may stand for a literal of the graph
                if pa in candidate.nodes_map:
                    return bool(candidate.nodes_map[pa] == ga)
                candidate.nodes_map[pa] = ga
                ok = True
            else:
                ok = not isinstance(pa, Node) and not isinstance(ga, Node) and type(pa) is type(ga) and pa == ga
            if not ok:
                return False
        return True

    def _is_contained(self, candidate: _Candidate) -> bool:
        inside = {g: p for p, g in candidate.nodes_map.items() if p.op != "placeholder"}
        for gn, pn in inside.items():
            if pn in self.returning:
                continue
            if any(user not in inside for user in gn.users):
                return False
        return True


def _graph_of(fn: Callable[..., Any] | GraphModule | Graph) -> Graph:
    if isinstance(fn, GraphModule):
        return fn.graph
    if isinstance(fn, Graph):
        return fn
    return symbolic_trace(fn).graph


def replace_pattern(gm: GraphModule, pattern: Callable[..., Any] | GraphModule,
                    replacement: Callable[..., Any] | GraphModule) -> list[Match]:
    """Replace every non-overlapping occurrence of pattern's graph in gm with replacement's graph (both
    traced with symbolic_trace when callables); returns the matches, gm recompiled."""
    original_graph = gm.graph
    pattern_graph = _graph_of(pattern)
    replacement_graph = _graph_of(replacement)
    matcher = _SubgraphMatcher(pattern_graph)
    replacement_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    if len(matcher.placeholders) != len(replacement_placeholders):
        raise AssertionError(f"Placeholder count mismatch: {len(matcher.placeholders)} vs "
                             f"{len(replacement_placeholders)}")
    candidates = matcher.match(original_graph)
    # Every match is checked before the first edit, so that a failing one leaves the graph untouched:
    # each pattern input must be bound, and the replacement needs a place to go.
    for candidate in candidates:
        for pn in matcher.placeholders:
            candidate.nodes_map[pn]  # noqa: B018  (a KeyError for an input the match did not bind)
        if _insertion_anchor(original_graph, candidate, matcher) is None:
            raise AssertionError("The insert point can't be None")
    matches: list[Match] = []
    # a graph node an earlier replacement took the place of: later matches must read the new node
    changed: dict[Node, Node] = {}
    for candidate in candidates:
        val_map: dict[Node, Any] = {}
        for rn, pn in zip(replacement_placeholders, matcher.placeholders):
            gn = candidate.nodes_map[pn]
            if isinstance(gn, Node) and gn in changed:
                gn = changed[gn]
                candidate.nodes_map[pn] = gn
            val_map[rn] = gn
        returning = candidate.nodes_map[matcher.returning[0]]
        with original_graph.inserting_before(_insertion_anchor(original_graph, candidate, matcher)):
            copied = original_graph.graph_copy(replacement_graph, val_map)
        if isinstance(copied, Node):
            returning.replace_all_uses_with(copied)
            changed[returning] = copied
        for node in reversed(pattern_graph.nodes):
            if node.op not in ("placeholder", "output"):
                original_graph.erase_node(candidate.nodes_map[node])
        matches.append(Match(anchor=matcher.returning[0], nodes_map=candidate.nodes_map))
    gm.recompile()
    if isinstance(replacement, torch.nn.Module):
        _adopt_fetched_attributes(gm, replacement)
    return matches


def _insertion_anchor(graph: Graph, candidate: _Candidate, matcher: _SubgraphMatcher) -> Node | None:
    """Where a match's replacement goes: before the first reader of the value the pattern returns, or
    else after that value's node. A pattern that just returns an input has no node of its own to follow,
    so when nothing reads the value (it is the graph's output) there is no place (None)."""
    returned = candidate.nodes_map[matcher.returning[0]]
    readers = set(returned.users)
    first_reader = next((n for n in graph.nodes if n in readers), None)
    if first_reader is not None or matcher.returning[0].op == "placeholder":
        return first_reader
    return returned.next


def _resolve_path(root: object, dotted: str) -> Any | None:
    """The object a get_attr/call_module target names below root; None when a step is missing."""
    found: Any = root
    for step in dotted.split("."):
        found = getattr(found, step, None)
        if found is None:
            break
    return found


def _unresolved_references(gm: GraphModule) -> Iterator[Node]:
    """gm's get_attr/call_module nodes whose target gm lacks, each checked only when reached (so a
    target supplied for an earlier node counts as present for the later ones)."""
    referencing = (node for node in gm.graph.nodes if node.op in ("get_attr", "call_module"))
    return (node for node in referencing if _resolve_path(gm, node.target) is None)


def _missing_in_replacement(node: Node) -> RuntimeError:
    # PyTorch raises this one with three arguments, which shows in str(error)
    return RuntimeError('Attempted to create a "', node.op, f'" node during subgraph rewriting with target '
                        f"{node.target}, but the referenced attribute does not exist in the replacement "
                        "GraphModule")


def _adopt_fetched_attributes(gm: GraphModule, replacement: torch.nn.Module) -> None:
    """After rewriting, deep-copy into gm the submodules and attributes its get_attr/call_module nodes
    name but gm lacks, taking them from the replacement module."""
    if isinstance(replacement, GraphModule):
        replacement.graph.lint()
    # submodules the rewrite orphaned go first, so that only what the new graph reads is looked for
    gm.delete_all_unused_submodules()
    for reference in _unresolved_references(gm):
        target = reference.target
        assert isinstance(target, str)
        donor = _resolve_path(replacement, target)
        if donor is None:
            raise _missing_in_replacement(reference)
        duplicate = copy.deepcopy(donor)
        if isinstance(duplicate, torch.nn.Module):
            gm.add_submodule(target, duplicate)
            continue
        setattr(gm, target, duplicate)
    gm.graph.lint()
