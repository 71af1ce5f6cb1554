"""torchgen's targets compute what to generate; the code itself (C, Cython, CUDA, Python) lives in
templates/. No target's strings hold code: a regression would put C back into f-strings, where
neither the templates nor the nvcc and Cython checks see it."""
from __future__ import annotations

import ast
from pathlib import Path

TARGETS = Path(__file__).resolve().parents[2] / "torchgen" / "targets"
# Fragments only code has: declarations, pointer casts, loop-engine and dispatch internals.
CODE_MARKERS = ("cdef ", "nogil", "sizeof(", "steps[", "data[", "__global__", "__restrict__", "<const ",
                "key_set", "pointwise_out(", "raise RuntimeError", "def ", "__half2float", "(<", "x0 = ")


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string and f-string's text, less error messages (what a `raise` says)."""
    messages = {id(n) for r in ast.walk(tree) if isinstance(r, ast.Raise) for n in ast.walk(r)}
    found = []
    for node in ast.walk(tree):
        if id(node) in messages:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            found.append((node.lineno, "".join(v.value for v in node.values
                                               if isinstance(v, ast.Constant) and isinstance(v.value, str))))
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node) is not None:
            lines.add(node.body[0].lineno)
    return lines


def test_no_target_holds_code_in_its_strings():
    offenders = []
    for path in sorted(TARGETS.glob("*.py")):
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        for line, text in _strings(tree):
            if line in docs:
                continue
            hits = [m for m in CODE_MARKERS if m in text]
            if hits:
                offenders.append(f"{path.name}:{line}: {hits} in {text[:60]!r}")
    assert offenders == []
