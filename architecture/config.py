"""boundaries.yaml as data: layers, modules, the imports each may make, coupling budgets.

A *module* here is a unit of the architecture: a package or subpackage (`aten.native.cpu`),
holding every source file under it that no more specific module claims. Each file's imports are
checked against the rules of the module that holds it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

BOUNDARIES = "architecture/boundaries.yaml"


class ConfigError(Exception):
    """boundaries.yaml is malformed; the message starts with `path:line:`."""


@dataclass(frozen=True)
class Layer:
    name: str
    kind: str           # runtime | build
    rank: int           # 0 = highest; a module may import only its own rank or lower (higher numbers)
    description: str


@dataclass(frozen=True)
class Budget:
    max_incoming: int | None = None
    max_outgoing: int | None = None
    max_instability: float | None = None


@dataclass(frozen=True)
class Module:
    name: str
    layer: Layer
    purpose: str
    may_import: tuple[str, ...]
    third_party: tuple[str, ...]
    budget: Budget
    planned: bool               # declared ahead of the code (an issue will add it)
    covers_subpackages: bool    # its subpackages belong to it rather than being modules themselves
    line: int                   # where boundaries.yaml declares it

    def contains(self, dotted: str) -> bool:
        return dotted == self.name or dotted.startswith(self.name + ".")


@dataclass(frozen=True)
class FileSize:
    """The line budget of a handwritten source file: a note above `note_above`, an error above
    `error_above` unless `allowed` lists the file (repository-relative path -> reason)."""
    note_above: int = 400
    error_above: int = 800
    allowed: tuple[tuple[str, str], ...] = ()
    line: int = 1


@dataclass(frozen=True)
class AllowedCycle:
    """A file-level import cycle inside one module that is there on purpose."""
    files: frozenset[str]       # dotted file modules; a cycle among a subset of them is allowed
    reason: str
    line: int


@dataclass
class Boundaries:
    path: str
    roots: tuple[str, ...]
    generated_dirs: tuple[str, ...]
    layers: dict[str, Layer]
    modules: dict[str, Module]
    build_only_third_party: tuple[str, ...]
    everywhere_third_party: tuple[str, ...]
    independent: list[tuple[tuple[str, ...], int]]
    checklist: tuple[str, ...]
    line_of: dict[str, int] = field(default_factory=dict)
    file_size: FileSize = field(default_factory=lambda: FileSize())
    file_cycles: tuple[AllowedCycle, ...] = ()

    def module_of(self, dotted: str) -> Module | None:
        """The most specific declared module holding `dotted` (None outside the project)."""
        parts = dotted.split(".")
        for n in range(len(parts), 0, -1):
            found = self.modules.get(".".join(parts[:n]))
            if found is not None:
                return found
        return None

    def allows(self, source: Module, target: Module) -> bool:
        if target is source or source.contains(target.name) and source.covers_subpackages:
            return True
        return any(target.name == a or target.name.startswith(a + ".") for a in source.may_import)

    def is_runtime(self, module: Module) -> bool:
        return module.layer.kind == "runtime"


def _lines(node: yaml.Node) -> dict[str, int]:
    """Line (1-based) of every top-level key and of each entry under `modules`."""
    out: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out[key.value] = key.start_mark.line + 1
            if key.value in ("modules", "layers") and isinstance(value, yaml.MappingNode):
                for k, _ in value.value:
                    out[f"{key.value}.{k.value}"] = k.start_mark.line + 1
            if key.value in ("independent", "file_cycles") and isinstance(value, yaml.SequenceNode):
                for i, item in enumerate(value.value):
                    out[f"{key.value}.{i}"] = item.start_mark.line + 1
    return out


def load(root: Path, rel: str = BOUNDARIES) -> Boundaries:
    path = root / rel
    try:
        text = path.read_text(encoding="utf-8")
        raw = yaml.safe_load(text)
        node = yaml.compose(text)
        lines = _lines(node) if node is not None else {}
    except OSError as e:
        raise ConfigError(f"{rel}:1: cannot read the boundaries: {e}") from e
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise ConfigError(f"{rel}:{mark.line + 1 if mark else 1}: not valid YAML: {e}") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"{rel}:1: expected a mapping with `layers` and `modules`")

    def err(key: str, msg: str) -> ConfigError:
        return ConfigError(f"{rel}:{lines.get(key, 1)}: {msg}")

    layers: dict[str, Layer] = {}
    for rank, (name, spec) in enumerate(_mapping(raw, "layers", err).items()):
        if not isinstance(spec, dict):
            raise err(f"layers.{name}", f"layer {name}: expected a mapping with kind and description, got {spec!r}")
        kind = spec.get("kind")
        if kind not in ("runtime", "build"):
            raise err(f"layers.{name}", f"layer {name}: kind must be runtime or build, got {kind!r}")
        layers[name] = Layer(name, kind, rank, str(spec.get("description", "")).strip())

    modules: dict[str, Module] = {}
    for name, spec in _mapping(raw, "modules", err).items():
        key = f"modules.{name}"
        if not isinstance(spec, dict):
            raise err(key, f"module {name}: expected a mapping with layer, purpose, may_import")
        unknown = set(spec) - {"layer", "purpose", "may_import", "third_party", "budget", "planned",
                               "covers_subpackages"}
        if unknown:
            raise err(key, f"module {name}: unknown keys {sorted(unknown)}")
        layer = layers.get(str(spec.get("layer")))
        if layer is None:
            raise err(key, f"module {name}: layer {spec.get('layer')!r} is not one of {list(layers)}")
        if not str(spec.get("purpose", "")).strip():
            raise err(key, f"module {name}: a purpose is required (one sentence: what it is for)")
        budget = spec.get("budget") or {}
        if not isinstance(budget, dict):
            raise err(key, f"module {name}: budget must be a mapping like {{max_outgoing: 3}}, got {budget!r}")
        bad = set(budget) - {"max_incoming", "max_outgoing", "max_instability"}
        if bad:
            raise err(key, f"module {name}: unknown budget keys {sorted(bad)}")
        for k, v in budget.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise err(key, f"module {name}: budget {k} must be a non-negative number, got {v!r}")
        for k in ("may_import", "third_party"):
            if not isinstance(spec.get(k) or [], list) or not all(isinstance(x, str) for x in spec.get(k) or []):
                raise err(key, f"module {name}: {k} must be a list of names, got {spec.get(k)!r}")
        modules[name] = Module(
            name=name, layer=layer, purpose=" ".join(str(spec["purpose"]).split()),
            may_import=tuple(spec.get("may_import") or ()), third_party=tuple(spec.get("third_party") or ()),
            budget=Budget(**budget), planned=bool(spec.get("planned", False)),
            covers_subpackages=bool(spec.get("covers_subpackages", False)), line=lines.get(key, 1))

    for m in modules.values():
        for target in m.may_import:
            t = modules.get(target)
            if t is None:
                raise err(f"modules.{m.name}", f"module {m.name}: may_import names {target!r}, which is not a module")
            if m.layer.kind == "runtime" and t.layer.kind == "build":
                raise err(f"modules.{m.name}", f"module {m.name}: runtime module may not import build-time {target}")
            if m.layer.kind == t.layer.kind and t.layer.rank < m.layer.rank:
                raise err(f"modules.{m.name}",
                          f"module {m.name} (layer {m.layer.name}) may not import {target} from the higher "
                          f"layer {t.layer.name}: layers only import downwards")

    for k in ("roots", "generated", "build_only_third_party", "third_party_everywhere", "refactor_checklist"):
        value = raw.get(k) or []
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise err(k, f"`{k}` must be a list of strings, got {raw.get(k)!r}")
    independent = []
    for i, group in enumerate(raw.get("independent") or []):
        if not isinstance(group, list):
            raise err(f"independent.{i}", f"independent: each entry is a list of modules, got {group!r}")
        for name in group:
            if name not in modules:
                raise err(f"independent.{i}", f"independent: {name!r} is not a module")
        independent.append((tuple(group), lines.get(f"independent.{i}", 1)))
    file_size = _file_size(raw.get("file_size"), lines.get("file_size", 1), err)
    file_cycles = _file_cycles(raw.get("file_cycles"), lines, err)

    return Boundaries(
        path=rel, roots=tuple(raw.get("roots") or ()), generated_dirs=tuple(raw.get("generated") or ()),
        layers=layers, modules=modules,
        build_only_third_party=tuple(raw.get("build_only_third_party") or ()),
        everywhere_third_party=tuple(raw.get("third_party_everywhere") or ()),
        independent=independent, checklist=tuple(raw.get("refactor_checklist") or ()), line_of=lines,
        file_size=file_size, file_cycles=file_cycles)


def _reason(value: Any) -> str:
    return " ".join(str(value or "").split())


def _file_size(raw: Any, line: int, err: Any) -> FileSize:
    if raw is None:
        return FileSize(line=line)
    if not isinstance(raw, dict) or set(raw) - {"note_above", "error_above", "allowed"}:
        raise err("file_size", f"file_size: expected note_above, error_above and allowed, got {raw!r}")
    note, error = raw.get("note_above", 400), raw.get("error_above", 800)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (note, error)) or note > error:
        raise err("file_size", f"file_size: note_above and error_above must be positive, note <= error; "
                                f"got {note!r}, {error!r}")
    allowed = raw.get("allowed") or {}
    if not isinstance(allowed, dict) or not all(_reason(r) for r in allowed.values()):
        raise err("file_size", "file_size: allowed maps each path to its reason (a sentence, not empty)")
    return FileSize(note, error, tuple((str(p), _reason(r)) for p, r in allowed.items()), line)


def _file_cycles(raw: Any, lines: dict[str, int], err: Any) -> tuple[AllowedCycle, ...]:
    out = []
    for i, entry in enumerate(raw or []):
        key = f"file_cycles.{i}"
        files = entry.get("files") if isinstance(entry, dict) else None
        if (not isinstance(files, list) or len(files) < 2 or not all(isinstance(f, str) for f in files)
                or not _reason(entry.get("reason"))):
            raise err(key, f"file_cycles: each entry needs `files` (two or more dotted modules) and a "
                           f"`reason`, got {entry!r}")
        out.append(AllowedCycle(frozenset(files), _reason(entry["reason"]), lines.get(key, 1)))
    return tuple(out)


def _mapping(raw: dict[str, Any], key: str, err: Any) -> dict[str, Any]:
    value = raw.get(key)
    if not isinstance(value, dict) or not value:
        raise err(key, f"`{key}` must be a non-empty mapping")
    return value
