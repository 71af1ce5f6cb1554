"""The surface check end to end: a throw-away project, its manifests recorded with
`surfaces --update`, then planted breaks found through `python -m architecture surfaces`."""
from __future__ import annotations

import itertools
import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from architecture.cli import run

REPO = Path(__file__).resolve().parents[2]
_ids = itertools.count()

API = '''\
import os

__all__ = ["scale", "Thing", "LIMIT"]
LIMIT = 3
_DEBUG = os.environ.get("PLANT_DEBUG")


def scale(x, factor=2, *, clip=None):
    return x * factor


class Thing:
    def grow(self, by=1):
        return by
'''

MAIN = '''\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--fast")
sub = parser.add_subparsers()
sub.add_parser("go")
'''


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A one-package project whose surfaces are recorded; yields (root, package name)."""
    pkg = f"plant{next(_ids)}_{tmp_path.name.replace('-', '_')}"
    root = tmp_path
    _write(root, "architecture/boundaries.yaml", f"""\
        roots: [{pkg}]
        layers:
          api: {{kind: runtime, description: the package}}
        modules:
          {pkg}: {{layer: api, purpose: A planted package.}}
        """)
    _write(root, "architecture/surfaces.yaml", f"""\
        python_api:
          modules: [{pkg}]
          classes: [{pkg}.Thing]
        checkpoint:
          attributes: [{pkg}.serialization.DEFAULT_PROTOCOL]
        surfaces: []
        """)
    _write(root, f"{pkg}/__init__.py", API)
    _write(root, f"{pkg}/__main__.py", MAIN)
    for rel in ("aten/native/native_functions.yaml", "aten/native/tags.yaml"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, root / rel)
    monkeypatch.syspath_prepend(str(root))
    assert run(["--root", str(root), "surfaces", "--update"]) == 0
    yield root, pkg
    for name in [m for m in sys.modules if m == pkg or m.startswith(pkg + ".")]:
        del sys.modules[name]


def _check(root: Path, pkg: str, capsys) -> tuple[int, list[dict]]:
    for name in [m for m in sys.modules if m == pkg or m.startswith(pkg + ".")]:
        del sys.modules[name]     # re-import the edited package
    capsys.readouterr()
    status = run(["--root", str(root), "surfaces", "--format", "json"])
    return status, json.loads(capsys.readouterr().out)["findings"]


def _errors(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["severity"] == "error"]


def test_recorded_project_passes(project, capsys):
    root, pkg = project
    status, findings = _check(root, pkg, capsys)
    assert status == 0 and not _errors(findings)
    recorded = json.loads((root / "architecture/surfaces/environment.json").read_text())
    assert recorded["names"] == {"PLANT_DEBUG": {"modules": [pkg]}}
    cli = json.loads((root / "architecture/surfaces/cli.json").read_text())["names"]
    assert cli == {f"python -m {pkg}": {"commands": ["go"], "options": ["--fast"]}}


def test_removed_public_function_fails_with_the_surfaces_bit(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__init__.py", API.replace("def scale", "def _scale").replace('"scale", ', ""))
    status, findings = _check(root, pkg, capsys)
    assert status == 32
    [error] = _errors(findings)
    assert error["rule"] == "removed" and f"{pkg}.scale" in error["message"]


def test_changed_default_fails_at_the_function_line(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__init__.py", API.replace("factor=2", "factor=3"))
    status, findings = _check(root, pkg, capsys)
    assert status == 32
    [error] = _errors(findings)
    assert error["rule"] == "incompatible" and "factor" in error["message"]
    assert (error["path"], error["line"]) == (f"{pkg}/__init__.py", 8)


def test_allowlisted_change_passes_and_is_listed(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__init__.py", API.replace("factor=2", "factor=3"))
    _write(root, "architecture/surfaces/allowlist.yaml", f"""\
        api:
          - name: {pkg}.scale
            reason: the old default overflowed
        """)
    status, findings = _check(root, pkg, capsys)
    assert status == 0
    assert any(f["rule"] == "allowed" and "overflowed" in f["message"] for f in findings)


def test_added_name_is_listed_not_failed(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__init__.py", API.replace('"LIMIT"]', '"LIMIT", "shrink"]') + "\n\ndef shrink(x):\n    return x\n")
    status, findings = _check(root, pkg, capsys)
    assert status == 0
    assert any(f["rule"] == "added" and "shrink" in f["message"] for f in findings)


def test_public_name_missing_from_all_is_reported(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__init__.py", API + "\n\ndef helper():\n    return 1\n")
    status, findings = _check(root, pkg, capsys)
    assert status == 32
    assert [f["rule"] for f in _errors(findings)] == ["not-in-all"]


def test_environment_variable_no_longer_read_is_a_removal(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__init__.py", API.replace('os.environ.get("PLANT_DEBUG")', "None"))
    status, findings = _check(root, pkg, capsys)
    assert status == 32
    [error] = _errors(findings)
    assert error["rule"] == "removed" and "PLANT_DEBUG" in error["message"]
    assert error["path"] == "architecture/surfaces/environment.json"


def test_new_environment_variable_is_listed_at_its_line(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__init__.py", API + '\n_TRACE = os.getenv("PLANT_TRACE")\n')
    status, findings = _check(root, pkg, capsys)
    assert status == 0
    [note] = [f for f in findings if f["rule"] == "added"]
    assert "PLANT_TRACE" in note["message"] and note["path"] == f"{pkg}/__init__.py" and note["line"] == 16


def test_removed_cli_subcommand_fails(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/__main__.py", MAIN.replace('sub.add_parser("go")\n', ""))
    status, findings = _check(root, pkg, capsys)
    assert status == 32
    [error] = _errors(findings)
    assert error["rule"] == "changed" and f"python -m {pkg}" in error["message"]


def test_checkpoint_version_change_fails(project, capsys):
    root, pkg = project
    _write(root, f"{pkg}/serialization.py", "DEFAULT_PROTOCOL = 2\n")
    assert run(["--root", str(root), "surfaces", "--update"]) == 0
    _write(root, f"{pkg}/serialization.py", "DEFAULT_PROTOCOL = 3\n")
    status, findings = _check(root, pkg, capsys)
    assert status == 32
    [error] = _errors(findings)
    assert error["rule"] == "changed" and "DEFAULT_PROTOCOL" in error["message"]


def test_schema_default_change_fails_with_the_schemas_bit(project, capsys):
    root, pkg = project
    yaml_path = root / "aten/native/native_functions.yaml"
    text = yaml_path.read_text()
    old = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert old in text
    yaml_path.write_text(text.replace(old, old.replace("alpha=1", "alpha=2")))
    line = next(n for n, ln in enumerate(yaml_path.read_text().splitlines(), 1) if "add.Tensor(Tensor self" in ln)
    status, findings = _check(root, pkg, capsys)
    assert status == 64
    [error] = _errors(findings)
    assert error["check"] == "schemas" and error["rule"] == "incompatible"
    assert (error["path"], error["line"]) == ("aten/native/native_functions.yaml", line)
    assert "default" in error["message"]


def test_schema_with_new_defaulted_argument_is_compatible(project, capsys):
    root, pkg = project
    yaml_path = root / "aten/native/native_functions.yaml"
    old = "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)"
    yaml_path.write_text(yaml_path.read_text().replace(old, old[:-1] + ", bool fast=False)"))
    status, findings = _check(root, pkg, capsys)
    assert status == 0
    assert any(f["rule"] == "changed-compatible" for f in findings)


def test_unparseable_schema_file_cannot_run(project, capsys):
    root, pkg = project
    yaml_path = root / "aten/native/native_functions.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("zeros(SymInt[] size,", "zeros(SymInt[] size"))
    capsys.readouterr()
    assert run(["--root", str(root), "surfaces"]) == 255
    assert "aten/native/native_functions.yaml:" in capsys.readouterr().err


def test_missing_manifest_is_reported_with_the_fix(project, capsys):
    root, pkg = project
    (root / f"architecture/surfaces/{pkg}.json").unlink()
    capsys.readouterr()
    status = run(["--root", str(root), "surfaces"])
    out = capsys.readouterr().out
    assert status == 32
    assert f"architecture/surfaces/{pkg}.json: error: [surfaces/no-manifest]" in out
    assert "fix: run `python -m architecture surfaces --update`" in out


def test_real_repository_surfaces_match_their_manifests():
    assert run(["--root", str(REPO), "surfaces"]) == 0
