"""Public Python API surfaces: what a module or class exposes, and whether a change breaks callers.

A manifest records each public name with its kind and, for callables, its parameters; `compare`
reads two manifests and reports what an old caller could no longer do. `coverage_findings`
applies PyTorch's "looks public" vs "is public" rule (test/test_public_bindings.py).

Manifests hold only strings, bools, lists and dicts, in sorted order, so they can be committed
as JSON and diffed. Generated Cython bindings only show `(*args, **kwargs)` to `inspect`, so
their signatures come from the table the generator writes (`torch._C._gen_signatures`).
"""
from __future__ import annotations

import ast
import keyword
import functools
import importlib
import inspect
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from architecture.findings import ERROR, NOTE, Finding

# The repository root: the parent of the `architecture` package (tests may point it elsewhere).
REPO_ROOT = Path(__file__).resolve().parent.parent
ALLOWLIST_PATH = "architecture/surfaces/allowlist.yaml"
CHECK = "surfaces"

# Base classes from these top packages are ours: their dunders are part of a subclass's surface.
PROJECT_PACKAGES = frozenset({"torch", "aten", "c10"})

# Where the generator writes text signatures, and which of its tables describes which surface.
GENERATED_SIGNATURES = "torch._C._gen_signatures"
GENERATED_TABLES = {"torch": "FUNCTIONS", "torch.Tensor": "METHODS"}

Param = dict[str, str]
Signature = list[Param]
Entry = dict[str, Any]
Manifest = dict[str, Any]

CALLABLE_KINDS = frozenset({"function", "method", "class"})
VAR_KINDS = frozenset({"var_positional", "var_keyword"})
POSITIONAL_KINDS = frozenset({"positional_only", "positional_or_keyword"})

_KIND_NAMES = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
    inspect.Parameter.VAR_POSITIONAL: "var_positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    inspect.Parameter.VAR_KEYWORD: "var_keyword",
}
# Constants whose value is part of the surface; anything else records only its type.
_CONSTANT_TYPES = (int, str, float, bool)
# Object addresses in reprs differ between runs; manifests must not.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@dataclass(frozen=True)
class ApiAllow:
    """A break that is intended: `name` is "torch.add" or "torch.Tensor.sum"."""
    name: str
    reason: str
    until: date | None = None

    def active(self, today: date) -> bool:
        return self.until is None or today <= self.until


# ----------------------------------------------------------------------------- importing

def _is_self_or_parent(missing: str | None, name: str) -> bool:
    return missing is not None and (name == missing or name.startswith(missing + "."))


def _import_or_none(name: str) -> ModuleType | None:
    """The module, or None when it (or a parent package) does not exist. A module that exists
    but fails to import is a real error, so that propagates."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if _is_self_or_parent(exc.name, name):
            return None
        raise


def _resolve_class(qualname: str) -> type | None:
    """The class named `module.path.Class[.Nested]`, or None when it does not exist."""
    parts = qualname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = _import_or_none(".".join(parts[:cut]))
        if module is None:
            continue
        obj: Any = module
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return None
            obj = getattr(obj, attr)
        if not inspect.isclass(obj):
            raise TypeError(f"{qualname} is a {type(obj).__name__}, not a class")
        return obj
    return None


def _generated_table(surface: str) -> Mapping[str, tuple[str, ...]]:
    """The generator's text signatures for `surface`; empty when it has none or is not built."""
    table = GENERATED_TABLES.get(surface)
    if table is None:
        return {}
    try:
        module = importlib.import_module(GENERATED_SIGNATURES)
    except ModuleNotFoundError as exc:
        if _is_self_or_parent(exc.name, GENERATED_SIGNATURES):
            return {}
        raise
    value: Mapping[str, tuple[str, ...]] = getattr(module, table, {})
    return value


# ----------------------------------------------------------------------------- signatures

def _param(name: str, kind: str, default: str | None) -> Param:
    out = {"name": name, "kind": kind}
    if default is not None:
        out["default"] = default
    return out


def _default_repr(value: Any) -> str:
    return _ADDRESS.sub("", repr(value))


def _from_inspect(sig: inspect.Signature) -> Signature:
    return [_param(p.name, _KIND_NAMES[p.kind],
                   None if p.default is inspect.Parameter.empty else _default_repr(p.default))
            for p in sig.parameters.values()]


def _from_text(text: str) -> Signature:
    """Parse a generated signature like "(input, other, *, alpha=1)".

    A few upstream parameters are named after Python keywords (random_'s `from`): they are
    renamed for the parser and named back in the result."""
    names = {k: rf"(?:(?<=\()|(?<=, )){k}(?=\s*[,=)])" for k in keyword.kwlist if k not in ("None", "True", "False")}
    keywords = {f"_kw_{k}": k for k, pattern in names.items() if re.search(pattern, text)}
    for placeholder, kw in keywords.items():
        text = re.sub(names[kw], placeholder, text)
    fn = ast.parse(f"def f{text}: pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    args = fn.args
    positional = args.posonlyargs + args.args
    # Defaults belong to the last positional parameters.
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [_param(a.arg, "positional_only" if i < len(args.posonlyargs) else "positional_or_keyword",
                  None if d is None else ast.unparse(d))
           for i, (a, d) in enumerate(zip(positional, defaults))]
    if args.vararg is not None:
        out.append(_param(args.vararg.arg, "var_positional", None))
    out += [_param(a.arg, "keyword_only", None if d is None else ast.unparse(d))
            for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if keywords:
        for p in out:
            p["name"] = keywords.get(p["name"], p["name"])
    if args.kwarg is not None:
        out.append(_param(args.kwarg.arg, "var_keyword", None))
    return out


def _is_catch_all(sig: Signature) -> bool:
    """`(*args, **kwargs)`, or `(self, *args, **kwargs)` once a lazy Tensor method is resolved."""
    if sig and sig[0]["name"] == "self" and sig[0]["kind"] in POSITIONAL_KINDS:
        sig = sig[1:]
    return [p["kind"] for p in sig] == ["var_positional", "var_keyword"]


def _signatures(obj: Any, generated: Sequence[str] | None) -> list[Signature]:
    """One signature from inspect, or one per generated overload when inspect only sees the
    binding's `(*args, **kwargs)`."""
    try:
        sig: Signature | None = _from_inspect(inspect.signature(obj))
    except (TypeError, ValueError):
        sig = None
    if generated and (sig is None or _is_catch_all(sig)):
        return [_from_text(text) for text in generated]
    return [] if sig is None else [sig]


def render_signature(sig: Signature) -> str:
    """Back to Python syntax, for messages."""
    parts: list[str] = []
    star_written = False
    for i, p in enumerate(sig):
        kind = p["kind"]
        if kind == "keyword_only" and not star_written:
            parts.append("*")
            star_written = True
        if kind == "var_positional":
            star_written = True
        prefix = {"var_positional": "*", "var_keyword": "**"}.get(kind, "")
        parts.append(prefix + p["name"] + (f"={p['default']}" if "default" in p else ""))
        next_kind = sig[i + 1]["kind"] if i + 1 < len(sig) else None
        if kind == "positional_only" and next_kind != "positional_only":
            parts.append("/")
    return "(" + ", ".join(parts) + ")"


# ----------------------------------------------------------------------------- entries

def _value_entry(obj: Any) -> Entry:
    entry: Entry = {"kind": "value", "type": type(obj).__name__}
    # Exact types only: an enum member or other subclass is not a plain constant.
    if type(obj) in _CONSTANT_TYPES:
        entry["value"] = repr(obj)
    return entry


def _module_entry(obj: Any, generated: Sequence[str] | None) -> Entry:
    if inspect.ismodule(obj):
        return {"kind": "module"}
    if inspect.isclass(obj):
        return {"kind": "class", "signatures": _signatures(obj, None)}
    if callable(obj):
        return {"kind": "function", "signatures": _signatures(obj, generated)}
    return _value_entry(obj)


def _lazy_target(raw: Any) -> tuple[str, str] | None:
    """(module, attr) when `raw` is torch._tensor's lazy method descriptor. Looked up only if
    torch._tensor is already loaded: collecting another class must not import torch."""
    tensor_module = sys.modules.get("torch._tensor")
    lazy_type = getattr(tensor_module, "_LazyMethod", None)
    if lazy_type is not None and isinstance(raw, lazy_type):
        return raw.module, raw.attr
    return None


def _is_property(raw: Any) -> bool:
    return (isinstance(raw, (property, functools.cached_property))
            or inspect.isgetsetdescriptor(raw) or inspect.ismemberdescriptor(raw))


def _class_entry(cls: type, name: str, generated: Sequence[str] | None) -> Entry:
    # getattr_static: reading the attribute would resolve lazy methods (an import each).
    raw = inspect.getattr_static(cls, name)
    lazy = _lazy_target(raw)
    if lazy is not None:
        if generated:
            return {"kind": "method", "signatures": [_from_text(text) for text in generated]}
        target = getattr(importlib.import_module(lazy[0]), lazy[1])
        return {"kind": "method", "signatures": _signatures(target, None)}
    if _is_property(raw):
        return {"kind": "property"}
    if inspect.isclass(raw) or inspect.ismodule(raw):
        return _module_entry(raw, None)
    if isinstance(raw, (staticmethod, classmethod)) or callable(raw):
        # Through the class: a classmethod binds `cls`; plain functions keep `self`.
        return {"kind": "method", "signatures": _signatures(getattr(cls, name), generated)}
    return _value_entry(raw)


# ----------------------------------------------------------------------------- public names

def _module_public_names(module: ModuleType) -> list[str]:
    declared = vars(module).get("__all__")
    if declared is not None:
        return sorted({str(n) for n in declared})
    # dir(), not vars(): torch's __dir__ lists the functions its __getattr__ loads lazily.
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_project_class(klass: type) -> bool:
    return str(getattr(klass, "__module__", "")).split(".")[0] in PROJECT_PACKAGES


def _is_api_dunder(name: str, raw: Any) -> bool:
    """A special method the class means to offer: not data (`__dict__`, `__module__`), not
    object's own, and not Cython's generated pickling stubs or internals."""
    if name.startswith("__pyx_") or name.endswith("_cython__"):
        return False
    if str(getattr(raw, "__name__", "")).endswith("_cython__"):
        return False   # Cython aliases __reduce__/__setstate__ to its generated stubs
    if raw is vars(object).get(name):
        return False
    return isinstance(raw, (staticmethod, classmethod)) or callable(raw)


def _class_public_names(cls: type) -> list[str]:
    names = {n for n in dir(cls) if not n.startswith("_")}
    for klass in cls.__mro__:
        if klass is cls or _is_project_class(klass):
            names.update(n for n in vars(klass) if _is_dunder(n))
    return sorted(n for n in names if not _is_dunder(n) or _is_api_dunder(n, inspect.getattr_static(cls, n)))


# ----------------------------------------------------------------------------- manifests

def _canonical(value: Any) -> Any:
    """Dicts rebuilt with sorted keys, so equal manifests also serialise identically."""
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _absent(surface: str, kind: str) -> Manifest:
    return {"absent": True, "kind": kind, "names": {}, "surface": surface}


def collect_module(name: str) -> Manifest:
    """The public names of module `name`, with their kinds and signatures."""
    module = _import_or_none(name)
    if module is None:
        return _absent(name, "module")
    generated = _generated_table(name)
    names: dict[str, Entry] = {}
    for attr in _module_public_names(module):
        if not hasattr(module, attr):
            continue   # listed in __all__ but undefined: coverage_findings reports it
        names[attr] = _module_entry(getattr(module, attr), generated.get(attr))
    manifest: Manifest = _canonical({"has_all": "__all__" in vars(module), "kind": "module",
                                     "names": names, "surface": name})
    return manifest


def collect_class(qualname: str) -> Manifest:
    """The public attributes of the class `qualname` (e.g. "torch.Tensor")."""
    cls = _resolve_class(qualname)
    if cls is None:
        return _absent(qualname, "class")
    generated = _generated_table(qualname)
    names = {n: _class_entry(cls, n, generated.get(n)) for n in _class_public_names(cls)}
    manifest: Manifest = _canonical({"kind": "class", "names": names, "surface": qualname})
    return manifest


# ----------------------------------------------------------------------------- locations

def _repo_relative(filename: str | None, root: Path) -> str | None:
    if not filename:
        return None
    path = Path(filename)
    if not path.is_absolute():
        path = root / path   # Cython records paths relative to the build's working directory
    path = path.resolve()
    root = root.resolve()
    if not path.is_file() or not path.is_relative_to(root):
        return None
    relative = path.relative_to(root)
    # Generated code (build/, `_gen_*` files) is rewritten by the build: not where a fix goes.
    if relative.parts[0] == "build" or path.name.startswith("_gen_"):
        return None
    return relative.as_posix()


def _source_of(obj: Any) -> tuple[str | None, int | None]:
    """(file, line) for a Python or Cython object, as far as either can tell."""
    if isinstance(obj, property):
        obj = obj.fget
    elif isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    obj = inspect.unwrap(obj) if callable(obj) else obj
    try:
        filename: str | None = inspect.getsourcefile(obj)
    except TypeError:
        filename = None
    code = getattr(obj, "__code__", None)
    if filename is None and code is not None:
        filename = getattr(code, "co_filename", None)   # Cython functions keep their .pyx here
    try:
        line: int | None = inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        line = getattr(code, "co_firstlineno", None)
    return filename, line


def _loaded(surface: str) -> Any:
    """The module or class `surface` if it is already imported; locating must not import."""
    parts = surface.split(".")
    for cut in range(len(parts), 0, -1):
        obj: Any = sys.modules.get(".".join(parts[:cut]))
        if obj is None:
            continue
        for attr in parts[cut:]:
            try:
                obj = inspect.getattr_static(obj, attr)
            except AttributeError:
                return None
        return obj
    return None


def _locate(surface: str, name: str | None, manifest_path: str, root: Path) -> tuple[str, int | None]:
    owner = _loaded(surface)
    if owner is None:
        return manifest_path, None
    try:
        obj = owner if name is None else inspect.getattr_static(owner, name)
    except AttributeError:
        return manifest_path, None
    if _lazy_target(obj) is not None or not (callable(obj) or _is_property(obj) or inspect.ismodule(obj)
                                             or isinstance(obj, (staticmethod, classmethod))):
        return manifest_path, None
    filename, line = _source_of(obj)
    path = _repo_relative(filename, root)
    return (path, line) if path is not None else (manifest_path, None)


# ----------------------------------------------------------------------------- compatibility

def _param_problems(old: Param, new: Param | None, index: int, new_positional: list[str]) -> list[str]:
    name, kind = old["name"], old["kind"]
    if new is None:
        what = f"positional parameter {index}" if kind == "positional_only" else f"parameter `{name}`"
        return [f"{what} was removed" + ("" if kind == "positional_only" else " or renamed")]
    problems: list[str] = []
    if kind == "positional_or_keyword" and new["kind"] == "keyword_only":
        problems.append(f"`{name}` became keyword-only")
    elif kind != "positional_only" and new["kind"] == "positional_only":
        problems.append(f"`{name}` became positional-only")
    elif kind == "positional_or_keyword" and new_positional.index(new["name"]) != index:
        problems.append(f"`{name}` moved from position {index} to {new_positional.index(new['name'])}")
    if "default" in old and "default" not in new:
        problems.append(f"`{name}` lost its default {old['default']}")
    elif "default" in old and old["default"] != new["default"]:
        problems.append(f"the default of `{name}` changed from {old['default']} to {new['default']}")
    return problems


def signature_problems(old: Signature, new: Signature) -> list[str]:
    """Why a call valid against `old` may fail against `new`; empty when none can."""
    new_by_name = {p["name"]: p for p in new if p["kind"] not in VAR_KINDS}
    new_positional = [p["name"] for p in new if p["kind"] in POSITIONAL_KINDS]
    new_kinds = {p["kind"] for p in new}
    problems: list[str] = []
    matched: set[str] = set()
    position = 0
    for p in old:
        if p["kind"] in VAR_KINDS:
            if p["kind"] not in new_kinds:
                problems.append(f"`{'*' if p['kind'] == 'var_positional' else '**'}{p['name']}` was removed")
            continue
        if p["kind"] == "positional_only":
            # Callers cannot name a positional-only parameter, so only its place matters.
            counterpart = new_by_name.get(new_positional[position]) if position < len(new_positional) else None
        else:
            counterpart = new_by_name.get(p["name"])
        problems += _param_problems(p, counterpart, position, new_positional)
        if counterpart is not None:
            matched.add(counterpart["name"])
        if p["kind"] in POSITIONAL_KINDS:
            position += 1
    problems += [f"new required parameter `{p['name']}`" for p in new
                 if p["kind"] not in VAR_KINDS and p["name"] not in matched and "default" not in p]
    return problems


def _overload_problems(old_sigs: list[Signature], new_sigs: list[Signature]) -> list[str]:
    """One reason per old overload that no new overload accepts."""
    reasons: list[str] = []
    for old in old_sigs:
        if not new_sigs:
            reasons.append(f"`{render_signature(old)}`: the new signature cannot be inspected")
            continue
        attempts = [(new, signature_problems(old, new)) for new in new_sigs]
        if any(not problems for _, problems in attempts):
            continue
        reasons.append(f"`{render_signature(old)}` -> " + " | ".join(
            f"`{render_signature(new)}`: " + "; ".join(problems) for new, problems in attempts))
    return reasons


def _entry_problems(old: Entry, new: Entry) -> tuple[str, list[str]] | None:
    """(rule, reasons) when `new` cannot stand in for `old`."""
    old_kind, new_kind = old["kind"], new["kind"]
    if old_kind == "value" and new_kind == "value":
        if "value" in old and old["value"] != new.get("value"):
            return "value-changed", [f"value {old['value']} is now {new.get('value', 'a ' + new['type'])}"]
        if old["type"] != new["type"]:
            return "incompatible", [f"type {old['type']} is now {new['type']}"]
        return None
    if old_kind in CALLABLE_KINDS and new_kind not in CALLABLE_KINDS:
        return "incompatible", [f"was a {old_kind}, is now a {new_kind} and cannot be called"]
    # A function may become a class whose constructor takes the same arguments.
    if old_kind != new_kind and not (old_kind in ("function", "method") and new_kind == "class"):
        return "incompatible", [f"was a {old_kind}, is now a {new_kind}"]
    if old_kind in CALLABLE_KINDS:
        reasons = _overload_problems(old["signatures"], new["signatures"])
        return ("incompatible", reasons) if reasons else None
    return None


# ----------------------------------------------------------------------------- findings

def _break_fix(restore: str, name: str) -> str:
    return (f"{restore}, or record `{name}` with a reason in {ALLOWLIST_PATH} under `api:`, "
            f"then run `python -m architecture surfaces --update`")


@dataclass
class _Reporter:
    """Builds findings for one surface, each tagged with the qualified name it concerns."""
    surface: str
    manifest_path: str
    root: Path
    findings: list[Finding] = field(default_factory=list)

    def add(self, rule: str, severity: str, name: str | None, message: str, fix: str = "") -> None:
        qualname = self.surface if name is None else f"{self.surface}.{name}"
        path, line = self._where(rule, name)
        self.findings.append(Finding(check=CHECK, rule=rule, severity=severity, message=message, fix=fix,
                                     path=path, line=line, extra={"name": qualname}))

    def _where(self, rule: str, name: str | None) -> tuple[str, int | None]:
        if rule == "removed":
            return self.manifest_path, None   # nothing left in the source to point at
        return _locate(self.surface, name, self.manifest_path, self.root)


def _is_absent(manifest: Mapping[str, Any]) -> bool:
    return not manifest or bool(manifest.get("absent"))


def _compare_names(report: _Reporter, old: Mapping[str, Entry], new: Mapping[str, Entry]) -> None:
    surface = report.surface
    for name in sorted(old):
        qualname = f"{surface}.{name}"
        if name not in new:
            report.add("removed", ERROR, name, f"`{qualname}` ({old[name]['kind']}) was removed",
                       _break_fix(f"restore `{qualname}`", qualname))
            continue
        broken = _entry_problems(old[name], new[name])
        if broken is not None:
            rule, reasons = broken
            what = "value" if rule == "value-changed" else "signature"
            report.add(rule, ERROR, name, f"`{qualname}` changed incompatibly: " + "; ".join(reasons),
                       _break_fix(f"restore the old {what} of `{qualname}`", qualname))
    for name in sorted(set(new) - set(old)):
        report.add("added", NOTE, name, f"`{surface}.{name}` ({new[name]['kind']}) was added")


def _concerns(entry: ApiAllow, surface: str) -> bool:
    return entry.name == surface or entry.name.rpartition(".")[0] == surface


def _apply_allowlist(findings: list[Finding], allow: Sequence[ApiAllow], surface: str,
                     today: date) -> list[Finding]:
    active = {a.name: a for a in allow if a.active(today)}
    out: list[Finding] = []
    for f in findings:
        entry = active.get(f.extra.get("name", "")) if f.severity == ERROR else None
        if entry is None:
            out.append(f)
            continue
        until = f" until {entry.until.isoformat()}" if entry.until else ""
        out.append(Finding(check=f.check, rule="allowed", severity=NOTE, path=f.path, line=f.line,
                           message=f"{f.message} (allowed{until}: {entry.reason})",
                           extra={**f.extra, "excused_rule": f.rule, "reason": entry.reason}))
    for a in allow:
        if not a.active(today) and _concerns(a, surface):
            assert a.until is not None
            out.append(Finding(check=CHECK, rule="allow-expired", severity=NOTE, path=ALLOWLIST_PATH,
                               message=f"the allowlist entry for `{a.name}` expired on {a.until.isoformat()} "
                                       f"and excuses nothing now (reason was: {a.reason})",
                               fix=f"remove the entry from {ALLOWLIST_PATH}, or move `until` "
                                   "if the break is still intended",
                               extra={"name": a.name}))
    return out


def compare(old: Manifest, new: Manifest, allow: Sequence[ApiAllow], *, manifest_path: str,
            today: date | None = None, root: Path = REPO_ROOT) -> list[Finding]:
    """What a caller of `old` could no longer do with `new` (ERRORs), and what was added (NOTEs).
    An empty or absent manifest means the surface does not exist on that side. Findings name
    source files relative to `root` (the audited project)."""
    surface = str(new.get("surface") or old.get("surface") or "")
    report = _Reporter(surface, manifest_path, root)
    if _is_absent(old) and not _is_absent(new):
        for name in sorted(new["names"]):
            report.add("added", NOTE, name, f"`{surface}.{name}` ({new['names'][name]['kind']}) was added")
    elif _is_absent(new) and not _is_absent(old):
        report.add("removed", ERROR, None, f"`{surface}` ({old.get('kind', 'surface')}) was removed "
                   f"with its {len(old['names'])} public names", _break_fix(f"restore `{surface}`", surface))
    elif not _is_absent(old):
        _compare_names(report, old["names"], new["names"])
    return _apply_allowlist(report.findings, allow, surface, today or date.today())


# ----------------------------------------------------------------------------- allowlist

_ALLOW_KEYS = frozenset({"name", "reason", "until"})


def _parse_until(value: Any, where: str) -> date | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value   # YAML already turns 2025-01-31 into a date
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{where}: `until` must be a date YYYY-MM-DD, got {value!r}")


def parse_allowlist(entries: list[dict[str, Any]]) -> list[ApiAllow]:
    """The `api:` list of architecture/surfaces/allowlist.yaml. Every entry needs a reason;
    an unknown key is refused because a misspelt `until` would make an entry permanent."""
    if not isinstance(entries, list):
        raise ValueError(f"the `api:` allowlist must be a list of entries with name and reason, "
                         f"got {type(entries).__name__}")
    out: list[ApiAllow] = []
    for i, entry in enumerate(entries, 1):
        where = f"`api:` allowlist entry {i}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected a mapping with name, reason and until, got {entry!r}")
        unknown = sorted(set(entry) - _ALLOW_KEYS)
        if unknown:
            raise ValueError(f"{where}: unknown keys {unknown}; expected {sorted(_ALLOW_KEYS)}")
        name, reason = entry.get("name"), entry.get("reason")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{where}: `name` is missing")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{where} ({name}): `reason` is missing; say why the break is intended")
        out.append(ApiAllow(name.strip(), reason.strip(), _parse_until(entry.get("until"), f"{where} ({name})")))
    return out


# ----------------------------------------------------------------------------- coverage

def _home(obj: Any) -> str | None:
    """Where an object comes from, as the "looks public" rule sees it; None when it cannot tell
    (a plain int or str could have been defined anywhere)."""
    if inspect.ismodule(obj):
        return obj.__name__
    if inspect.isclass(obj) or callable(obj):
        return str(getattr(obj, "__module__", None) or "")   # no __module__: not ours
    module = type(obj).__module__
    return None if module == "builtins" else module


def _is_home(home: str, module_name: str) -> bool:
    """Upstream's rule: `__module__` starts with the module and has no private `._` segment."""
    if home == module_name:
        return True
    return home.startswith(module_name + ".") and "._" not in home[len(module_name):]


def _module_path(module: ModuleType, root: Path) -> str:
    filename = getattr(module, "__file__", None) or module.__name__
    return _repo_relative(filename, root) or Path(filename).as_posix()


def _all_line(module: ModuleType) -> int:
    """The line that assigns `__all__`, so the finding opens where the fix goes."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return 1
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return node.lineno
    return 1


def _defined_names(module: ModuleType) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in dir(module):
        if not name.startswith("_") and hasattr(module, name):
            out[name] = getattr(module, name)
    return out


def _missing_from_all(module: ModuleType, declared: Sequence[str], root: Path) -> list[Finding]:
    name, path, line = module.__name__, _module_path(module, root), _all_line(module)
    findings: list[Finding] = []
    for attr, obj in sorted(_defined_names(module).items()):
        home = _home(obj)
        # Submodules become attributes once imported anywhere: as upstream, only callables,
        # classes and values are held to __all__.
        if attr in declared or home is None or not _is_home(home, name) or isinstance(obj, ModuleType):
            continue
        findings.append(Finding(
            check=CHECK, rule="not-in-all", path=path, line=line, extra={"name": f"{name}.{attr}"},
            message=f"`{name}.{attr}` looks public (no leading underscore, defined in `{home}`) "
                    f"but is not in `{name}.__all__`",
            fix=f"add '{attr}' to `{name}.__all__`, or rename it `_{attr}` if it is private"))
    for attr in sorted(set(declared)):
        if not hasattr(module, attr):
            findings.append(Finding(
                check=CHECK, rule="all-undefined", path=path, line=line, extra={"name": f"{name}.{attr}"},
                message=f"`{name}.__all__` lists '{attr}', which the module does not define",
                fix=f"define `{attr}` in `{name}` or remove it from `__all__`"))
    return findings


def _accidentally_public(module: ModuleType, root: Path) -> list[Finding]:
    name = module.__name__
    accidental = sorted(attr for attr, obj in _defined_names(module).items()
                        if (home := _home(obj)) is not None and not _is_home(home, name))
    if not accidental:
        return []
    return [Finding(
        check=CHECK, rule="no-all", path=_module_path(module, root), line=1,
        extra={"name": name, "names": accidental},
        message=f"`{name}` has no `__all__`, so every name without a leading underscore is public, "
                f"including {len(accidental)} defined elsewhere: " + ", ".join(accidental),
        fix=f"define `__all__` in `{name}` listing the names meant to be public, and import the "
            "others under a leading underscore (e.g. `import x as _x`)")]


def coverage_findings(name: str, root: Path = REPO_ROOT) -> list[Finding]:
    """PyTorch's "is public" vs "looks public" check for module `name` (nothing if it is absent)."""
    module = _import_or_none(name)
    if module is None:
        return []
    declared = vars(module).get("__all__")
    if declared is None:
        return _accidentally_public(module, root)
    return _missing_from_all(module, [str(n) for n in declared], root)
