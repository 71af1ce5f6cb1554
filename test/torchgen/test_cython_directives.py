"""Cython's directives come from the build alone (tools/setup_hook.py: directives()), so its debug
switch reaches every module: no handwritten source or torchgen template sets its own, and under
EMBER_CYTHON_DEBUG=1 the directives really compile bounds checks in (an out-of-range index into a
memoryview raises IndexError instead of reading past the buffer)."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEADER = re.compile(r"^#\s*cython\s*:", re.M)
DECORATOR = re.compile(r"@cython\.(boundscheck|wraparound|initializedcheck|cdivision|nonecheck)\b|"
                       r"with cython\.(boundscheck|wraparound|initializedcheck|cdivision|nonecheck)\b")


def _sources() -> list[Path]:
    found = []
    for root in ("c10", "aten", "torch", "torchgen/templates"):
        for path in (REPO / root).rglob("*"):
            if path.suffix in (".pyx", ".pxd", ".pxi", ".j2") and not path.name.startswith("_gen_"):
                found.append(path)
    return found


def test_no_source_or_template_overrides_the_builds_directives():
    sources = _sources()
    assert len(sources) > 50
    for path in sources:
        text = path.read_text()
        assert not HEADER.search(text), f"{path.relative_to(REPO)} sets `# cython:` directives"
        assert not DECORATOR.search(text), f"{path.relative_to(REPO)} sets a directive by decorator"


PROBE = textwrap.dedent("""
    def read(double[:] values, Py_ssize_t i):
        return values[i]
""")

BUILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {repo!r})
    from Cython.Build import cythonize
    from setuptools import Extension, setup
    from tools.setup_hook import directives
    setup(name="probe", script_args=["-q", "build_ext", "--inplace"],
          ext_modules=cythonize([Extension("probe", ["probe.pyx"])], compiler_directives=directives(), quiet=True))
""")


def _read_past_the_end(tmp_path: Path, debug: bool) -> subprocess.CompletedProcess[str]:
    work = tmp_path / ("debug" if debug else "release")
    work.mkdir()
    (work / "probe.pyx").write_text(PROBE)
    (work / "build.py").write_text(BUILD.format(repo=str(REPO)))
    env = {"PATH": "/usr/bin:/bin", "EMBER_CYTHON_DEBUG": "1" if debug else "0"}
    built = subprocess.run([sys.executable, "build.py"], cwd=work, env=env, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    # A view of the first two of four doubles: index 2 is outside the view but inside memory we own.
    code = "import array, probe; print(probe.read(memoryview(array.array('d', [1.0, 2.0, 3.0, 4.0]))[:2], 2))"
    return subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True)


def test_the_debug_switch_turns_bounds_checking_back_on(tmp_path):
    run = _read_past_the_end(tmp_path, debug=True)
    assert run.returncode == 1
    assert "IndexError: Out of bounds on buffer access (axis 0)" in run.stderr


def test_the_release_build_compiles_without_bounds_checks(tmp_path):
    run = _read_past_the_end(tmp_path, debug=False)
    # No check: the index reads the element past the view's end.
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "3.0"
