"""The boundary checks: each turns the graph and boundaries.yaml into Findings for its own bit."""
from __future__ import annotations


from architecture.config import Boundaries
from architecture.findings import NOTE, Finding
from architecture.graph import Edge, Graph, coupling, cycle_in, strongly_connected

EDIT_BOUNDARIES = "or, if the design changed, say so in architecture/boundaries.yaml and run `python -m architecture report`"


def _phase(runtime: bool) -> str:
    return "runtime" if runtime else "build-time"


def declarations(g: Graph, b: Boundaries) -> list[Finding]:
    """Every package is a declared module, and every declared module exists (or is planned)."""
    out = []
    for f in g.unowned:
        out.append(Finding("layers", "undeclared", f"{f.module} belongs to no module of {b.path}",
                           f"add its package to `modules:` in {b.path}", f.rel, 1))
    packages = {f.module for f in g.files if f.is_package}
    for name, m in b.modules.items():
        exists = name in packages or any(x.startswith(name + ".") for x in packages)
        if m.planned and exists:
            out.append(Finding("layers", "planned-exists", f"module {name} exists but is marked `planned: true`",
                               f"remove `planned: true` from {name} in {b.path}", b.path, m.line))
        elif not m.planned and not exists:
            out.append(Finding("layers", "missing", f"module {name} is declared but has no package on disk",
                               f"create it, mark it `planned: true`, or remove it from {b.path}", b.path, m.line))
    for f in g.files:
        if not f.is_package:
            continue
        owner = b.module_of(f.module)
        if owner is not None and owner.name != f.module and not owner.covers_subpackages:
            out.append(Finding("layers", "undeclared", f"package {f.module} is not declared; it falls into "
                               f"{owner.name} by default", f"declare {f.module} in {b.path} with its layer, "
                               f"purpose and may_import (or set covers_subpackages on {owner.name})", f.rel, 1))
    return out


def layers(g: Graph, b: Boundaries) -> list[Finding]:
    """Imports between modules that boundaries.yaml does not allow, and between independent ones."""
    out = []
    build_only = {n for n, m in b.modules.items() if m.layer.kind == "build"}
    for e in g.internal():
        src, tgt = b.modules[e.source_unit], b.modules.get(e.target_unit)
        if tgt is None:
            continue
        if b.is_runtime(src) and tgt.name in build_only and e.runtime:
            continue   # the build-only check reports it, with its own bit
        if not b.allows(src, tgt):
            allowed = ", ".join(src.may_import) or "no other module"
            what = "type-checking import" if not e.runtime else f"{_phase(b.is_runtime(src))} {e.kind} ({e.scope})"
            out.append(Finding(
                "layers", "layer",
                f"{what} {e.source} -> {e.target}: {src.name} (layer {src.layer.name}) may not import "
                f"{tgt.name} (layer {tgt.layer.name}); it may import: {allowed}",
                f"move the code that needs {tgt.name} into a module that may import it, or pass it in "
                f"from above {EDIT_BOUNDARIES}", e.path, e.line,
                extra={"source": src.name, "target": tgt.name, "phase": _phase(b.is_runtime(src))}))
    for group, line in b.independent:
        def member(unit: str) -> str | None:
            # A group member stands for its declared subpackages too (import-linter's as_packages).
            return next((m for m in group if unit == m or unit.startswith(m + ".")), None)
        for e in g.internal():
            a, c = member(e.source_unit), member(e.target_unit)
            if a is not None and c is not None and a != c:
                out.append(Finding(
                    "layers", "independence",
                    f"{e.source} -> {e.target}: {a} and {c} must not know each other "
                    f"(independent at {b.path}:{line})",
                    "move what both need into a module below them both", e.path, e.line))
    return out


def cycles(g: Graph, b: Boundaries) -> list[Finding]:
    out = []
    for runtime in (True, False):
        deps = g.unit_edges(runtime_only=runtime)
        succ = {src: set(t) for src, t in deps.items()
                if (b.modules[src].layer.kind == "runtime") == runtime}
        for comp in strongly_connected(sorted(succ), succ):
            ring = cycle_in(comp, succ)
            steps = [deps[a][c][0] for a, c in zip(ring, ring[1:])]
            chain = " -> ".join(ring)
            detail = "; ".join(f"{s.source} -> {s.target} at {s.location}" for s in steps)
            out.append(Finding(
                "cycles", "cycle",
                f"{_phase(runtime)} import cycle between modules {', '.join(comp)}: {chain} ({detail})",
                "break one edge of the cycle: move the shared code down a layer, or have the lower module "
                "receive what it needs as an argument", steps[0].path, steps[0].line,
                extra={"modules": comp, "cycle": ring, "edges": [s.location for s in steps]}))
    return out


def file_cycles(g: Graph, b: Boundaries) -> list[Finding]:
    """Files of one module importing each other, directly or through others, at import or at call time
    (a lazy import hides a cycle from the interpreter, not from a reader). Cycles listed under
    `file_cycles:` in boundaries.yaml, each with its reason, are allowed."""
    succ: dict[str, set[str]] = {}
    where: dict[tuple[str, str], Edge] = {}
    for e in g.edges:
        if e.external or e.stdlib or not e.runtime or e.source == e.target or e.source_unit != e.target_unit:
            continue
        succ.setdefault(e.source, set()).add(e.target)
        where.setdefault((e.source, e.target), e)
    out = []
    used: set[int] = set()
    for comp in strongly_connected(sorted(succ), succ):
        allowed = next((a for a in b.file_cycles if a.files >= set(comp)), None)
        if allowed is not None:
            used.add(allowed.line)
            continue
        ring = cycle_in(comp, succ)
        steps = [where[(a, c)] for a, c in zip(ring, ring[1:])]
        detail = "; ".join(f"{s.source} -> {s.target} at {s.location} ({s.scope})" for s in steps)
        out.append(Finding(
            "cycles", "file-cycle",
            f"import cycle between files of module {steps[0].source_unit}: {' -> '.join(ring)} ({detail})",
            "move what both files need into a third file that imports neither, or, if the cycle is "
            f"deliberate, list its files with a reason under `file_cycles:` in {b.path}",
            steps[0].path, steps[0].line, extra={"files": comp, "cycle": ring}))
    for a in b.file_cycles:
        if a.line not in used:
            out.append(Finding("cycles", "stale-file-cycle", f"the file cycle listed at {b.path}:{a.line} "
                               f"({', '.join(sorted(a.files))}) no longer exists", "remove the entry",
                               b.path, a.line, severity=NOTE))
    return out


def file_sizes(g: Graph, b: Boundaries) -> list[Finding]:
    """Handwritten source files over the line budget: a note, then an error unless listed with a reason."""
    budget = b.file_size
    allowed = dict(budget.allowed)
    generated = tuple(d.rstrip("/") + "/" for d in b.generated_dirs)
    out = []
    for f in g.files:
        if f.rel.startswith(generated) or f.path.name.startswith("_gen_"):   # generated: rewritten by each build
            continue
        with open(f.path, "rb") as fh:
            n = sum(1 for _ in fh)
        listed = allowed.pop(f.rel, None)
        if listed is not None and n <= budget.error_above:
            out.append(Finding("coupling", "stale-file-size", f"{f.rel} is listed under file_size.allowed but has "
                               f"{n} lines, within the budget of {budget.error_above}", "remove the entry",
                               b.path, budget.line, severity=NOTE))
        if n > budget.error_above and listed is None:
            out.append(Finding(
                "coupling", "file-size", f"{f.rel} has {n} lines, over the budget of {budget.error_above}",
                f"split it by concept into files whose names say what they hold, or list it with a reason "
                f"under file_size.allowed in {b.path}", f.rel, 1, extra={"lines": n}))
        elif n > budget.note_above:
            why = f" (listed: {listed})" if listed else ""
            out.append(Finding("coupling", "file-size", f"{f.rel} has {n} lines, over the "
                               f"{budget.note_above} a file should stay under{why}",
                               "split it by concept when you next change it", f.rel, 1, severity=NOTE,
                               extra={"lines": n}))
    for rel in allowed:
        out.append(Finding("coupling", "stale-file-size", f"{rel} is listed under file_size.allowed but does "
                           "not exist", "remove the entry", b.path, budget.line, severity=NOTE))
    return out


def coupling_budget(g: Graph, b: Boundaries) -> list[Finding]:
    out = []
    for name, c in sorted(coupling(g, b).items()):
        m = b.modules[name]
        limits = (("incoming", c.incoming, m.budget.max_incoming), ("outgoing", c.outgoing, m.budget.max_outgoing),
                  ("instability", c.instability, m.budget.max_instability))
        for what, value, limit in limits:
            if limit is not None and value > limit:
                out.append(Finding(
                    "coupling", f"max-{what}",
                    f"module {name}: {what} {value} exceeds its budget {limit} (incoming {c.incoming}, "
                    f"outgoing {c.outgoing}, instability {c.instability})",
                    f"cut dependencies (`python -m architecture graph --module {name}` lists them), or raise "
                    f"the budget in {b.path} with a reason", b.path, m.line))
    return out


def build_only(g: Graph, b: Boundaries) -> list[Finding]:
    """The runtime must import without torchgen, tools, architecture and the build's packages."""
    out = []
    build_units = {n for n, m in b.modules.items() if m.layer.kind == "build"}
    banned_external = set(b.build_only_third_party)
    for e in g.edges:
        src = b.modules[e.source_unit]
        if not b.is_runtime(src) or not e.runtime:
            continue
        internal_hit = not e.external and not e.stdlib and e.target_unit in build_units
        if internal_hit or (e.external and e.target_unit in banned_external):
            out.append(Finding(
                "build-only", "runtime-imports-build",
                f"runtime module {e.source} imports build-time-only {e.target} ({e.kind}, {e.scope} scope); "
                f"an installed Ember has no {e.target_unit}",
                "compute it at build time (torchgen can generate the data into a _gen_ module) or use a "
                "runtime equivalent", e.path, e.line))
    return out


def third_party(g: Graph, b: Boundaries) -> list[Finding]:
    out = []
    everywhere = set(b.everywhere_third_party)
    for e in g.edges:
        if not e.external:
            continue
        src = b.modules[e.source_unit]
        if e.target_unit in everywhere or e.target_unit in src.third_party:
            continue
        if b.is_runtime(src) and e.target_unit in b.build_only_third_party:
            continue   # reported by the build-only check
        allowed = ", ".join(src.third_party) or "none"
        out.append(Finding(
            "third-party", "not-allowed",
            f"{e.source} imports third-party {e.target_unit!r}; module {src.name} may use: {allowed}",
            f"use it from a module that allows it (`third_party:` in {b.path}), or add it to "
            f"{src.name}'s third_party list if this module should own the dependency", e.path, e.line))
    return out


def unresolved_notes(g: Graph) -> list[Finding]:
    return [Finding("layers", "dynamic-import", f"{u.source}: import target computed at run time: {u.text}",
                    "prefer a literal module name so the audit can check it", u.path, u.line, severity=NOTE)
            for u in g.unresolved]


def all_boundary_checks(g: Graph, b: Boundaries) -> list[Finding]:
    found = declarations(g, b) + layers(g, b) + cycles(g, b) + file_cycles(g, b) + coupling_budget(g, b)
    found += file_sizes(g, b)
    found += build_only(g, b) + third_party(g, b) + unresolved_notes(g)
    return found

