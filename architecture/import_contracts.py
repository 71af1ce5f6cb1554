""".importlinter, generated from boundaries.yaml, and import-linter run over it.

import-linter sees `.py` files only and forbids by package, so it can carry only part of
boundaries.yaml: the layer order of the top-level runtime packages, the runtime's ban on build-time
packages, each module's forbidden modules and third-party packages (forbidden only where no
module inside it is allowed them), and the independence groups. The audit's own checks cover the
rest (Cython files, rules between a package and its parent). Generating the file keeps the two
from drifting apart; the `maps` check fails when the committed file is stale.
"""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

from architecture.config import Boundaries, Module
from architecture.findings import NOTE, Finding
from architecture.graph import Graph

IMPORTLINTER = ".importlinter"


def _existing(b: Boundaries, g: Graph) -> list[Module]:
    packages = {f.module for f in g.files if f.is_package and f.rel.endswith(".py")}
    return [m for m in b.modules.values() if not m.planned and m.name in packages]


def _python_externals(g: Graph) -> set[str]:
    """Third-party packages some .py file imports: the only ones import-linter's graph contains."""
    return {e.target_unit for e in g.edges if e.external and e.path.endswith(".py")}


def _subtree(m: Module, mods: list[Module]) -> list[Module]:
    return [x for x in mods if m.contains(x.name)]


def _forbidden_for(m: Module, b: Boundaries, mods: list[Module], externals: set[str]) -> tuple[list[str], list[str]]:
    inside = _subtree(m, mods)
    internal = []
    for t in mods:
        if m.contains(t.name) or t.contains(m.name):
            continue     # a package can neither forbid its own parts nor the package that holds it
        if any(b.allows(s, t) for s in inside):
            continue
        if b.is_runtime(m) and t.layer.kind == "build":
            continue     # the runtime-not-build contract says it once
        internal.append(t.name)
    internal = [t for t in internal if not any(t.startswith(o + ".") for o in internal)]
    allowed_ext = set(b.everywhere_third_party) | {p for s in inside for p in s.third_party}
    if b.is_runtime(m):
        allowed_ext |= set(b.build_only_third_party)   # said once, by runtime-not-build
    external = sorted(externals - allowed_ext - set(b.roots))
    return sorted(internal), external


def _roots_below(root: str, mods: list[Module]) -> set[str]:
    """The other roots that root's modules may import, directly or through them: of two roots in one layer
    (torch and functorch), the one that imports the other is listed above it."""
    found: set[str] = set()
    frontier = {root}
    while frontier:
        current = frontier.pop()
        named = {a.split(".")[0] for m in mods if m.name.split(".")[0] == current for a in m.may_import}
        for r in named - found - {root}:
            found.add(r)
            frontier.add(r)
    return found


def render(b: Boundaries, g: Graph) -> str:
    mods = _existing(b, g)
    externals = _python_externals(g)
    runtime_roots = sorted({m.name.split(".")[0] for m in mods if b.is_runtime(m)},
                           key=lambda r: (min(x.layer.rank for x in mods if x.name.split(".")[0] == r),
                                          -len(_roots_below(r, mods))))
    build_roots = sorted({m.name.split(".")[0] for m in mods if not b.is_runtime(m)})
    lines = [
        "# GENERATED from architecture/boundaries.yaml by `python -m architecture report`; do not edit.",
        "# import-linter checks the .py half of the import graph; `python -m architecture` checks all of it",
        "# (.pyx/.pxd cimports, generated sources, rules between a package and its parent).",
        "[importlinter]",
        "root_packages =",
        *[f"    {r}" for r in b.roots],
        "include_external_packages = True",
        "",
        "[importlinter:contract:runtime-layers]",
        "name = Runtime layers: " + " above ".join(runtime_roots),
        "type = layers",
        "layers =",
        *[f"    {r}" for r in runtime_roots],
        "",
        "[importlinter:contract:runtime-not-build]",
        "name = The runtime never imports build-time packages",
        "type = forbidden",
        "source_modules =",
        *[f"    {r}" for r in runtime_roots],
        "forbidden_modules =",
        *[f"    {r}" for r in build_roots + sorted(set(b.build_only_third_party) & externals - set(build_roots))],
    ]
    for m in mods:
        internal, external = _forbidden_for(m, b, mods, externals)
        if not internal and not external:
            continue
        lines += [
            "",
            f"[importlinter:contract:{m.name.replace('.', '-')}]",
            f"name = {m.name} ({m.layer.name}) imports only what boundaries.yaml allows",
            "type = forbidden",
            # Direct imports only: boundaries.yaml rules are per import; chains through allowed
            # modules (a lazy pycuda import deep in c10.cuda) are not this module's doing.
            "allow_indirect_imports = True",
            "source_modules =",
            f"    {m.name}",
            "forbidden_modules =",
            *[f"    {t}" for t in internal + external],
        ]
    existing = {m.name for m in mods}
    for i, (group, _line) in enumerate(b.independent):
        present = [n for n in group if n in existing]
        if len(present) < 2:
            continue
        lines += ["", f"[importlinter:contract:independent-{i}]", f"name = {' and '.join(present)} do not know each other",
                  "type = independence", "modules =", *[f"    {n}" for n in present]]
    return "\n".join(lines) + "\n"


def stale(root: Path, b: Boundaries, g: Graph) -> list[Finding]:
    path = root / IMPORTLINTER
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if current == render(b, g):
        return []
    return [Finding("maps", "importlinter-stale",
                    f"{IMPORTLINTER} does not carry the rules of {b.path}" if current is not None
                    else f"{IMPORTLINTER} is missing",
                    "run `python -m architecture report` (it rewrites .importlinter from boundaries.yaml) "
                    "and commit the result", IMPORTLINTER, 1)]


def write(root: Path, b: Boundaries, g: Graph) -> bool:
    path = root / IMPORTLINTER
    text = render(b, g)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def run_import_linter(root: Path) -> list[Finding]:
    """import-linter over .importlinter, in process (its contracts are the .py half of `layers`)."""
    if not (root / IMPORTLINTER).exists():
        return [Finding("layers", "import-linter-skipped", f"no {IMPORTLINTER}: import-linter's contracts were not run",
                        "run `python -m architecture report` to generate it", None, None, NOTE)]
    try:
        from importlinter import cli
    except ImportError:
        return [Finding("layers", "import-linter-missing", "import-linter is not installed: its contracts were not run",
                        "pip install import-linter (the project's `test` extra has it)", IMPORTLINTER, None, NOTE)]
    out = io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = cli.lint_imports(config_filename=str(root / IMPORTLINTER), no_cache=True, no_logo=True)
    if status == 0:
        return []
    broken = [ln.strip() for ln in out.getvalue().splitlines() if "BROKEN" in ln]
    return [Finding("layers", "import-linter",
                    "import-linter contracts broken: " + ("; ".join(broken) or "see its report") + "\n"
                    + out.getvalue().strip(),
                    "fix the imports it names (each line is file:line), then rerun", IMPORTLINTER, None)]
