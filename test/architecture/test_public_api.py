"""The public-API surface check: manifests of throw-away packages before and after a change,
and of the real `torch`, compared the way the audit compares them."""
from __future__ import annotations

import copy
import importlib
import itertools
import json
import sys
import textwrap
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from architecture import public_api
from architecture.findings import ERROR, NOTE, Finding
from architecture.public_api import (
    ApiAllow, collect_class, collect_module, compare, coverage_findings, parse_allowlist,
)

MANIFEST = "architecture/surfaces/api/pkg.json"
_serial = itertools.count()


@pytest.fixture
def versions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., tuple[dict, dict]]]:
    """Writes the same package twice (old, then new source) under one unique name and collects
    a manifest of each: `collect` defaults to the module itself, or takes a class's dotted tail."""
    names: list[str] = []

    def make(old_src: str, new_src: str, cls: str | None = None) -> tuple[dict, dict]:
        name = f"apitest_versions_{next(_serial)}"
        names.append(name)
        out = []
        for version, src in (("old", old_src), ("new", new_src)):
            root = tmp_path / version
            (root / name).mkdir(parents=True)
            (root / name / "__init__.py").write_text(textwrap.dedent(src))
            monkeypatch.syspath_prepend(str(root))   # the newer version is found first
            sys.modules.pop(name, None)
            importlib.invalidate_caches()
            out.append(collect_class(f"{name}.{cls}") if cls else collect_module(name))
        return out[0], out[1]

    yield make
    for name in names:
        sys.modules.pop(name, None)


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], str]]:
    """Writes one package and returns its (unique) importable name."""
    monkeypatch.syspath_prepend(str(tmp_path))
    names: list[str] = []

    def make(src: str) -> str:
        name = f"apitest_pkg_{next(_serial)}"
        names.append(name)
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(textwrap.dedent(src))
        importlib.invalidate_caches()
        return name

    yield make
    for name in names:
        sys.modules.pop(name, None)


def diff(old: dict, new: dict, allow: list[ApiAllow] | None = None, today: date | None = None,
         root: Path | None = None) -> list[Finding]:
    return compare(old, new, allow or [], manifest_path=MANIFEST, today=today, **({"root": root} if root else {}))


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == ERROR]


def only_error(findings: list[Finding], rule: str = "incompatible") -> Finding:
    found = errors(findings)
    assert len(found) == 1, [f.render() for f in findings]
    assert found[0].rule == rule and found[0].check == "surfaces"
    return found[0]


# ----------------------------------------------------------------------------- manifests

def test_manifest_records_kinds_parameters_defaults_and_constants(package):
    name = package('''
        import os
        __all__ = ["scale", "Box", "LIMIT", "MODE", "RATIO", "sub", "DEFAULT_DIR"]
        from os import path as sub
        LIMIT = 3
        MODE = "fast"
        RATIO = 0.5
        DEFAULT_DIR = os.sep and object()
        def scale(x, /, factor=2, *args, clip=None, **kw): ...
        class Box:
            def __init__(self, size, *, fill=0): ...
    ''')
    names = collect_module(name)["names"]
    assert names["scale"] == {"kind": "function", "signatures": [[
        {"name": "x", "kind": "positional_only"},
        {"name": "factor", "kind": "positional_or_keyword", "default": "2"},
        {"name": "args", "kind": "var_positional"},
        {"name": "clip", "kind": "keyword_only", "default": "None"},
        {"name": "kw", "kind": "var_keyword"},
    ]]}
    assert names["Box"]["signatures"] == [[{"name": "size", "kind": "positional_or_keyword"},
                                          {"name": "fill", "kind": "keyword_only", "default": "0"}]]
    assert names["LIMIT"] == {"kind": "value", "type": "int", "value": "3"}
    assert names["MODE"]["value"] == "'fast'" and names["RATIO"]["value"] == "0.5"
    assert names["DEFAULT_DIR"] == {"kind": "value", "type": "object"}   # never the object itself
    assert names["sub"] == {"kind": "module"}


def test_module_without_all_lists_every_name_without_underscore(package):
    name = package('''
        def visible(): ...
        def _hidden(): ...
    ''')
    manifest = collect_module(name)
    assert manifest["has_all"] is False and sorted(manifest["names"]) == ["visible"]


def test_class_manifest_lists_methods_properties_and_own_dunders(package):
    name = package('''
        class Widget:
            colour = "red"
            def __init__(self, size): ...
            def __add__(self, other): ...
            def __len__(self): ...
            @property
            def area(self): ...
            @classmethod
            def make(cls, size=1): ...
            def grow(self, by=1): ...
            def _private(self): ...
    ''')
    names = collect_class(f"{name}.Widget")["names"]
    assert sorted(names) == ["__add__", "__init__", "__len__", "area", "colour", "grow", "make"]
    assert names["area"] == {"kind": "property"}
    assert names["colour"] == {"kind": "value", "type": "str", "value": "'red'"}
    assert names["make"]["signatures"] == [[{"name": "size", "kind": "positional_or_keyword", "default": "1"}]]
    assert [p["name"] for p in names["grow"]["signatures"][0]] == ["self", "by"]


def test_missing_class_or_module_gives_an_absent_manifest(package):
    name = package("x = 1\n")
    assert collect_class(f"{name}.Nope") == {"surface": f"{name}.Nope", "kind": "class", "absent": True,
                                             "names": {}}
    assert collect_module(f"{name}.nope")["absent"] is True


def test_import_errors_other_than_the_module_missing_propagate(package):
    name = package("import apitest_dependency_that_is_not_there\n")
    with pytest.raises(ModuleNotFoundError):
        collect_module(name)


# ----------------------------------------------------------------------------- breaking changes

def test_removed_function_is_an_error(versions):
    old, new = versions("def keep(): ...\ndef drop(): ...\n", "def keep(): ...\n")
    finding = only_error(diff(old, new), "removed")
    assert finding.extra["name"].endswith(".drop")
    assert finding.path == MANIFEST and finding.line is None
    assert "allowlist.yaml under `api:`" in finding.fix and "--update" in finding.fix


def test_renamed_parameter_is_incompatible(versions):
    old, new = versions("def f(a, b): ...\n", "def f(a, c): ...\n")
    assert "`b` was removed or renamed" in only_error(diff(old, new)).message


def test_reordered_positional_parameters_are_incompatible(versions):
    old, new = versions("def f(a, b): ...\n", "def f(b, a): ...\n")
    assert "`a` moved from position 0 to 1" in only_error(diff(old, new)).message


def test_changed_default_is_incompatible(versions):
    old, new = versions("def f(a, b=1): ...\n", "def f(a, b=2): ...\n")
    assert "default of `b` changed from 1 to 2" in only_error(diff(old, new)).message


def test_removed_default_is_incompatible(versions):
    old, new = versions("def f(a, b=1): ...\n", "def f(a, b): ...\n")
    assert "`b` lost its default 1" in only_error(diff(old, new)).message


def test_new_required_parameter_is_incompatible(versions):
    old, new = versions("def f(a): ...\n", "def f(a, *, b): ...\n")
    assert "new required parameter `b`" in only_error(diff(old, new)).message


def test_positional_parameter_becoming_keyword_only_is_incompatible(versions):
    old, new = versions("def f(a, b=None): ...\n", "def f(a, *, b=None): ...\n")
    assert "`b` became keyword-only" in only_error(diff(old, new)).message


def test_positional_parameter_becoming_positional_only_is_incompatible(versions):
    old, new = versions("def f(a, b): ...\n", "def f(a, b, /): ...\n")
    assert "`a` became positional-only" in only_error(diff(old, new)).message


def test_removing_var_keyword_is_incompatible(versions):
    old, new = versions("def f(a, **options): ...\n", "def f(a): ...\n")
    assert "`**options` was removed" in only_error(diff(old, new)).message


def test_added_optional_parameter_is_compatible(versions):
    old, new = versions("def f(a, *, b=1): ...\n", "def f(a, c=None, *, b=1, d=False, **kw): ...\n")
    assert diff(old, new) == []


def test_keyword_only_becoming_positional_or_keyword_is_compatible(versions):
    old, new = versions("def f(a, *, b=1): ...\n", "def f(a, b=1): ...\n")
    assert diff(old, new) == []


def test_renamed_positional_only_parameter_is_compatible(versions):
    # Callers cannot pass a positional-only parameter by name.
    old, new = versions("def f(x, /): ...\n", "def f(value, /): ...\n")
    assert diff(old, new) == []


def test_added_function_is_a_note(versions):
    old, new = versions("def f(): ...\n", "def f(): ...\ndef g(x): ...\n")
    [finding] = diff(old, new)
    assert (finding.severity, finding.rule) == (NOTE, "added") and finding.extra["name"].endswith(".g")


def test_function_becoming_class_with_compatible_constructor_is_fine(versions):
    old, new = versions("def make(a, b=1): ...\n",
                        "class make:\n    def __init__(self, a, b=1, c=None): ...\n")
    assert diff(old, new) == []


def test_function_becoming_class_with_other_constructor_is_incompatible(versions):
    old, new = versions("def make(a, b=1): ...\n", "class make:\n    def __init__(self, a): ...\n")
    assert "`b` was removed" in only_error(diff(old, new)).message


def test_callable_becoming_value_is_incompatible(versions):
    old, new = versions("def f(): ...\n", "f = 3\n")
    assert "cannot be called" in only_error(diff(old, new)).message


def test_changed_constant_is_reported_as_value_changed(versions):
    old, new = versions("LIMIT = 3\n", "LIMIT = 4\n")
    assert "value 3 is now 4" in only_error(diff(old, new), "value-changed").message


def test_one_compatible_overload_is_enough_for_each_old_signature():
    def manifest(*sigs: list[dict[str, str]]) -> dict[str, Any]:
        return {"surface": "m", "kind": "module", "has_all": True,
                "names": {"f": {"kind": "function", "signatures": list(sigs)}}}
    a = [{"name": "a", "kind": "positional_or_keyword"}]
    ab = a + [{"name": "b", "kind": "positional_or_keyword"}]
    assert diff(manifest(a), manifest(ab, a)) == []
    assert "`(a)` -> `(a, b)`" in only_error(diff(manifest(a, ab), manifest(ab))).message


def test_changed_method_on_a_class_surface_is_found(versions):
    old, new = versions("class W:\n    def grow(self, by=1): ...\n    def __len__(self): ...\n",
                        "class W:\n    def grow(self, by=2): ...\n", cls="W")
    found = {f.rule: f for f in errors(diff(old, new))}
    assert set(found) == {"incompatible", "removed"}
    assert found["removed"].extra["name"].endswith(".W.__len__")


def test_whole_surface_removed_or_added():
    present = {"surface": "m", "kind": "module", "has_all": False,
               "names": {"f": {"kind": "function", "signatures": []}, "g": {"kind": "module"}}}
    absent = {"surface": "m", "kind": "module", "absent": True, "names": {}}
    removed = only_error(diff(present, absent), "removed")
    assert removed.extra["name"] == "m"
    assert [(f.severity, f.rule) for f in diff(absent, present)] == [(NOTE, "added")] * 2
    assert [(f.severity, f.rule) for f in diff({}, present)] == [(NOTE, "added")] * 2
    assert diff(absent, absent) == []


def test_finding_points_at_the_source_line_when_it_is_inside_the_repo(versions, tmp_path):
    old, new = versions("def f(a): ...\n", "X = 1\n\n\ndef f(b): ...\n")
    finding = only_error(diff(old, new, root=tmp_path))
    assert finding.path == f"new/{new['surface']}/__init__.py" and finding.line == 4


# ----------------------------------------------------------------------------- allowlist

def test_allowlist_turns_an_error_into_a_note_with_its_reason(versions):
    old, new = versions("def f(a): ...\ndef g(): ...\n", "def f(b): ...\n")
    surface = new["surface"]
    allow = [ApiAllow(f"{surface}.f", "renamed to match upstream", date(2030, 1, 1)),
             ApiAllow(f"{surface}.g", "moved to a submodule")]
    findings = diff(old, new, allow, today=date(2029, 12, 31))
    assert errors(findings) == []
    by_name = {f.extra["name"]: f for f in findings}
    assert by_name[f"{surface}.f"].rule == "allowed" and "renamed to match upstream" in by_name[f"{surface}.f"].message
    assert by_name[f"{surface}.g"].extra["excused_rule"] == "removed"


def test_expired_allowlist_entry_excuses_nothing(versions):
    old, new = versions("def f(a): ...\n", "def f(b): ...\n")
    surface = new["surface"]
    allow = [ApiAllow(f"{surface}.f", "temporary", date(2024, 1, 1)),
             ApiAllow("elsewhere.h", "another surface's entry", date(2024, 1, 1))]
    findings = diff(old, new, allow, today=date(2024, 1, 2))
    assert only_error(findings).extra["name"] == f"{surface}.f"
    expired = [f for f in findings if f.rule == "allow-expired"]
    assert len(expired) == 1 and expired[0].severity == NOTE and "2024-01-01" in expired[0].message


def test_parse_allowlist_reads_entries_with_optional_dates():
    parsed = parse_allowlist([{"name": "torch.add", "reason": "r", "until": "2030-01-31"},
                              {"name": "torch.Tensor.sum", "reason": "r", "until": date(2030, 2, 1)},
                              {"name": "torch.sub", "reason": "r"}])
    assert [a.until for a in parsed] == [date(2030, 1, 31), date(2030, 2, 1), None]


@pytest.mark.parametrize("entry", [
    {"name": "torch.add"},
    {"name": "torch.add", "reason": "  "},
    {"name": "torch.add", "reason": "r", "until": "31/01/2030"},
    {"name": "torch.add", "reason": "r", "until": 2030},
    {"name": "torch.add", "reason": "r", "untill": "2030-01-31"},
    {"reason": "r"},
])
def test_parse_allowlist_rejects_entries_without_reason_or_with_bad_dates(entry):
    with pytest.raises(ValueError):
        parse_allowlist([entry])


def test_parse_allowlist_rejects_a_mapping_instead_of_a_list():
    with pytest.raises(ValueError, match="must be a list"):
        parse_allowlist({"name": "torch.add", "reason": "r"})  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- __all__ coverage

def test_public_looking_name_missing_from_all_is_an_error(package):
    name = package('''
        from typing import Any
        __all__ = ["listed"]
        def listed(): ...
        def forgotten(): ...
        def _private(): ...
    ''')
    [finding] = coverage_findings(name)
    assert (finding.severity, finding.rule) == (ERROR, "not-in-all")
    assert "forgotten" in finding.message and "__all__" in finding.fix
    assert finding.line == 3   # the __all__ assignment


def test_name_in_all_that_is_not_defined_is_an_error(package):
    name = package('__all__ = ["ghost"]\n')
    assert only_error(coverage_findings(name), "all-undefined").extra["name"] == f"{name}.ghost"


def test_module_without_all_reports_accidentally_public_names_once(package):
    name = package('''
        from __future__ import annotations
        import json
        from os.path import join
        LIMIT = 3
        def own(): ...
        class Own: ...
    ''')
    finding = only_error(coverage_findings(name), "no-all")
    assert finding.extra["names"] == ["annotations", "join", "json"]
    assert name in finding.message and finding.line == 1


def test_module_without_all_whose_names_all_look_public_is_clean(package):
    assert coverage_findings(package("def own(): ...\nLIMIT = 1\n")) == []


# ----------------------------------------------------------------------------- the real repo

def test_torch_manifest_has_add_with_generated_signatures_and_tensor():
    names = collect_module("torch")["names"]
    assert names["add"] == {"kind": "function", "signatures": [[
        {"name": "input", "kind": "positional_or_keyword"},
        {"name": "other", "kind": "positional_or_keyword"},
        {"name": "alpha", "kind": "keyword_only", "default": "1"},
        {"name": "out", "kind": "keyword_only", "default": "None"},
    ]]}
    assert len(names["sum"]["signatures"]) == 2
    assert names["tensor"]["kind"] == "function"
    assert names["Tensor"]["kind"] == "class"


def test_tensor_manifest_has_sum_overloads_and_operators_without_loading_bindings():
    import torch
    lazy_before = type(torch.Tensor.__dict__["sum"]).__name__ == "_LazyMethod"
    names = collect_class("torch.Tensor")["names"]
    assert [[p["name"] for p in sig] for sig in names["sum"]["signatures"]] == [
        ["self", "dtype"], ["self", "dim", "keepdim", "dtype"]]
    assert names["__add__"]["kind"] == "method" and names["shape"] == {"kind": "property"}
    assert names["__hash__"]["kind"] == "method" and "__reduce_cython__" not in names   # identity hash, as PyTorch
    if lazy_before:
        assert type(torch.Tensor.__dict__["sum"]).__name__ == "_LazyMethod"


def test_tensor_manifest_is_the_same_once_lazy_methods_are_resolved():
    import torch
    before = collect_class("torch.Tensor")
    torch.ones(2).sum()              # resolves Tensor.sum to its binding: `(self, *args, **kwargs)`
    assert torch.Tensor.__dict__["sum"].__class__.__name__ != "_LazyMethod"
    assert collect_class("torch.Tensor") == before


def test_torch_nn_is_collected_from_its_all():
    collected = collect_module("torch.nn")
    assert collected["has_all"] and "absent" not in collected
    assert {"Module", "Parameter", "Linear", "Sequential", "CrossEntropyLoss"} <= set(collected["names"])


def test_real_manifests_are_json_serialisable_and_deterministic():
    for collect, surface in ((collect_module, "torch"), (collect_class, "torch.Tensor")):
        first, second = collect(surface), collect(surface)
        assert first == second
        text = json.dumps(first)
        assert text == json.dumps(second) == json.dumps(first, sort_keys=True)
        assert json.loads(text) == first


def test_real_manifest_compared_with_itself_is_clean_and_a_break_points_at_the_source():
    current = collect_module("torch")
    assert compare(current, current, [], manifest_path=MANIFEST) == []
    old = copy.deepcopy(current)
    old["names"]["tensor"]["signatures"][0].append({"name": "extra", "kind": "keyword_only"})
    finding = only_error(compare(old, current, [], manifest_path=MANIFEST))
    assert finding.path == "torch/_creation.py" and finding.line is not None
