"""`python -m architecture` as CI and people use it: text and JSON output, options, exit
statuses, `graph`, `report` (.importlinter) and import-linter's run, and the real repository."""
from __future__ import annotations

import configparser
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from architecture import config, graph, import_contracts
from architecture.cli import run

import planted_trees as planted  # test/ helper (a module in test/architecture would shadow the real package)
audit, errors, notes = planted.audit, planted.errors, planted.notes

REPO = Path(__file__).resolve().parents[2]
LAYERS, MAPS, COULD_NOT_RUN = 1, 128, 255
SURFACES_SPEC = "python_api: {modules: [], classes: []}\ncheckpoint: {attributes: []}\nsurfaces: []\n"


@pytest.fixture(autouse=True)
def _keep_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # run() puts --root on sys.path, and import-linter may add the cwd: keep both off it afterwards.
    monkeypatch.setattr(sys, "path", list(sys.path))


@pytest.fixture
def tree(tmp_path: Path) -> Any:
    return planted.plant(tmp_path / "repo")


@pytest.fixture
def reportable(tree: Any) -> Any:
    """A tree `report` can render: an empty surfaces spec, and no operator schema to read
    (a throw-away tree has no aten/native/native_functions.yaml, so no operators)."""
    tree.write("architecture/surfaces.yaml", SURFACES_SPEC)
    return tree


def _text(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = run(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- Output -------------------------------------------------------------------------------------


def test_text_output_gives_path_line_check_rule_and_a_fix_line(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/cuda/info.py", "import os\n\nfrom api import optim\n")
    status, out, _ = _text(capsys, "check", "--root", str(tree.root))
    assert status == LAYERS
    lines = out.splitlines()
    [at] = [i for i, ln in enumerate(lines) if ln.startswith("core/cuda/info.py:3: ")]
    assert lines[at].startswith("core/cuda/info.py:3: error: [layers/layer] runtime import (module) ")
    assert lines[at + 1].startswith("    fix: move the code that needs api.optim")
    assert lines[-1].startswith("architecture check: 1 errors (layers 1), 1 notes; exit 1; ")


def test_json_output_is_one_object_with_status_and_findings(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/cuda/info.py", "from api import optim\n")
    status, data = audit(tree, "check", capsys=capsys)
    assert status == data["status"] == LAYERS
    assert data["command"] == "check" and data["written"] == [] and isinstance(data["seconds"], float)
    [f] = errors(data["findings"])
    assert set(f) >= {"check", "rule", "severity", "path", "line", "message", "fix"}


def test_dynamic_import_notes_are_listed_only_with_verbose(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/plug.py", "import importlib\n\n\ndef load(name):\n    return importlib.import_module(name)\n")
    status, out, _ = _text(capsys, "check", "--root", str(tree.root))
    assert status == 0 and "core/plug.py:5" not in out
    assert out.splitlines()[-1].startswith("architecture check: 0 errors, 2 notes; exit 0")
    status, out, _ = _text(capsys, "check", "--root", str(tree.root), "-v")
    assert status == 0 and "core/plug.py:5: note: [layers/dynamic-import]" in out


# --- Options and exit statuses -------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["--root", "{root}", "check", "--format", "json"],
    ["check", "--root", "{root}", "--format", "json"],
    ["--format", "json", "--root", "{root}", "check"],
])
def test_options_are_honoured_before_or_after_the_command(
        tree: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        argv: list[str]) -> None:
    tree.write("core/cuda/info.py", "from api import optim\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")      # no boundaries.yaml here: --root must be used
    capsys.readouterr()
    status = run([a.replace("{root}", str(tree.root)) for a in argv])
    data = json.loads(capsys.readouterr().out)
    assert status == data["status"] == LAYERS
    assert [(f["path"], f["line"]) for f in errors(data["findings"])] == [("core/cuda/info.py", 1)]


def test_without_root_the_current_directory_is_audited(
        tree: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    tree.write("core/cuda/info.py", "from api import optim\n")
    monkeypatch.chdir(tree.root)
    capsys.readouterr()
    assert run(["check", "--format", "json"]) == LAYERS
    assert json.loads(capsys.readouterr().out)["status"] == LAYERS


def test_could_not_run_says_why_on_stderr_in_text_mode(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(tree.root / "build" / "gen")
    status, out, err = _text(capsys, "check", "--root", str(tree.root))
    assert status == COULD_NOT_RUN and out == ""
    assert err.startswith("architecture: cannot run: generated sources missing (build/gen)")


def test_malformed_boundaries_message_carries_the_yaml_line_in_text_mode(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c["modules"]["core"].__setitem__("may_import", ["api"]))
    status, _, err = _text(capsys, "check", "--root", str(tree.root))
    assert status == COULD_NOT_RUN
    assert f"architecture/boundaries.yaml:{tree.module_line('core')}: module core (layer core) may not import api" in err


@pytest.mark.parametrize("argv", [["graph"], ["no-such-command"], ["check", "--format", "xml"], ["check", "--bogus"]])
def test_bad_arguments_exit_255(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        run(argv)
    assert exc.value.code == COULD_NOT_RUN
    assert "error:" in capsys.readouterr().err


# --- graph ---------------------------------------------------------------------------------------


def _edges(items: list[dict[str, Any]]) -> set[tuple[str, str, str, str, str]]:
    return {(e["location"], e["source"], e["target"], e["kind"], e["scope"]) for e in items}


def test_graph_json_lists_who_imports_a_module_and_what_it_imports(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, info = audit(tree, "graph", "--module", "ops", capsys=capsys)
    assert status == 0
    assert (info["module"], info["declared"], info["belongs_to"], info["layer"]) == ("ops", True, "ops", "ops")
    assert _edges(info["imported_by"]) == {("api/__init__.py:1", "api", "ops", "import", "module")}
    assert _edges(info["imports"]) == {
        ("ops/__init__.py:1", "ops", "core.dtype", "import", "module"),
        ("ops/kernels.pxd:1", "ops.kernels", "core._impl", "cimport", "module"),
        ("ops/kernels.pyx:1", "ops.kernels", "core._impl", "cimport", "module"),
        ("build/gen/ops/_gen_add.pyx:2", "ops._gen_add", "core._impl", "cimport", "module"),
    }
    assert {e["target_module"] for e in info["imports"]} == {"core"}


def test_graph_lists_third_party_and_lazy_imports_but_not_the_standard_library(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, info = audit(tree, "graph", "--module", "core.cuda", capsys=capsys)
    assert status == 0 and info["imported_by"] == []
    assert _edges(info["imports"]) == {("core/cuda/__init__.py:2", "core.cuda", "pycuda", "import", "function")}
    status, info = audit(tree, "graph", "--module", "core", capsys=capsys)
    assert ("core/dtype.py:2", "core.dtype", "numpy", "import", "module") in _edges(info["imports"])
    assert not any(e["target"] in ("os", "libc", "cython") for e in info["imports"])


def test_graph_of_a_dotted_file_module(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, info = audit(tree, "graph", "--module", "core.dtype", capsys=capsys)
    assert status == 0
    assert (info["declared"], info["belongs_to"], info["layer"]) == (False, "core", "core")
    assert {e["location"] for e in info["imported_by"]} == {
        "api/__init__.py:2", "api/optim/__init__.py:1", "core/__init__.py:2", "ops/__init__.py:1"}


def test_graph_text_output(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _text(capsys, "graph", "--module", "ops", "--root", str(tree.root))
    assert status == 0
    assert out.splitlines()[:3] == ["ops: module ops, layer ops", "imported by (1):",
                                    "  api/__init__.py:1: api -> ops (import, module)"]
    assert "  build/gen/ops/_gen_add.pyx:2: ops._gen_add -> core._impl (cimport, module)" in out


def test_graph_of_an_unknown_module_cannot_run(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, data = audit(tree, "graph", "--module", "nowhere.at_all", capsys=capsys)
    assert status == COULD_NOT_RUN and "no module 'nowhere.at_all'" in data["error"]


# --- report and .importlinter --------------------------------------------------------------------


def _importlinter(root: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read_string((root / ".importlinter").read_text())
    return parser


def _values(parser: configparser.ConfigParser, section: str, key: str) -> list[str]:
    return parser[section][key].split()


def test_report_writes_importlinter_with_layer_forbidden_and_independence_contracts(
        reportable: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, data = audit(reportable, "report", capsys=capsys)
    assert status == 0
    assert ".importlinter" in data["written"] and "docs/architecture/module_boundary_map.md" in data["written"]
    lint = _importlinter(reportable.root)
    assert _values(lint, "importlinter", "root_packages") == ["core", "ops", "api", "gen", "tooling"]
    assert _values(lint, "importlinter:contract:runtime-layers", "layers") == ["api", "ops", "core"]
    assert _values(lint, "importlinter:contract:runtime-not-build", "forbidden_modules") == [
        "gen", "tooling", "jinja2", "yaml"]
    core = lint["importlinter:contract:core"]
    assert core["type"] == "forbidden" and core["source_modules"].split() == ["core"]
    assert {"api", "ops"} <= set(core["forbidden_modules"].split())
    assert "numpy" not in core["forbidden_modules"].split()          # core may use numpy
    assert "pycuda" not in core["forbidden_modules"].split()         # core.cuda, inside core, may use pycuda
    independent = lint["importlinter:contract:independent-0"]
    assert independent["type"] == "independence" and independent["modules"].split() == ["api.optim", "api.data"]
    assert "importlinter:contract:api-nn" not in lint                # planned: no package yet


def test_report_check_passes_after_report_and_fails_when_boundaries_change(
        reportable: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert audit(reportable, "report", "--check", capsys=capsys)[0] == MAPS     # nothing written yet
    assert audit(reportable, "report", capsys=capsys)[0] == 0
    status, data = audit(reportable, "report", "--check", capsys=capsys)
    assert (status, data["findings"], data["written"]) == (0, [], [])
    assert audit(reportable, "report", capsys=capsys)[1]["written"] == []       # idempotent
    reportable.edit_config(lambda c: c.__setitem__("independent", []))
    status, data = audit(reportable, "report", "--check", capsys=capsys)
    assert status == MAPS
    stale = {(f["rule"], f["path"]) for f in errors(data["findings"])}
    assert ("importlinter-stale", ".importlinter") in stale
    assert ("report-stale", "docs/architecture/module_boundary_map.md") in stale


def test_check_runs_import_linter_over_the_generated_contracts(
        reportable: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert audit(reportable, "report", capsys=capsys)[0] == 0
    status, data = audit(reportable, "check", capsys=capsys)
    assert (status, data["findings"]) == (0, [])          # no import-linter-skipped note either
    reportable.write("core/cuda/info.py", "from api import optim\n")
    status, data = audit(reportable, "check", capsys=capsys)
    assert status == LAYERS
    lint = planted.errors(data["findings"], rule="import-linter")
    assert len(lint) == 1 and lint[0]["path"] == ".importlinter" and "BROKEN" in lint[0]["message"]
    assert "core.cuda.info -> api.optim" in lint[0]["message"]
    assert errors(data["findings"], rule="layer")[0]["line"] == 1


def test_import_contracts_render_stale_and_write_directly(tree: Any) -> None:
    b = config.load(tree.root)
    g = graph.build(tree.root, b)
    text = import_contracts.render(b, g)
    assert "[importlinter:contract:ops]\n" in text and "[importlinter:contract:independent-0]\n" in text
    assert "type = independence\nmodules =\n    api.optim\n    api.data\n" in text
    [missing] = import_contracts.stale(tree.root, b, g)
    assert (missing.check, missing.rule, missing.message) == ("maps", "importlinter-stale", ".importlinter is missing")
    assert import_contracts.write(tree.root, b, g) is True
    assert import_contracts.write(tree.root, b, g) is False
    assert import_contracts.stale(tree.root, b, g) == []
    (tree.root / ".importlinter").write_text(text.replace("    api.data\n", ""))
    [stale] = import_contracts.stale(tree.root, b, g)
    assert stale.rule == "importlinter-stale" and "does not carry the rules" in stale.message


def test_report_without_a_surfaces_spec_cannot_run(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, data = audit(tree, "report", capsys=capsys)
    assert status == COULD_NOT_RUN and "surfaces.yaml" in data["error"]


# --- The real repository --------------------------------------------------------------------------


def test_real_repository_passes_the_boundary_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)       # --root, not the current directory, names the repository
    status, data = audit(REPO, "check", capsys=capsys)
    assert errors(data["findings"]) == [] and status == 0
