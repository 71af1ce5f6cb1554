"""`python -m architecture [command]`: the audit's command line.

Commands (no command = all of them, what CI runs):
  check                 boundaries: layers, cycles, coupling, build-only and third-party imports,
                        plus import-linter's contracts from .importlinter
  surfaces [--update]   public surfaces against architecture/surfaces/ (--update rewrites them)
  report [--check]      render docs/architecture/*.md and .importlinter (--check: only say if stale)
  graph --module X      who imports X and what X imports, each with file:line

Options: --root DIR (default: the current directory), --format text|json, -v (list notes too).

Exit status: 0 when clean; otherwise the OR of the bits of the checks that found an error:
  1 layers, 2 cycles, 4 coupling, 8 build-only, 16 third-party, 32 surfaces, 64 schemas,
  128 maps (stale docs/architecture/*.md or .importlinter). 255: the audit could not run
  (bad arguments, a malformed boundaries.yaml, the project not built).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from architecture.findings import CHECK_BITS, COULD_NOT_RUN, ERROR, NOTE, Finding, exit_status

QUIET_NOTES = {"dynamic-import", "file-size"}   # listed only with -v: known, and rendered in the map


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(COULD_NOT_RUN, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    # Accepted before or after the command; SUPPRESS keeps a subcommand's parser from resetting a
    # value given before the command to its default.
    common = _Parser(add_help=False)
    common.add_argument("--root", type=Path, default=argparse.SUPPRESS,
                        help="the repository root (default: current directory)")
    common.add_argument("--format", choices=("text", "json"), default=argparse.SUPPRESS,
                        help="json: one object on stdout (default: text)")
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="list notes as well as errors")
    parser = _Parser(prog="python -m architecture", description=__doc__.split("\n\n")[0], parents=[common],
                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.add_parser("all", parents=[common], help="every check (the default)")
    sub.add_parser("check", parents=[common], help="boundary checks and import-linter contracts")
    p = sub.add_parser("surfaces", parents=[common], help="public surfaces against their manifests")
    p.add_argument("--update", action="store_true", help="rewrite the manifests from the code")
    p = sub.add_parser("report", parents=[common], help="render the maps and .importlinter")
    p.add_argument("--check", action="store_true", help="do not write; report stale files")
    p = sub.add_parser("graph", parents=[common], help="the imports into and out of one module")
    p.add_argument("--module", required=True, help="a module of boundaries.yaml or a dotted file module")
    return parser


class CannotRun(Exception):
    pass


def _context(root: Path) -> tuple[Any, Any]:
    from architecture import config, graph
    try:
        b = config.load(root)
    except config.ConfigError as e:
        raise CannotRun(str(e)) from e
    missing = [d for d in b.generated_dirs if not (root / d).is_dir()]
    if missing:
        raise CannotRun(f"generated sources missing ({', '.join(missing)}): build first (`make build`)")
    return b, graph.build(root, b)


def _boundaries(root: Path, b: Any, g: Any) -> list[Finding]:
    from architecture import checks, import_contracts
    return checks.all_boundary_checks(g, b) + import_contracts.run_import_linter(root)


def _surfaces(root: Path, g: Any, update: bool) -> tuple[list[Finding], list[str]]:
    from architecture import surface_manifest
    try:
        if update:
            return [], surface_manifest.update(root, g)
        return surface_manifest.check(root, g), []
    except ImportError as e:
        raise CannotRun(f"cannot import the project to read its surfaces ({e}): build first (`make build`)") from e


def _maps(root: Path, b: Any, g: Any, write: bool) -> tuple[list[Finding], list[str]]:
    from architecture import import_contracts, report
    if write:
        changed = report.write(root, b, g)
        if import_contracts.write(root, b, g):
            changed.append(import_contracts.IMPORTLINTER)
        return [], changed
    return report.stale(root, b, g) + import_contracts.stale(root, b, g), []


def _graph(module: str, b: Any, g: Any) -> dict[str, Any]:
    declared = module in b.modules
    def edge(e: Any) -> dict[str, Any]:
        return {"source": e.source, "target": e.target, "location": e.location, "kind": e.kind, "scope": e.scope,
                "source_module": e.source_unit, "target_module": e.target_unit}
    if declared:
        incoming = [e for e in g.edges if e.target_unit == module and e.source_unit != module and not e.external]
        outgoing = [e for e in g.edges if e.source_unit == module and e.target_unit != module and not e.stdlib]
    else:
        incoming = [e for e in g.edges if not e.external and (e.target == module or e.target.startswith(module + "."))
                    and not (e.source == module or e.source.startswith(module + "."))]
        outgoing = [e for e in g.edges if (e.source == module or e.source.startswith(module + ".")) and not e.stdlib
                    and not (e.target == module or e.target.startswith(module + "."))]
        if not incoming and not outgoing and not any(f.module == module for f in g.files):
            raise CannotRun(f"no module {module!r}: name a module of boundaries.yaml or a dotted file module")
    owner = b.module_of(module)
    return {"module": module, "declared": declared, "belongs_to": owner.name if owner else None,
            "layer": owner.layer.name if owner else None,
            "imported_by": [edge(e) for e in incoming], "imports": [edge(e) for e in outgoing]}


def _print_graph(info: dict[str, Any]) -> None:
    print(f"{info['module']}: module {info['belongs_to']}, layer {info['layer']}")
    for title, key, side in (("imported by", "imported_by", "source"), ("imports", "imports", "target")):
        print(f"{title} ({len(info[key])}):")
        for e in info[key]:
            print(f"  {e['location']}: {e['source']} -> {e['target']} ({e['kind']}, {e['scope']})")


def run(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for name, default in (("root", None), ("format", "text"), ("verbose", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    root = (args.root or Path.cwd()).resolve()
    added = str(root) not in sys.path
    if added:
        sys.path.insert(0, str(root))    # the surfaces are read by importing the project at root
    try:
        return _run(args, root)
    finally:
        if added and str(root) in sys.path:
            sys.path.remove(str(root))


def _run(args: argparse.Namespace, root: Path) -> int:
    from architecture import surface_manifest
    command = args.command or "all"
    started = time.perf_counter()
    findings: list[Finding] = []
    written: list[str] = []
    try:
        b, g = _context(root)
        if command == "graph":
            info = _graph(args.module, b, g)
            print(json.dumps(info, indent=1)) if args.format == "json" else _print_graph(info)
            return 0
        if command in ("all", "check"):
            findings += _boundaries(root, b, g)
        if command in ("all", "surfaces"):
            f, w = _surfaces(root, g, getattr(args, "update", False))
            findings += f
            written += w
        if command in ("all", "report"):
            f, w = _maps(root, b, g, write=command == "report" and not args.check)
            findings += f
            written += w
    except (CannotRun, surface_manifest.SurfaceInputError) as e:
        if args.format == "json":
            print(json.dumps({"status": COULD_NOT_RUN, "error": str(e)}))
        else:
            print(f"architecture: cannot run: {e}", file=sys.stderr)
        return COULD_NOT_RUN
    status = exit_status(findings)
    elapsed = time.perf_counter() - started
    if args.format == "json":
        print(json.dumps({"command": command, "status": status, "seconds": round(elapsed, 2), "written": written,
                          "findings": [f.to_json() for f in findings]}, indent=1))
        return status
    _print_text(findings, written, command, status, elapsed, args.verbose)
    return status


def _print_text(findings: list[Finding], written: list[str], command: str, status: int, elapsed: float,
                verbose: bool) -> None:
    for f in findings:
        if f.severity == ERROR or verbose or f.rule not in QUIET_NOTES:
            print(f.render())
    for rel in written:
        print(f"wrote {rel}")
    errors = [f for f in findings if f.severity == ERROR]
    per_check = ", ".join(f"{c} {sum(1 for f in errors if f.check == c)}" for c in CHECK_BITS
                          if any(f.check == c for f in errors))
    notes = sum(1 for f in findings if f.severity == NOTE)
    print(f"architecture {command}: {len(errors)} errors" + (f" ({per_check})" if per_check else "")
          + f", {notes} notes; exit {status}; {elapsed:.1f} s")


def main() -> NoReturn:
    sys.exit(run())
