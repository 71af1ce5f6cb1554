""".importlinter carries boundaries.yaml's rules: generated from it, checked for staleness, and
run through import-linter itself."""
from __future__ import annotations

import configparser
import itertools
import sys
import textwrap
from pathlib import Path

import pytest

from architecture import config, graph, import_contracts

REPO = Path(__file__).resolve().parents[2]
_ids = itertools.count()


def _contracts(text: str) -> dict[str, dict[str, str]]:
    parser = configparser.ConfigParser()
    parser.read_string(text)
    return {s.split(":", 2)[2]: dict(parser[s]) for s in parser.sections() if s.startswith("importlinter:contract:")}


def _lines(value: str) -> list[str]:
    return [v.strip() for v in value.strip().splitlines() if v.strip()]


def test_committed_importlinter_matches_boundaries_yaml():
    b = config.load(REPO)
    g = graph.build(REPO, b)
    assert (REPO / ".importlinter").read_text() == import_contracts.render(b, g)
    assert import_contracts.stale(REPO, b, g) == []


def test_every_runtime_rule_of_boundaries_yaml_is_a_contract():
    b = config.load(REPO)
    contracts = _contracts(import_contracts.render(b, graph.build(REPO, b)))
    # functorch (the old names of torch.func) sits on torch, in the same layer
    assert _lines(contracts["runtime-layers"]["layers"]) == ["functorch", "torch", "aten", "c10"]
    banned = _lines(contracts["runtime-not-build"]["forbidden_modules"])
    assert {"torchgen", "tools", "architecture", "jinja2", "yaml"} <= set(banned)
    # c10 imports no other project package; torchgen imports no runtime package.
    assert {"aten", "torch"} <= set(_lines(contracts["c10"]["forbidden_modules"]))
    assert {"aten", "c10", "torch", "numpy"} <= set(_lines(contracts["torchgen"]["forbidden_modules"]))
    # pycuda: forbidden where no module inside is allowed it.
    assert "pycuda" in _lines(contracts["aten-native-cpu"]["forbidden_modules"])
    assert "pycuda" not in _lines(contracts.get("aten-native-cuda", {}).get("forbidden_modules", ""))
    assert any(c["type"] == "independence" for c in contracts.values())


def test_real_repository_passes_import_linter():
    assert import_contracts.run_import_linter(REPO) == []


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """Two packages, low and high (low may import nothing), with .importlinter generated."""
    suffix = f"{next(_ids)}"
    low, high = f"low{suffix}", f"high{suffix}"
    (tmp_path / "architecture").mkdir()
    (tmp_path / "architecture/boundaries.yaml").write_text(textwrap.dedent(f"""\
        roots: [{low}, {high}]
        layers:
          top: {{kind: runtime, description: t}}
          bottom: {{kind: runtime, description: b}}
        modules:
          {high}: {{layer: top, purpose: Uses low., may_import: [{low}]}}
          {low}: {{layer: bottom, purpose: Imports nothing.}}
        """))
    for pkg in (low, high):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / high / "api.py").write_text(f"import {low}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    b = config.load(tmp_path)
    import_contracts.write(tmp_path, b, graph.build(tmp_path, b))
    yield tmp_path, low, high
    for name in [m for m in sys.modules if m.startswith((low, high))]:
        del sys.modules[name]


def test_generated_contracts_pass_on_a_clean_tree(tree):
    root, low, high = tree
    assert import_contracts.run_import_linter(root) == []


def test_import_linter_catches_an_upward_py_import(tree):
    root, low, high = tree
    (root / low / "core.py").write_text(f"\n\nfrom {high} import api\n")
    [finding] = import_contracts.run_import_linter(root)
    assert finding.check == "layers" and finding.rule == "import-linter"
    assert f"{low}.core -> {high}.api (l.3)" in finding.message


def test_editing_boundaries_makes_importlinter_stale(tree):
    root, low, high = tree
    path = root / "architecture/boundaries.yaml"
    path.write_text(path.read_text().replace(f"may_import: [{low}]", "may_import: []"))
    b = config.load(root)
    [finding] = import_contracts.stale(root, b, graph.build(root, b))
    assert (finding.check, finding.rule, finding.path) == ("maps", "importlinter-stale", ".importlinter")
    assert "python -m architecture report" in finding.fix
