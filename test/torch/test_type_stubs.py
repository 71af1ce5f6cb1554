"""The generated .pyi stubs reach mypy: a user script calling torch functions and Tensor methods
type-checks cleanly, and a wrong argument type is reported at its line."""
from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import torch

ROOT = Path(__file__).resolve().parents[2]

USER_SCRIPT = textwrap.dedent("""\
    from typing import assert_type

    import numpy as np
    import torch

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_type(x, torch.Tensor)
    y = torch.add(x, 1)
    assert_type(y, torch.Tensor)
    assert_type(x.sum(dim=0), torch.Tensor)
    assert_type(torch.cat([x, y], dim=0), torch.Tensor)
    rows: int = x.shape[0]
    assert_type(x.shape[0], int)
    assert_type(torch.zeros(2, 3, dtype=torch.float32), torch.Tensor)
    assert_type(torch.zeros((2, 3), device="cpu"), torch.Tensor)
    assert_type(x.reshape(4).mul(2).abs().to(torch.float64).unsqueeze(0), torch.Tensor)
    assert_type(torch.max(x, dim=1).values, torch.Tensor)
    assert_type(x.max(), torch.Tensor)
    assert_type(x.float().view(2, 2), torch.Tensor)
    assert_type(torch.from_numpy(np.zeros(3)), torch.Tensor)
    assert_type(x.dtype, torch.dtype)
    assert_type(x.device, torch.device)
    assert_type(torch.float32, torch.dtype)
    assert_type(x.dim(), int)
    parts = torch.split(x, 1)
    bad = torch.add(x, "a")  # the deliberate error
    """)


KEYWORD_SCRIPT = 'import torch\nx = torch.ones(3)\nx.sum(dim="0")\nx.sum(dim=0, keepdim=True)\n'


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """One mypy run over both user scripts: the error lines of each, and mypy's whole output."""
    pytest.importorskip("mypy")
    tmp_path = tmp_path_factory.mktemp("mypy")
    (tmp_path / "user.py").write_text(USER_SCRIPT)
    (tmp_path / "user_keyword.py").write_text(KEYWORD_SCRIPT)
    # The checkout under test comes first (setuptools' editable finder is invisible to mypy);
    # errors inside torch are not the user's, as for any installed typed package.
    env = dict(os.environ, MYPYPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy_cache"), "--follow-imports=silent",
         "--no-error-summary", "--show-error-codes", "user.py", "user_keyword.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    lines = result.stdout.splitlines()
    return {name: [line for line in lines if line.startswith(f"{name}:") and ": error:" in line]
            for name in ("user.py", "user_keyword.py")} | {"output": [result.stdout + result.stderr]}


def test_user_script_reports_only_the_deliberate_error(mypy_errors: dict[str, list[str]]) -> None:
    errors = mypy_errors["user.py"]
    bad_line = USER_SCRIPT.splitlines().index('bad = torch.add(x, "a")  # the deliberate error') + 1
    assert len(errors) == 1, mypy_errors["output"][0]
    assert errors[0].startswith(f"user.py:{bad_line}: error:"), errors
    assert '"str"' in errors[0] and "Tensor" in errors[0], errors


def test_method_keyword_of_the_wrong_type_is_reported(mypy_errors: dict[str, list[str]]) -> None:
    errors = mypy_errors["user_keyword.py"]
    assert len(errors) == 1 and errors[0].startswith("user_keyword.py:3: error:"), mypy_errors["output"][0]


def test_dtype_names_typed_for_mypy_match_the_runtime() -> None:
    # torch/__init__.py declares every dtype name for type checkers (globals().update at run time).
    from c10.scalar_type import DTYPE_NAMES
    source = (ROOT / "torch" / "__init__.py").read_text()
    declared = set(re.findall(r"^    (\w+): dtype$", source, flags=re.M))
    assert declared == set(DTYPE_NAMES)
    assert all(isinstance(getattr(torch, name), torch.dtype) for name in declared)


def test_generated_stubs_name_their_template_and_schema() -> None:
    for name in ("_gen_variable_functions.pyi", "_gen_tensor_base.pyi", "_gen_return_types.pyi"):
        head = (ROOT / "torch" / "_C" / name).read_text().splitlines()[:2]
        assert "torchgen/targets/stubs.py" in head[0] and "templates/stubs_" in head[0]
        assert "native_functions.yaml" in head[1]


def _stub_names(path: Path) -> tuple[set[str], bool]:
    """Top-level names a .pyi declares, and whether it is partial (a module __getattr__)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names, "__getattr__" in names


HANDWRITTEN_STUBS = sorted(p for d in ("c10", "aten", "torch") for p in (ROOT / d).rglob("*.pyi")
                           if not p.name.startswith("_gen_"))


@pytest.mark.parametrize("stub", HANDWRITTEN_STUBS, ids=lambda p: str(p.relative_to(ROOT)))
def test_cython_module_stub_matches_the_compiled_module(stub: Path) -> None:
    # Each handwritten .pyi types a Cython module: what it declares exists, and (unless it is a
    # partial stub) every public function and class the module defines is declared.
    module_name = ".".join(stub.relative_to(ROOT).with_suffix("").parts)
    assert stub.with_suffix(".pyx").exists(), f"{stub} has no Cython module beside it"
    module = importlib.import_module(module_name)
    declared, partial = _stub_names(stub)
    assert not [n for n in declared - {"__getattr__"} if not hasattr(module, n)]
    if not partial:
        defined = {n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                   and getattr(v, "__module__", None) == module_name}
        assert not sorted(defined - declared), f"add these to {stub.name}"
