"""The boundary checks through `python -m architecture check --format json`, on throw-away trees:
each planted violation is reported at the right file:line, with the right check, rule and exit bit."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import planted_trees as planted  # test/ helper (a module in test/architecture would shadow the real package)
plant, check, errors, notes = planted.plant, planted.check, planted.errors, planted.notes

LAYERS, CYCLES, COUPLING, BUILD_ONLY, THIRD_PARTY = 1, 2, 4, 8, 16
COULD_NOT_RUN = 255


@pytest.fixture(autouse=True)
def _keep_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # run() puts --root on sys.path; keep the throw-away trees' `core`, `api` ... off it afterwards.
    monkeypatch.setattr(sys, "path", list(sys.path))


@pytest.fixture
def tree(tmp_path: Path) -> Any:
    return plant(tmp_path)


def only(findings: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    found: list[dict[str, Any]] = errors(findings, **match)
    assert len(found) == 1, (match, findings)
    return found[0]


def assert_only_errors(findings: list[dict[str, Any]], *expected: tuple[str, str, str, int]) -> None:
    """The errors are exactly `expected`: (check, rule, path, line) each."""
    got = sorted((f["check"], f["rule"], f["path"], f["line"]) for f in errors(findings))
    assert got == sorted(expected), [f["message"] for f in errors(findings)]


# --- A clean tree --------------------------------------------------------------------------------


def test_clean_tree_exits_0_with_no_errors(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, findings = check(tree, capsys)
    assert status == 0
    assert errors(findings) == []
    # The only note: no .importlinter in the tree, so import-linter's contracts were skipped.
    assert [f["rule"] for f in findings] == ["import-linter-skipped"]


# --- Layers --------------------------------------------------------------------------------------


def test_py_import_up_a_layer_is_a_layers_error_at_the_import_line(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # core.cuda -> api.optim: up from the core layer, and api.optim does not import core.cuda (no cycle).
    tree.write("core/cuda/info.py", "import os\n\nfrom api import optim\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("core/cuda/info.py", 3)
    assert "runtime import (module) core.cuda.info -> api.optim:" in f["message"]
    assert "core.cuda (layer core) may not import api.optim (layer api)" in f["message"]
    assert f["extra"] == {"source": "core.cuda", "target": "api.optim", "phase": "runtime"}
    assert f["fix"]


def test_import_up_into_a_module_that_imports_back_is_also_a_cycle(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/storage.py", "from api import optim\n")      # api.optim imports core
    status, findings = check(tree, capsys)
    assert status == LAYERS | CYCLES
    assert (only(findings, check="layers")["path"], only(findings, check="layers")["line"]) == ("core/storage.py", 1)
    assert "api.optim -> core -> api.optim" in only(findings, check="cycles")["message"]


def test_pyx_from_cimport_up_a_layer_is_reported_at_the_pyx_line(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("api/optim/state.pxd", "cdef class State:\n    pass\n")
    tree.write("ops/fast.pyx", "from libc.math cimport sqrt\n\n\nfrom api.optim.state cimport State\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("ops/fast.pyx", 4)
    assert "runtime cimport (module) ops.fast -> api.optim.state:" in f["message"]


def test_pxd_cimport_up_a_layer_is_reported_at_the_pxd_line(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("ops/kernels.pxd", "from core._impl cimport Impl\ncimport api.data.batch\n")
    tree.write("api/data/batch.pxd", "")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("ops/kernels.pxd", 2)
    assert "runtime cimport (module) ops.kernels -> api.data.batch:" in f["message"]


def test_generated_pyx_importing_up_a_layer_is_reported_under_build_gen(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("build/gen/ops/_gen_add.pyx", "# generated\nfrom core._impl cimport Impl\nimport api.optim\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("build/gen/ops/_gen_add.pyx", 3)
    assert "ops._gen_add -> api.optim" in f["message"]


def test_lazy_import_in_a_py_function_is_reported_with_function_scope(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/lazy.py", "def f():\n    import ops\n    return ops\n")
    status, findings = check(tree, capsys)
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("core/lazy.py", 2)
    assert "runtime import (function) core.lazy -> ops" in f["message"]
    # A lazy import is still a dependency: core -> ops with ops -> core is a cycle.
    assert status == LAYERS | CYCLES


@pytest.mark.parametrize("header", ["def f(x):", "cdef int f(int x) except -1:", "cpdef object f(x):"])
def test_lazy_import_in_a_pyx_function_body_is_reported_with_function_scope(
        tree: Any, capsys: pytest.CaptureFixture[str], header: str) -> None:
    tree.write("ops/lazy.pyx", f"cimport cython\n\n{header}\n    with nogil:\n        pass\n    import api.data\n    return 0\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("ops/lazy.pyx", 6)
    assert "runtime import (function) ops.lazy -> api.data:" in f["message"]


def test_literal_import_module_is_checked_as_a_dynamic_import(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/cuda/plug.py", "import importlib\n\nmod = importlib.import_module('api.optim')\n")
    tree.write("ops/plug.pyx", "import importlib\n\ndef f():\n    return importlib.import_module(\"api.data\")\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    assert_only_errors(findings, ("layers", "layer", "core/cuda/plug.py", 3), ("layers", "layer", "ops/plug.pyx", 4))
    assert "runtime dynamic (module) core.cuda.plug -> api.optim:" in only(findings, path="core/cuda/plug.py")["message"]
    assert "runtime dynamic (function) ops.plug -> api.data:" in only(findings, path="ops/plug.pyx")["message"]


def test_computed_import_module_is_a_note_not_an_error(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/plug.py", "import importlib\n\n\ndef load(name):\n    return importlib.import_module(name)\n")
    status, findings = check(tree, capsys)
    assert status == 0 and errors(findings) == []
    [n] = notes(findings, rule="dynamic-import")
    assert (n["check"], n["path"], n["line"]) == ("layers", "core/plug.py", 5)
    assert "importlib.import_module(name)" in n["message"]


def test_type_checking_import_up_a_layer_is_a_type_checking_layer_error_but_no_cycle(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # Designed behaviour (checks.layers): the layer rule covers type-checking imports too (the
    # message says so), but they never run, so they make no import cycle (api -> core exists).
    tree.write("core/hints.py", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import api\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("core/hints.py", 4)
    assert f["message"].startswith("type-checking import core.hints -> api:")


def test_type_checking_import_of_build_time_code_from_the_runtime_is_a_layer_error(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # Never run, so not a build-only (runtime) import; but the runtime still may not depend on
    # build-time code, even for types.
    tree.write("core/hints.py", "import typing\n\nif typing.TYPE_CHECKING:\n    import gen.model\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="layer")
    assert (f["path"], f["line"]) == ("core/hints.py", 4) and f["message"].startswith("type-checking import")


def test_independent_modules_importing_each_other_break_independence(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # api.optim and api.data may import each other, but the independent group forbids it.
    tree.write("api/optim/sgd.py", "import os\nfrom api.data import loader\n")
    tree.write("api/data/loader.py", "")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="independence")
    assert (f["path"], f["line"]) == ("api/optim/sgd.py", 2)
    line = tree.yaml_line("- - api.optim")
    assert f"independent at architecture/boundaries.yaml:{line}" in f["message"]
    assert "api.optim and api.data must not know each other" in f["message"]


def test_independence_covers_declared_subpackages(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c["modules"].__setitem__(
        "api.data.loaders", {"layer": "api", "purpose": "Loaders.", "may_import": ["core"]}))
    tree.write("api/data/loaders/__init__.py", "")
    tree.write("api/optim/sgd.pyx", "from api.data.loaders import DataLoader\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    f = only(findings, check="layers", rule="independence")
    assert (f["path"], f["line"]) == ("api/optim/sgd.pyx", 1)


# --- Declarations ---------------------------------------------------------------------------------


def test_undeclared_subpackage_on_disk_is_reported(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("ops/sparse/__init__.py", "")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    assert_only_errors(findings, ("layers", "undeclared", "ops/sparse/__init__.py", 1))
    assert "falls into ops" in errors(findings)[0]["message"]


def test_files_under_a_root_no_module_declares_are_undeclared(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c["roots"].append("misc"))
    tree.write("misc/__init__.py", "")
    tree.write("misc/helpers.pyx", "")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    assert_only_errors(findings, ("layers", "undeclared", "misc/__init__.py", 1),
                       ("layers", "undeclared", "misc/helpers.pyx", 1))


def test_declared_module_missing_on_disk_is_reported_at_its_yaml_line(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c["modules"].__setitem__(
        "ops.sparse", {"layer": "ops", "purpose": "Sparse kernels.", "may_import": ["core"]}))
    status, findings = check(tree, capsys)
    assert status == LAYERS
    assert_only_errors(findings, ("layers", "missing", "architecture/boundaries.yaml", tree.module_line("ops.sparse")))


def test_planned_module_that_exists_is_reported_at_its_yaml_line(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("api/nn/__init__.py", "from core import dtype\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS
    assert_only_errors(findings, ("layers", "planned-exists", "architecture/boundaries.yaml", tree.module_line("api.nn")))


# --- Cycles --------------------------------------------------------------------------------------


def test_cycle_of_a_py_import_and_a_pyx_cimport_names_both_modules_and_both_edges(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # core and core.cuda share a layer and may import each other: no layer error, only the cycle.
    tree.edit_config(lambda c: c["modules"]["core.cuda"].__setitem__("may_import", ["core"]))
    tree.write("core/device.py", "import os\nimport core.cuda\n")
    tree.write("core/cuda/alloc.pyx", "# allocator\n\nfrom core._impl cimport Impl\n")
    status, findings = check(tree, capsys)
    assert status == CYCLES
    f = only(findings, check="cycles", rule="cycle")
    assert "runtime import cycle between modules core, core.cuda" in f["message"]
    assert "core -> core.cuda -> core" in f["message"]
    assert "core.device -> core.cuda at core/device.py:2" in f["message"]
    assert "core.cuda.alloc -> core._impl at core/cuda/alloc.pyx:3" in f["message"]
    assert (f["path"], f["line"]) == ("core/device.py", 2)
    assert f["extra"]["modules"] == ["core", "core.cuda"]
    assert f["extra"]["edges"] == ["core/device.py:2", "core/cuda/alloc.pyx:3"]


def test_build_time_cycle_is_reported_as_build_time(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("gen/hooks.py", "import tooling\n")
    status, findings = check(tree, capsys)
    assert status == LAYERS | CYCLES        # gen may not import tooling, and tooling imports gen
    f = only(findings, check="cycles")
    assert "build-time import cycle between modules gen, tooling" in f["message"]
    assert "gen.hooks -> tooling at gen/hooks.py:1" in f["message"]


def test_cycle_between_files_of_one_module_is_a_file_cycle_even_through_a_lazy_import(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("ops/launch.py", "import os\nfrom ops import copies\n")
    tree.write("ops/copies.py", "def copy():\n    from ops.launch import run\n    return run\n")
    status, findings = check(tree, capsys)
    assert status == CYCLES
    f = only(findings, check="cycles", rule="file-cycle")
    assert "files of module ops: ops.copies -> ops.launch -> ops.copies" in f["message"]
    assert "ops.copies -> ops.launch at ops/copies.py:2 (function)" in f["message"]
    assert (f["path"], f["line"]) == ("ops/copies.py", 2)
    assert f["extra"]["files"] == ["ops.copies", "ops.launch"]


def test_type_checking_import_between_files_is_no_file_cycle(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("ops/launch.py", "from ops import copies\n")
    tree.write("ops/copies.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ops import launch\n")
    assert check(tree, capsys)[0] == 0


def test_file_cycle_listed_with_a_reason_passes_and_a_stale_listing_is_a_note(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("ops/launch.py", "from ops import copies\n")
    tree.write("ops/copies.py", "from ops import launch\n")
    tree.edit_config(lambda c: c.__setitem__("file_cycles", [
        {"files": ["ops.copies", "ops.launch"], "reason": "they are one unit"},
        {"files": ["core.dtype", "core.gone"], "reason": "no longer true"}]))
    status, findings = check(tree, capsys)
    assert status == 0
    stale = [f for f in findings if f["rule"] == "stale-file-cycle"]
    entries = [n for n, line in enumerate((tree.root / planted.BOUNDARIES).read_text().splitlines(), 1)
               if line.startswith("- files:")]
    assert [(f["severity"], f["line"]) for f in stale] == [("note", entries[1])]
    assert "core.dtype, core.gone" in stale[0]["message"]


def test_file_cycle_listing_needs_a_reason(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c.__setitem__("file_cycles", [{"files": ["ops.a", "ops.b"]}]))
    assert "file_cycles: each entry needs" in _could_not_run(tree, capsys)


# --- File sizes -----------------------------------------------------------------------------------


def _sized(tree: Any, rel: str, lines: int) -> None:
    tree.write(rel, "x = 1\n" * lines)


def test_file_over_the_error_budget_is_a_coupling_error_and_over_the_note_budget_a_note(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c.__setitem__("file_size", {"note_above": 10, "error_above": 20}))
    _sized(tree, "ops/big.py", 21)
    _sized(tree, "ops/medium.pyx", 11)
    _sized(tree, "ops/small.py", 10)
    _sized(tree, "ops/_gen_huge.py", 100)             # generated: rewritten by each build, not counted
    _sized(tree, "build/gen/ops/_gen_mul.pyx", 100)
    status, findings = check(tree, capsys)
    assert status == COUPLING
    f = only(findings, check="coupling", rule="file-size")
    assert (f["path"], f["line"], f["extra"]["lines"]) == ("ops/big.py", 1, 21)
    sized = sorted((n["path"], n["severity"]) for n in findings if n["rule"] == "file-size")
    assert sized == [("ops/big.py", "error"), ("ops/medium.pyx", "note")]


def test_large_file_listed_with_a_reason_is_a_note_and_a_listing_within_budget_is_stale(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c.__setitem__("file_size", {"note_above": 10, "error_above": 20, "allowed": {
        "ops/big.py": "one algorithm, read top to bottom", "ops/small.py": "was big once"}}))
    _sized(tree, "ops/big.py", 21)
    _sized(tree, "ops/small.py", 5)
    status, findings = check(tree, capsys)
    assert status == 0
    big = [n for n in findings if n["rule"] == "file-size"]
    assert len(big) == 1 and "listed: one algorithm, read top to bottom" in big[0]["message"]
    stale = [n for n in findings if n["rule"] == "stale-file-size"]
    assert len(stale) == 1 and "ops/small.py" in stale[0]["message"] and stale[0]["severity"] == "note"


def test_file_size_budget_must_be_ordered(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c.__setitem__("file_size", {"note_above": 30, "error_above": 20}))
    assert "note <= error" in _could_not_run(tree, capsys)


# --- Coupling ------------------------------------------------------------------------------------


def _budget(module: str, **budget: Any) -> Any:
    return lambda c: c["modules"][module].__setitem__("budget", budget)


@pytest.mark.parametrize("module, budget, rule, value", [
    ("ops", {"max_outgoing": 1}, "max-outgoing", "outgoing 2 exceeds its budget 1"),
    ("core.cuda", {"max_incoming": 0}, "max-incoming", "incoming 2 exceeds its budget 0"),
    ("core", {"max_instability": 0.1}, "max-instability", "instability 0.2 exceeds its budget 0.1"),
])
def test_coupling_over_budget_is_reported_at_the_modules_yaml_line(
        tree: Any, capsys: pytest.CaptureFixture[str], module: str, budget: dict[str, Any], rule: str,
        value: str) -> None:
    tree.edit_config(_budget(module, **budget))
    tree.write("ops/devices.py", "import core.cuda\n")       # ops -> core, core.cuda
    tree.write("core/devices.pyx", "cimport core.cuda\n")   # core: out 1 (core.cuda), in 4
    status, findings = check(tree, capsys)
    assert status == COUPLING
    f = only(findings, check="coupling")
    assert f["rule"] == rule
    assert (f["path"], f["line"]) == ("architecture/boundaries.yaml", tree.module_line(module))
    assert f"module {module}: {value}" in f["message"]


def test_coupling_at_its_budget_passes(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(_budget("core", max_instability=0.2, max_outgoing=1))
    tree.write("core/devices.pyx", "cimport core.cuda\n")
    assert check(tree, capsys)[0] == 0


# --- Build-only and third-party ------------------------------------------------------------------


def test_runtime_importing_a_build_time_module_is_build_only_and_not_layers(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("core/schema.py", "import os\nimport gen.model\n")
    status, findings = check(tree, capsys)
    assert status == BUILD_ONLY
    f = only(findings, check="build-only", rule="runtime-imports-build")
    assert (f["path"], f["line"]) == ("core/schema.py", 2)
    assert "runtime module core.schema imports build-time-only gen.model" in f["message"]


def test_runtime_importing_a_build_only_package_is_build_only_and_not_third_party(
        tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write("ops/render.pyx", "def render():\n    import jinja2\n")
    status, findings = check(tree, capsys)
    assert status == BUILD_ONLY
    f = only(findings, check="build-only")
    assert (f["path"], f["line"]) == ("ops/render.pyx", 2)
    assert "(import, function scope)" in f["message"] and "no jinja2" in f["message"]


def test_third_party_import_outside_the_modules_allowed_list(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # pycuda is allowed in core.cuda only, not in its parent core.
    tree.write("core/gpu.py", "import numpy\nimport pycuda.driver as drv\n")
    tree.write("ops/gpu.pyx", "cimport numpy as cnp\n")
    status, findings = check(tree, capsys)
    assert status == THIRD_PARTY
    assert_only_errors(findings, ("third-party", "not-allowed", "core/gpu.py", 2),
                       ("third-party", "not-allowed", "ops/gpu.pyx", 1))
    f = only(findings, path="core/gpu.py")
    assert "core.gpu imports third-party 'pycuda'; module core may use: numpy" in f["message"]


def test_combined_violations_exit_with_the_or_of_their_bits(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(_budget("ops", max_outgoing=1))
    tree.write("core/up.py", "import api\n")                          # layers + cycle (api -> core)
    tree.write("ops/extra.py", "import core.cuda\n")                  # ops outgoing 2 > 1
    tree.write("ops/gen_use.py", "from gen import model\n")           # build-only
    tree.write("api/plot.py", "import matplotlib.pyplot\n")           # third-party
    status, findings = check(tree, capsys)
    assert status == LAYERS | CYCLES | COUPLING | BUILD_ONLY | THIRD_PARTY == 31
    assert {f["check"] for f in errors(findings)} == {"layers", "cycles", "coupling", "build-only", "third-party"}


# --- boundaries.yaml that cannot be used -----------------------------------------------------------


def _could_not_run(tree: Any, capsys: pytest.CaptureFixture[str]) -> str:
    status, data = planted.audit(tree, "check", capsys=capsys)
    assert status == COULD_NOT_RUN and data == {"status": COULD_NOT_RUN, "error": data["error"]}, data
    return str(data["error"])


@pytest.mark.parametrize("module, change, message", [
    ("core", lambda m: m.__setitem__("layer", "kernel"), "layer 'kernel' is not one of"),
    ("ops", lambda m: m.__setitem__("may_import", ["core", "nowhere"]), "may_import names 'nowhere', which is not a module"),
    ("core", lambda m: m.__setitem__("may_import", ["ops"]), "layers only import downwards"),
    ("core.cuda", lambda m: m.__setitem__("may_import", ["gen"]), "runtime module may not import build-time gen"),
    ("ops", lambda m: m.__setitem__("owner", "me"), "unknown keys ['owner']"),
    ("ops", lambda m: m.__setitem__("purpose", " "), "a purpose is required"),
    ("ops", lambda m: m.__setitem__("budget", {"max_fanout": 3}), "unknown budget keys ['max_fanout']"),
])
def test_malformed_module_entry_cannot_run_and_names_the_yaml_line(
        tree: Any, capsys: pytest.CaptureFixture[str], module: str, change: Any, message: str) -> None:
    tree.edit_config(lambda c: change(c["modules"][module]))
    error = _could_not_run(tree, capsys)
    assert error.startswith(f"architecture/boundaries.yaml:{tree.module_line(module)}: ")
    assert message in error


def test_layer_with_a_bad_kind_cannot_run(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c["layers"]["ops"].__setitem__("kind", "sometimes"))
    error = _could_not_run(tree, capsys)
    layers_at = tree.yaml_line("layers:")
    assert error.startswith(f"architecture/boundaries.yaml:{layers_at + 4}: layer ops: kind must be runtime or build")


def test_independent_group_naming_an_unknown_module_cannot_run(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.edit_config(lambda c: c["independent"].append(["api.optim", "api.ghost"]))
    error = _could_not_run(tree, capsys)
    assert error == f"architecture/boundaries.yaml:{tree.yaml_line('- - api.optim') + 2}: independent: 'api.ghost' is not a module"


def test_unparsable_or_missing_boundaries_cannot_run(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tree.write_boundaries_text("layers: [unclosed\n")
    assert _could_not_run(tree, capsys).startswith("architecture/boundaries.yaml:2: not valid YAML")
    tree.write_boundaries_text("- just\n- a list\n")
    assert _could_not_run(tree, capsys).startswith("architecture/boundaries.yaml:1: expected a mapping")
    tree.write_boundaries_text("")
    assert _could_not_run(tree, capsys).startswith("architecture/boundaries.yaml:1:")
    tree.remove(planted.BOUNDARIES)
    assert _could_not_run(tree, capsys).startswith("architecture/boundaries.yaml:1: cannot read the boundaries")


@pytest.mark.parametrize("what, change", [
    pytest.param("budget not a mapping", lambda c: c["modules"]["ops"].__setitem__("budget", 3)),
    pytest.param("budget not a number", lambda c: c["modules"]["ops"].__setitem__("budget", {"max_outgoing": "few"})),
    pytest.param("layer not a mapping", lambda c: c["layers"].__setitem__("ops", "runtime")),
])
def test_wrongly_typed_entries_cannot_run_instead_of_crashing(
        tree: Any, capsys: pytest.CaptureFixture[str], what: str, change: Any) -> None:
    tree.edit_config(change)
    error = _could_not_run(tree, capsys)
    assert error.startswith("architecture/boundaries.yaml:")


def test_missing_generated_directory_cannot_run(tree: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil
    shutil.rmtree(tree.root / "build")
    error = _could_not_run(tree, capsys)
    assert "generated sources missing (build/gen)" in error and "make build" in error
