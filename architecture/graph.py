"""From scanned imports to the module graph: resolution, cycles, coupling figures."""
from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from architecture.config import Boundaries, Module
from architecture.scan import ImportEdge, SourceFile, Unresolved, discover, scan_file

# Cython's own declaration packages: always there, like the standard library.
CYTHON_BUILTINS = frozenset({"libc", "libcpp", "cpython", "cython", "openmp", "posix"})


@dataclass(frozen=True, order=True)
class Edge:
    """One import, resolved: from the module holding the file to the module holding the target."""
    source: str          # dotted source module (file level)
    target: str          # dotted target (a known file module, or the name as written when external)
    path: str
    line: int
    kind: str
    scope: str
    source_unit: str     # declared module (boundaries.yaml) of the source
    target_unit: str     # declared module of the target, or the top-level name of an external package
    external: bool       # third-party (not project, not stdlib)
    stdlib: bool

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def runtime(self) -> bool:
        """Executed when the program runs (type-checking imports never are)."""
        return self.scope != "type-checking"


@dataclass
class Graph:
    files: list[SourceFile]
    edges: list[Edge]                 # every resolved edge, deduplicated per file line and target
    unresolved: list[Unresolved]
    unowned: list[SourceFile]         # files under a root that no declared module holds

    def internal(self) -> list[Edge]:
        return [e for e in self.edges if not e.external and not e.stdlib and e.source_unit != e.target_unit]

    def unit_edges(self, runtime_only: bool = True) -> dict[str, dict[str, list[Edge]]]:
        """module -> module -> the file-level edges behind that dependency."""
        out: dict[str, dict[str, list[Edge]]] = defaultdict(lambda: defaultdict(list))
        for e in self.internal():
            if runtime_only and not e.runtime:
                continue
            out[e.source_unit][e.target_unit].append(e)
        return out


def build(root: Path, b: Boundaries) -> Graph:
    files = discover(root, list(b.roots), list(b.generated_dirs))
    known = {f.module for f in files}
    edges: set[Edge] = set()
    unresolved: list[Unresolved] = []
    unowned: list[SourceFile] = []
    stdlib = set(sys.stdlib_module_names) | CYTHON_BUILTINS
    roots = set(b.roots)
    for f in files:
        src_unit = b.module_of(f.module)
        if src_unit is None:
            unowned.append(f)
            continue
        raw, unres = scan_file(f)
        unresolved += unres
        for e in raw:
            edges.add(_resolve(e, src_unit, b, known, roots, stdlib))
    return Graph(files, sorted(edges), sorted(unresolved), unowned)


def _resolve(e: ImportEdge, src_unit: Module, b: Boundaries, known: set[str], roots: set[str],
             stdlib: set[str]) -> Edge:
    top = e.target.split(".")[0]
    if top in roots:
        # `from a.b import c` names module a.b.c if that exists, else the attribute c of a.b.
        target = e.target
        while target not in known and "." in target:
            target = target.rsplit(".", 1)[0]
        unit = b.module_of(target)
        return Edge(e.source, target, e.path, e.line, e.kind, e.scope, src_unit.name,
                    unit.name if unit else top, False, False)
    is_std = top in stdlib
    return Edge(e.source, top if not is_std else e.target.split(".")[0], e.path, e.line, e.kind, e.scope,
                src_unit.name, top, not is_std, is_std)


# --- Cycles -------------------------------------------------------------------------------------


def strongly_connected(nodes: list[str], succ: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively; components of more than one node, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(succ.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def cycle_in(component: list[str], succ: dict[str, set[str]]) -> list[str]:
    """One shortest cycle through the component's first node: [a, b, ..., a]."""
    start = component[0]
    members = set(component)
    prev: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for nxt in sorted(succ.get(node, ())):
                if nxt not in members:
                    continue
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if nxt not in seen:
                    seen.add(nxt)
                    prev[nxt] = node
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    return [start, start]


# --- Coupling -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Coupling:
    module: str
    incoming: int        # afferent: modules importing this one
    outgoing: int        # efferent: modules this one imports
    files: int
    edges_out: int       # file-level import lines behind the outgoing dependencies

    @property
    def instability(self) -> float:
        total = self.incoming + self.outgoing
        return round(self.outgoing / total, 2) if total else 0.0


def coupling(g: Graph, b: Boundaries) -> dict[str, Coupling]:
    deps = g.unit_edges()
    incoming: dict[str, set[str]] = defaultdict(set)
    for src, targets in deps.items():
        for t in targets:
            incoming[t].add(src)
    files: dict[str, int] = defaultdict(int)
    for f in g.files:
        unit = b.module_of(f.module)
        if unit is not None:
            files[unit.name] += 1
    out = {}
    for name, m in b.modules.items():
        if m.planned:
            continue
        targets = deps.get(name, {})
        out[name] = Coupling(name, len(incoming.get(name, ())), len(targets), files[name],
                             sum(len(v) for v in targets.values()))
    return out


def dependents(module: str, deps: dict[str, dict[str, list[Edge]]]) -> set[str]:
    """Every module that reaches `module` through imports (the blast radius of a change);
    `deps` is Graph.unit_edges()."""
    rev: dict[str, set[str]] = defaultdict(set)
    for src, targets in deps.items():
        for t in targets:
            rev[t].add(src)
    seen: set[str] = set()
    todo = [module]
    while todo:
        for src in rev.get(todo.pop(), ()):
            if src not in seen:
                seen.add(src)
                todo.append(src)
    seen.discard(module)
    return seen
