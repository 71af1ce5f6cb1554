"""docs/architecture/walkthrough.md stays true: every path it names exists, every symbol it names
is defined in a file its paragraph names, and the torch.add path it lists is at most 8 files."""
from __future__ import annotations

import builtins
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs/architecture/walkthrough.md"
CODE = re.compile(r"`([^`]+)`")
PATH = re.compile(r"^[\w.-]+(/[\w.-]+)*/?$")
SYMBOL = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$")
# Names the text uses for things that are not definitions: schema and YAML keys, node attributes,
# the functions of the example itself.
NOT_SYMBOLS = {"ember_pointwise", "formula", "requires_grad", "next_functions", "apply", "torch.add", "add",
               "loss.backward", ".grad"}
SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".j2", ".cu", ".yaml")


def _paragraphs() -> list[str]:
    """Paragraphs and list items: the unit a symbol's file must be named in."""
    text = DOC.read_text()
    return [p for p in re.split(r"\n\s*\n|\n(?=\d+\. )", text) if p.strip()]


def _paths(text: str) -> list[str]:
    return [c for c in CODE.findall(text) if "/" in c and PATH.match(c)]


def _defines(path: Path, symbol: str) -> bool:
    text = path.read_text()
    *owner, name = symbol.split(".")
    definition = rf"^\s*(?:c?p?def|cdef class|class)\s+(?:[\w.\[\]*]+\s+)*?{name}\b|^{name}\s*=|^\s*{name}:"
    if owner and not re.search(rf"^(?:cdef )?class\s+{owner[0]}\b", text, re.M):
        return False
    return re.search(definition, text, re.M) is not None


def test_every_path_the_walkthrough_names_exists():
    paths = _paths(DOC.read_text())
    assert len(paths) > 25
    missing = [p for p in paths if not (REPO / p).exists()]
    assert not missing, f"walkthrough names paths that do not exist: {missing}"


def test_every_symbol_is_defined_in_a_file_its_paragraph_names():
    checked = 0
    for paragraph in _paragraphs():
        files = [REPO / p for p in _paths(paragraph) if p.endswith(SOURCE_SUFFIXES) and (REPO / p).is_file()]
        for token in CODE.findall(paragraph):
            if not SYMBOL.match(token) or token in NOT_SYMBOLS or hasattr(builtins, token):
                continue
            assert files, f"`{token}` is named in a paragraph that names no source file:\n{paragraph}"
            assert any(_defines(f, token) for f in files), \
                f"`{token}` is not defined in {[str(f.relative_to(REPO)) for f in files]}"
            checked += 1
    assert checked > 25


def test_the_cpu_add_path_meets_at_most_8_files():
    section = DOC.read_text().split("## 1.")[1].split("## 2.")[0]
    steps = re.findall(r"^\d+\. `([^`]+)`", section, re.M)
    assert 0 < len(steps) <= 8, steps
    assert all((REPO / s).is_file() for s in steps)
