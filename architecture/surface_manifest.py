"""The public surfaces, recorded: committed manifests, and the check that they did not break.

architecture/surfaces.yaml says which surfaces exist; architecture/surfaces/ holds what each looked
like when last accepted (`python -m architecture surfaces --update` rewrites them). The check
compares the code against them: a removal or an incompatible change fails unless
architecture/surfaces/allowlist.yaml records it with a reason; additions are listed.
"""
from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from architecture import public_api, schema_compat
from architecture.findings import ERROR, NOTE, Finding
from architecture.graph import Graph

SPEC = "architecture/surfaces.yaml"
MANIFESTS = "architecture/surfaces"
ALLOWLIST = f"{MANIFESTS}/allowlist.yaml"
SCHEMAS = f"{MANIFESTS}/operator_schemas.txt"
NATIVE_FUNCTIONS = "aten/native/native_functions.yaml"
UPDATE = "python -m architecture surfaces --update"

_ENV = re.compile(r"""\b(?:os\.)?(?:environ\.get|getenv|environ\.setdefault)\(\s*['"](?P<a>\w+)['"]"""
                  r"""|\benviron\[\s*['"](?P<b>\w+)['"]\s*\]|['"](?P<c>\w+)['"]\s+(?:not\s+)?in\s+(?:os\.)?environ\b""")
_ARG = re.compile(r"""add_argument\(\s*['"](?P<opt>--?[\w-]+)['"]|add_parser\(\s*['"](?P<cmd>[\w-]+)['"]""")


@dataclass
class Spec:
    modules: list[str]
    classes: list[str]
    checkpoint: list[str]
    surfaces: list[dict[str, Any]]


class SurfaceInputError(Exception):
    """An input the surface check reads is missing or malformed: the audit cannot run."""


class SpecMissing(SurfaceInputError):
    """The project has no architecture/surfaces.yaml: there is nothing to check surfaces against."""


def load_spec(root: Path) -> Spec:
    if not (root / SPEC).is_file():
        raise SpecMissing(f"no {SPEC}: declare the public surfaces there (see Ember's own for the format)")
    raw = yaml.safe_load((root / SPEC).read_text(encoding="utf-8")) or {}
    api = raw.get("python_api", {})
    return Spec(list(api.get("modules", [])), list(api.get("classes", [])),
                list(raw.get("checkpoint", {}).get("attributes", [])), list(raw.get("surfaces", [])))


def manifest_name(surface: str) -> str:
    return f"{MANIFESTS}/{surface}.json"


# --- Collecting the current surfaces --------------------------------------------------------------


def env_vars(g: Graph) -> tuple[dict[str, dict[str, list[str]]], dict[str, tuple[str, int]]]:
    """Environment variables the code reads (found by scanning): the manifest entries
    (name -> {"modules": [...]}) and where each is first read (name -> (path, line))."""
    modules: dict[str, set[str]] = {}
    first: dict[str, tuple[str, int]] = {}
    for f in g.files:
        text = f.path.read_text(encoding="utf-8")
        for m in _ENV.finditer(text):
            name = m["a"] or m["b"] or m["c"]
            modules.setdefault(name, set()).add(f.module)
            first.setdefault(name, (f.rel, text.count("\n", 0, m.start()) + 1))
    return {k: {"modules": sorted(v)} for k, v in sorted(modules.items())}, first


def cli_entry_points(g: Graph) -> dict[str, dict[str, Any]]:
    """`python -m X` entry points: packages with __main__.py and modules guarded by __main__."""
    out: dict[str, dict[str, Any]] = {}
    by_module: dict[str, list[Any]] = {}
    for f in g.files:
        by_module.setdefault(f.module, []).append(f)
    for f in g.files:
        if f.rel.endswith(".pyx") or f.rel.endswith(".pxd"):
            continue
        text = f.path.read_text(encoding="utf-8")
        if f.module.endswith(".__main__"):
            entry = f.module[: -len(".__main__")]
        elif re.search(r"""^if __name__ == ['"]__main__['"]:""", text, re.M) and not f.rel.startswith("build/"):
            entry = f.module
        else:
            continue
        # Options and subcommands of an argparse CLI: from every file of the entry's package.
        sources = [x for mod, xs in by_module.items() if mod == entry or mod.startswith(entry + ".")
                   for x in xs if x.rel.endswith(".py")] if f.module.endswith(".__main__") else [f]
        opts: set[str] = set()
        cmds: set[str] = set()
        for s in sources:
            for m in _ARG.finditer(s.path.read_text(encoding="utf-8")):
                (opts.add(m["opt"]) if m["opt"] else cmds.add(m["cmd"]))
        out[f"python -m {entry}"] = {"commands": sorted(cmds), "options": sorted(opts)}
    return dict(sorted(out.items()))


def checkpoint_format(spec: Spec) -> dict[str, str | None]:
    """The checkpoint format's version constants (None while the module does not exist)."""
    import importlib
    out: dict[str, str | None] = {}
    for dotted in spec.checkpoint:
        module, attr = dotted.rsplit(".", 1)
        try:
            value = getattr(importlib.import_module(module), attr)
        except ModuleNotFoundError as e:
            if e.name is None or not module.startswith(e.name):
                raise
            value = None
        except AttributeError:
            value = None
        out[dotted] = None if value is None else repr(value)
    return out


def schemas(root: Path) -> dict[str, tuple[str, int]]:
    """func string -> (path, line) of every entry of native_functions.yaml, in schema order."""
    from torchgen.gen import SCHEMA, TAGS
    from torchgen.model import SchemaError
    from torchgen.native_yaml import parse_native_yaml
    if not (root / SCHEMA).is_file():
        return {}     # a project without operators of its own
    try:
        fns = parse_native_yaml(str(root / SCHEMA), str(root / TAGS))
    except SchemaError as e:
        raise SchemaFileError("the operator schema does not parse:\n" + str(e).replace(str(root) + "/", "")) from e
    return {str(fn.func): (NATIVE_FUNCTIONS, fn.loc.line) for fn in fns}


def collect(root: Path, g: Graph) -> dict[str, Any]:
    """Every manifest's current content, by its repository path."""
    spec = load_spec(root)
    out: dict[str, Any] = {}
    for name in spec.modules:
        out[manifest_name(name)] = public_api.collect_module(name)
    for name in spec.classes:
        out[manifest_name(name)] = public_api.collect_class(name)
    out[manifest_name("environment")] = {"surface": "environment variables", "names": env_vars(g)[0]}
    out[manifest_name("cli")] = {"surface": "command-line entry points", "names": cli_entry_points(g)}
    out[manifest_name("checkpoint")] = {"surface": "checkpoint format", "names": checkpoint_format(spec)}
    out[SCHEMAS] = "".join(s + "\n" for s in schemas(root))
    return out


class SchemaFileError(SurfaceInputError):
    """native_functions.yaml does not parse: no schema comparison is possible."""


def dumps(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, indent=1, sort_keys=True) + "\n"


def update(root: Path, g: Graph) -> list[str]:
    """Rewrite the manifests from the code; returns the paths that changed."""
    changed = []
    for rel, content in collect(root, g).items():
        path = root / rel
        text = dumps(content)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(rel)
    return changed


# --- Checking ---------------------------------------------------------------------------------------


def load_allowlist(root: Path) -> dict[str, list[dict[str, Any]]]:
    path = root / ALLOWLIST
    if not path.exists():
        return {}
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {k: list(v or []) for k, v in raw.items()}


def _keyed(old: dict[str, Any], new: dict[str, Any], rel: str, what: str, locations: dict[str, tuple[str, int]],
           allowed: set[str]) -> list[Finding]:
    """Names recorded in a simple manifest (env vars, CLI, checkpoint): removals and changed values fail."""
    out = []
    for name, value in sorted(old.items()):
        if name in allowed:
            continue
        if name not in new:
            out.append(Finding("surfaces", "removed", f"{what} {name} was removed (recorded in {rel})",
                               f"restore it, or record `{name}` with a reason in {ALLOWLIST} under `other:`; "
                               f"then `{UPDATE}`", rel, None))
        elif new[name] != value and what != "environment variable":
            out.append(Finding("surfaces", "changed", f"{what} {name} changed: {value!r} -> {new[name]!r}",
                               f"keep it compatible, or record `{name}` with a reason in {ALLOWLIST} under "
                               f"`other:`; then `{UPDATE}`", rel, None))
    for name in sorted(set(new) - set(old)):
        path, line = locations.get(name, (rel, None))
        out.append(Finding("surfaces", "added", f"{what} {name} is new (not yet in {rel})",
                           f"`{UPDATE}` records it", path, line, severity=NOTE))
    return out


def check(root: Path, g: Graph) -> list[Finding]:
    current = collect(root, g)
    allow = load_allowlist(root)
    api_allow = public_api.parse_allowlist(allow.get("api", []))
    schema_allow = schema_compat.parse_allowlist(allow.get("schemas", []))
    other_allowed = {str(e["name"]) for e in allow.get("other", []) if str(e.get("reason", "")).strip()}
    out: list[Finding] = []
    spec = load_spec(root)
    for name in spec.modules + spec.classes:
        rel = manifest_name(name)
        new = current[rel]
        out += public_api.coverage_findings(name, root) if name in spec.modules and not new.get("absent") else []
        old = _read_json(root, rel)
        if old is None:
            out.append(_missing(rel))
            continue
        out += public_api.compare(old, new, api_allow, manifest_path=rel, root=root)
    simple: tuple[tuple[str, str, dict[str, tuple[str, int]]], ...] = (("environment", "environment variable", env_vars(g)[1]), ("cli", "entry point", {}),
              ("checkpoint", "checkpoint format constant", {}))
    for name, what, locations in simple:
        rel = manifest_name(name)
        old = _read_json(root, rel)
        if old is None:
            out.append(_missing(rel))
            continue
        out += _keyed(old.get("names", {}), current[rel]["names"], rel, what, locations, other_allowed)
    path = root / SCHEMAS
    if not path.exists():
        out.append(_missing(SCHEMAS, "schemas"))
    else:
        old_schemas = [ln for ln in path.read_text(encoding="utf-8").splitlines()]
        out += schema_compat.compare_schemas(old_schemas, schemas(root), schema_allow, manifest_path=SCHEMAS,
                                             today=datetime.date.today())
    return out


def stale_manifests(root: Path, g: Graph) -> list[str]:
    return [rel for rel, content in collect(root, g).items()
            if not (root / rel).exists() or (root / rel).read_text(encoding="utf-8") != dumps(content)]


def _read_json(root: Path, rel: str) -> dict[str, Any] | None:
    path = root / rel
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _missing(rel: str, check: str = "surfaces") -> Finding:
    return Finding(check, "no-manifest", f"{rel} is missing: nothing to compare the surface with",
                   f"run `{UPDATE}` and commit {rel}", rel, None, ERROR)
