"""`python -m benchmarks` smoke tests: a --quick run of a few rows in-process gives the table's
header, sections and one well-formed row per case (a figure, or n/a with the reason); --json saves
the same rows; a compared interpreter runs from outside the repository and its missing ops become
n/a rows. No timing is asserted."""
from __future__ import annotations

import json
import os
import re
import stat
import sys
import textwrap
from argparse import Namespace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import cli, report, suite  # noqa: E402

FIGURE = re.compile(r"^[\d,]+(\.\d+)?$")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert cli.main(["--quick", "--repeat", "1", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def table(lines: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The column names and, per row label, its cells (split on runs of 2+ spaces)."""
    head = next(i for i, line in enumerate(lines) if line.startswith("benchmark "))
    columns = re.split(r"\s{2,}", lines[head].strip())
    rows = {}
    for line in lines[head + 1:]:
        if line.startswith("-- "):
            continue
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells
    return columns, rows


def test_quick_run_prints_one_row_per_selected_case_in_sections(capsys, tmp_path):
    out = tmp_path / "bench.json"
    lines = run(capsys, "--filter", r"^(overhead\.add|reduction\.sum|matmul\.mm_f32)$", "--json", str(out))
    columns, rows = table(lines)
    assert columns == ["benchmark", "unit", "Ember", "time/call", "NumPy", "mem limit", "flag", "notes"]
    assert "-- per-op overhead, 1-element float32 tensors --" in lines
    assert "-- reductions, float32 --" in lines
    assert any(line.startswith("Each figure: the best (minimum time per call)") for line in lines)
    assert any(line.startswith("Memory bandwidth (NumPy STREAM-like") for line in lines)

    labels = {"overhead.add": "torch.add(a, b)", "reduction.sum": "a.sum(), 2^14",
              "matmul.mm_f32": "torch.mm float32 64^3"}
    assert set(rows) == set(labels.values())
    assert rows["torch.add(a, b)"][1] == "us"
    assert rows["a.sum(), 2^14"][1] == "GB/s"
    assert rows["torch.mm float32 64^3"][1] == "GFLOP/s"
    for cells in rows.values():
        assert FIGURE.match(cells[2]) or (cells[2] == "n/a" and re.search(r"Ember: \w+Error", cells[-1]))
        assert any(FIGURE.match(c) for c in cells[3:])   # NumPy has all three
    assert re.search(r"copy [\d.]+", " ".join(rows["a.sum(), 2^14"]))

    saved = json.loads(out.read_text())
    assert saved["config"]["statistic"] == "min seconds per call"
    assert [r["id"] for r in saved["rows"]] == list(labels)
    for row in saved["rows"]:
        assert row["label"] == labels[row["id"]]
        assert ("seconds" in row["ember"]) != ("error" in row["ember"])
        assert row["numpy"]["seconds"] > 0
    assert saved["bandwidth"]["copy"] > 0 and saved["bandwidth"]["triad"] > 0


def test_a_case_whose_op_is_missing_is_reported_not_raised():
    def setup(torch, np, sizes):
        return lambda: torch.no_such_op(1)

    case = suite.Case("overhead.missing", "overhead", lambda s: "missing", "us", lambda s: 0.0, setup)
    result = suite.measure(case.torch, (Namespace(), None), suite.QUICK, 1, 0.001)
    assert result == {"error": "AttributeError: 'Namespace' object has no attribute 'no_such_op'"}
    row = {"group": "overhead", "label": "missing", "unit": "us", "ember": result, "numpy": {"error": "no equivalent"}}
    _, rows = table(report.render([row], [], None).splitlines())
    assert rows["missing"][2:4] == ["n/a", "-"]
    assert rows["missing"][-1] == "Ember: " + result["error"]


def test_each_implementation_gets_a_warm_up_and_repeat_loops():
    calls = []

    def ember(torch, np, sizes):
        return lambda: calls.append("ember")

    def numpy(np, sizes):
        return lambda: calls.append("numpy")

    case = suite.Case("overhead.calls", "overhead", lambda s: "calls", "us", lambda s: 0.0, ember, numpy)
    results = cli.time_case(case, None, None, None, suite.QUICK, 3, 0.0, 0.0)
    assert [r["repeat"] for r in results.values()] == [3, 3]
    assert all(r["seconds"] > 0 and r["number"] == 1 for r in results.values())
    assert calls == ["ember"] * 4 + ["numpy"] * 4   # a warm-up call, then 3 loops of 1


def test_filter_matches_ids_and_labels_and_an_empty_match_fails(capsys):
    assert [c.id for c in suite.select(r"^pointwise\.exp$")] == ["pointwise.exp"]
    assert [c.id for c in suite.select(r"torch\.bmm")] == ["matmul.bmm_f32"]
    assert cli.main(["--quick", "--filter", "no-such-benchmark"]) == 2
    assert "overhead.add" in capsys.readouterr().err


def test_example_rows_time_an_epoch_or_a_step_of_the_programs_in_milliseconds(capsys):
    assert [c.id for c in suite.select(r"^examples\.")] == [
        "examples.digits_mlp_epoch", "examples.cnn_digits_epoch", "examples.char_gpt_step"]
    _, rows = table(run(capsys, "--filter", r"^examples\.digits_mlp_epoch$", "--no-stream"))
    (cells,) = rows.values()
    assert cells[0].startswith("train_digits.py: MLP 64-256-10") and cells[0].endswith("1 epoch")
    assert cells[1] == "ms" and FIGURE.match(cells[2]) and cells[3].endswith(" ms") and cells[4] == "-"


FAKE_TORCH = '''
"""A stand-in for another torch: NumPy arrays, add only (so a.exp() is missing)."""
import numpy as _np
__version__ = "0.0-fake"
_threads = [1]
def get_num_threads(): return _threads[0]
def set_num_threads(n): _threads[0] = n
def from_numpy(a): return a
def add(a, b, out=None): return _np.add(a, b, out=out)
'''


def interpreter(tmp_path: Path, pythonpath: Path) -> str:
    """A script standing for another interpreter: this Python with `pythonpath` first."""
    script = tmp_path / "python"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{pythonpath}" exec "{sys.executable}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_compare_python_runs_the_suite_elsewhere_and_reports_missing_ops_as_na(capsys, tmp_path, monkeypatch,
                                                                              threads):
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):   # --threads sets them
        monkeypatch.setenv(var, os.environ.get(var, ""))
    fake = tmp_path / "site"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text(textwrap.dedent(FAKE_TORCH))
    lines = run(capsys, "--filter", r"^overhead\.(add|method_exp)$", "--threads", "1",
                "--compare-python", interpreter(tmp_path, fake))
    columns, rows = table(lines)
    assert columns[5:7] == ["torch 0.0-fake", "Ember/ref"]
    assert any(line.startswith("Compared: torch 0.0-fake from ") and line.endswith(", 1 thread.") for line in lines)
    add, exp = rows["torch.add(a, b)"], rows["a.exp()"]
    assert FIGURE.match(add[5]) and re.fullmatch(r"[\d.]+x", add[6])
    assert exp[5] == "n/a"
    assert exp[-1] == "torch 0.0-fake: AttributeError: 'numpy.ndarray' object has no attribute 'exp'"


def test_a_compare_interpreter_importing_this_repositorys_torch_is_refused(tmp_path):
    compare = cli.Compare(interpreter(tmp_path, ROOT), quick=True, threads=None, target_s=0.001)
    assert compare.proc is None and "imported this repository's torch" in (compare.error or "")
    assert compare.request({"start": "overhead.zeros"})["error"].startswith("compare run failed: ")

