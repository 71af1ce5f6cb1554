"""Throw-away project trees for the architecture audit's tests.

`plant(tmp_path)` writes a small, clean project: five roots (`core`, `ops`, `api` at runtime,
`gen`, `tooling` at build time), `.py`, `.pyx`, `.pxd` and generated `.pyx` sources, and an
`architecture/boundaries.yaml` describing them. Tests then plant one violation at a time with
`Tree.write` / `Tree.edit_config` and run the audit over the tree.
"""
from __future__ import annotations

import copy
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

BOUNDARIES = "architecture/boundaries.yaml"

# Layers highest first: api > ops > core at runtime; tooling > gen at build time.
CONFIG: dict[str, Any] = {
    "roots": ["core", "ops", "api", "gen", "tooling"],
    "generated": ["build/gen"],
    "build_only_third_party": ["jinja2", "yaml"],
    "third_party_everywhere": [],
    "layers": {
        "api": {"kind": "runtime", "description": "What users import."},
        "ops": {"kind": "runtime", "description": "Operators and kernels."},
        "core": {"kind": "runtime", "description": "Types and storage."},
        "tooling": {"kind": "build", "description": "Build glue."},
        "gen": {"kind": "build", "description": "Code generation."},
    },
    "modules": {
        "api": {"layer": "api", "purpose": "The user API.", "may_import": ["api.optim", "api.data", "ops", "core"],
                "third_party": ["numpy"], "budget": {"max_outgoing": 10}},
        "api.optim": {"layer": "api", "purpose": "Optimizers.", "may_import": ["api.data", "core"]},
        "api.data": {"layer": "api", "purpose": "Data loading.", "may_import": ["api.optim", "core"]},
        "api.nn": {"layer": "api", "purpose": "Layers, not written yet.", "planned": True, "may_import": ["core"]},
        "ops": {"layer": "ops", "purpose": "Operators (Cython).", "may_import": ["core"]},
        "core": {"layer": "core", "purpose": "dtypes and storage.", "may_import": ["core.cuda"],
                 "third_party": ["numpy"], "budget": {"max_outgoing": 2, "max_incoming": 5}},
        "core.cuda": {"layer": "core", "purpose": "PyCUDA behind a lazy door.", "may_import": [],
                      "third_party": ["pycuda"]},
        "tooling": {"layer": "tooling", "purpose": "Runs the generator.", "may_import": ["gen"],
                    "third_party": ["setuptools"]},
        "gen": {"layer": "gen", "purpose": "The generator.", "covers_subpackages": True, "may_import": [],
                "third_party": ["jinja2", "yaml"]},
    },
    "independent": [["api.optim", "api.data"]],
}

FILES: dict[str, str] = {
    "core/__init__.py": '"""core."""\nfrom core.dtype import float32\n',
    "core/dtype.py": "import os\nimport numpy\n\nfloat32 = 'float32'\n",
    "core/_impl.pxd": "cdef class Impl:\n    cdef int size\n",
    "core/_impl.pyx": "from libc.stdint cimport int64_t\ncimport cython\n\ncdef class Impl:\n    pass\n",
    "core/cuda/__init__.py": "def driver():\n    import pycuda.driver\n    return pycuda.driver\n",
    "ops/__init__.py": "from core import dtype\n",
    "ops/kernels.pxd": "from core._impl cimport Impl\n",
    "ops/kernels.pyx": "from core._impl cimport Impl\n\ncdef int add(int a, int b):\n    return a + b\n",
    "api/__init__.py": "import ops\nfrom core.dtype import float32\n",
    "api/optim/__init__.py": "from core.dtype import float32\n",
    "api/data/__init__.py": "import core\n",
    "gen/__init__.py": "",
    "gen/model.py": "import jinja2\nimport yaml\n",
    "gen/targets/__init__.py": "from gen import model\n",
    "tooling/__init__.py": "import setuptools\nimport gen.model\n",
    "build/gen/ops/_gen_add.pyx": "# generated\nfrom core._impl cimport Impl\n",
}


@dataclass
class Tree:
    root: Path
    config: dict[str, Any]

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()

    def edit_config(self, change: Callable[[dict[str, Any]], None]) -> None:
        change(self.config)
        self.write_config()

    def write_config(self) -> None:
        self.write(BOUNDARIES, yaml.safe_dump(self.config, sort_keys=False))

    def write_boundaries_text(self, text: str) -> None:
        self.write(BOUNDARIES, text)

    def yaml_line(self, key_text: str) -> int:
        """1-based line of the first line of boundaries.yaml that, stripped, starts with `key_text`."""
        for n, line in enumerate((self.root / BOUNDARIES).read_text().splitlines(), 1):
            if line.strip().startswith(key_text):
                return n
        raise AssertionError(f"{key_text!r} not in {BOUNDARIES}")

    def module_line(self, module: str) -> int:
        lines = (self.root / BOUNDARIES).read_text().splitlines()
        start = lines.index("modules:")
        for n, line in enumerate(lines[start:], start + 1):
            if line == f"  {module}:":
                return n
        raise AssertionError(f"module {module} not in {BOUNDARIES}")


def plant(tmp_path: Path, files: dict[str, str] | None = None) -> Tree:
    tree = Tree(tmp_path, copy.deepcopy(CONFIG))
    for rel, text in {**FILES, **(files or {})}.items():
        tree.write(rel, text)
    tree.write_config()
    return tree


def audit(tree: Tree | Path, *args: str, capsys: Any) -> tuple[int, dict[str, Any]]:
    """Runs `python -m architecture ARGS --root TREE --format json`; returns (status, parsed JSON).
    (Options before the command work too: test_cli.py::test_options_are_honoured_before_or_after_the_command.)"""
    from architecture.cli import run
    root = tree.root if isinstance(tree, Tree) else tree
    capsys.readouterr()
    status = run([*args, "--root", str(root), "--format", "json"])
    out = capsys.readouterr().out
    return status, json.loads(out)


def check(tree: Tree, capsys: Any) -> tuple[int, list[dict[str, Any]]]:
    status, data = audit(tree, "check", capsys=capsys)
    assert data.get("status") == status, data
    return status, data.get("findings", [])


def errors(findings: list[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    return [f for f in findings if f["severity"] == "error" and all(f.get(k) == v for k, v in match.items())]


def notes(findings: list[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    return [f for f in findings if f["severity"] == "note" and all(f.get(k) == v for k, v in match.items())]
