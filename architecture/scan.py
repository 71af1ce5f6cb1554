"""The import graph as the build sees it, not only as import-linter sees it.

import-linter (grimp) parses `.py` files only; half of this project is Cython. This scanner reads
`.py` files with `ast`, and `.pyx`/`.pxd`/`.pxi` files (handwritten and generated) with the
tokenizer, and records every import with its file and line:

- kind: `import` (import / from-import), `cimport` (cimport / from-cimport), `include`
  (a textual `.pxi` include), `dynamic` (`importlib.import_module("literal")`, `__import__`);
- scope: `module`, `function` (a lazy import, run on first call) or `type-checking`
  (under `if TYPE_CHECKING:`, never run).

Imports whose target is computed at run time cannot be resolved; they are returned as
`Unresolved` so the audit can list them.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".pxi")


@dataclass(frozen=True, order=True)
class ImportEdge:
    source: str     # dotted module of the importing file
    target: str     # absolute dotted name as imported (resolved later against known modules)
    path: str       # repository-relative, '/'-separated
    line: int
    kind: str       # import | cimport | include | dynamic
    scope: str      # module | function | type-checking

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, order=True)
class Unresolved:
    source: str
    path: str
    line: int
    text: str       # the call as written, e.g. importlib.import_module(module)


@dataclass(frozen=True)
class SourceFile:
    module: str     # dotted module name the file defines (a .pxd shares its .pyx's name)
    path: Path      # absolute
    rel: str        # repository-relative
    is_package: bool


def discover(root: Path, packages: list[str], generated_dirs: list[str]) -> list[SourceFile]:
    """Every source file of the given top-level packages, plus generated Cython sources.

    A generated directory mirrors the package tree (build/gen/aten/native/cpu/_gen_add.pyx is
    module aten.native.cpu._gen_add).
    """
    files: list[SourceFile] = []
    for pkg in packages:
        base = root / pkg
        if base.is_dir():
            files += _walk(root, base, root)
    for gen in generated_dirs:
        base = root / gen
        if base.is_dir():
            files += _walk(root, base, base)
    return sorted(files, key=lambda f: f.rel)


def _walk(root: Path, base: Path, module_root: Path) -> list[SourceFile]:
    out = []
    for path in base.rglob("*"):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file() or "__pycache__" in path.parts:
            continue
        rel_mod = path.relative_to(module_root).with_suffix("")
        parts = rel_mod.parts
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        if not parts or any(not p.isidentifier() for p in parts):
            continue
        out.append(SourceFile(".".join(parts), path, path.relative_to(root).as_posix(), is_package))
    return out


def scan_file(src: SourceFile) -> tuple[list[ImportEdge], list[Unresolved]]:
    text = src.path.read_text(encoding="utf-8")
    if src.path.suffix == ".py":
        return _scan_python(src, text)
    return _scan_cython(src, text)


def _resolve_relative(src: SourceFile, level: int, name: str | None) -> str:
    package = src.module.split(".") if src.is_package else src.module.split(".")[:-1]
    if level > 1:
        package = package[: len(package) - (level - 1)]
    return ".".join(package + ([name] if name else []))


# --- Python files: exact, through ast -------------------------------------------------------------

class _PythonVisitor(ast.NodeVisitor):
    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.edges: list[ImportEdge] = []
        self.unresolved: list[Unresolved] = []
        self.scopes: list[str] = ["module"]

    def _edge(self, target: str, line: int, kind: str = "import") -> None:
        self.edges.append(ImportEdge(self.src.module, target, self.src.rel, line, kind, self.scopes[-1]))

    def _nested(self, node: ast.AST, scope: str) -> None:
        self.scopes.append(scope if self.scopes[-1] != "type-checking" else "type-checking")
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._nested(node, "function")

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._nested(node, "function")

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._nested(node, "function")

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        is_tc = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
        if not is_tc:
            self.generic_visit(node)
            return
        self.scopes.append("type-checking")
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._edge(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _resolve_relative(self.src, node.level, node.module) if node.level else (node.module or "")
        if base == "__future__":
            return
        # `from pkg import name` may import the submodule pkg.name; resolution decides later.
        for alias in node.names:
            self._edge(base if alias.name == "*" else f"{base}.{alias.name}", node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in ("import_module", "__import__") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                target = first.value
                if target.startswith(".") and len(node.args) > 1:
                    target = ""   # relative to a computed package: cannot resolve statically
                if target:
                    self._edge(target, node.lineno, "dynamic")
                    self.generic_visit(node)
                    return
            self.unresolved.append(Unresolved(self.src.module, self.src.rel, node.lineno, ast.unparse(node)))
        self.generic_visit(node)


def _scan_python(src: SourceFile, text: str) -> tuple[list[ImportEdge], list[Unresolved]]:
    visitor = _PythonVisitor(src)
    visitor.visit(ast.parse(text, filename=src.rel))
    return visitor.edges, visitor.unresolved


# --- Cython files: logical lines from the tokenizer ------------------------------------------------
# Cython is not Python, but it is lexically close enough for `tokenize`: strings, comments and
# bracketed continuation lines come out right, which is all an import scan needs.

_DEF_HEADER = re.compile(r"^(async\s+def|def|cpdef|cdef)\b(?!\s+(class|extern|struct|union|enum|packed|cppclass|public\s+class|readonly))")
_IMPORT = re.compile(r"^import\s+(?P<names>.+)$")
_CIMPORT = re.compile(r"^cimport\s+(?P<names>.+)$")
_FROM = re.compile(r"^from\s+(?P<base>[.\w][.\w\s]*?)\s+(?P<kw>c?import)\s+(?P<names>.+)$")
_INCLUDE = re.compile(r"^include\s+(?P<q>['\"])(?P<file>[^'\"]+)(?P=q)")


@dataclass
class _LogicalLine:
    line: int
    indent: int
    text: str


_COMPOUND = frozenset({"def", "cdef", "cpdef", "async", "if", "elif", "else", "for", "while", "with", "try",
                       "except", "finally", "class", "ctypedef"})


def _logical_lines(text: str) -> list[_LogicalLine]:
    """Statements, one per entry: `a; b` gives two, and `def f(): import x` gives the header and,
    one level deeper, its body."""
    lines: list[_LogicalLine] = []
    parts: list[tuple[str, int]] = []      # (token text with its leading space, bracket depth before it)
    start: tuple[int, int] | None = None
    depth = 0
    prev_end = (0, 0)

    def flush() -> None:
        if not parts or start is None:
            return
        for stmt in _split(parts, ";"):
            header, body = _split_header(stmt)
            lines.append(_LogicalLine(start[0], start[1], "".join(t for t, _ in header).strip()))
            if body:
                lines.append(_LogicalLine(start[0], start[1] + 1, "".join(t for t, _ in body).strip()))

    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
                continue
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                flush()
                parts, start, depth = [], None, 0
                continue
            if start is None:
                start = tok.start
            # Keep the source's spacing: `a.b` stays one name, `from . cimport x` stays three words.
            parts.append(((" " if tok.start != prev_end else "") + tok.string, depth))
            prev_end = tok.end
            if tok.string in "([{" and tok.type == tokenize.OP:
                depth += 1
            elif tok.string in ")]}" and tok.type == tokenize.OP:
                depth = max(0, depth - 1)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # Rare Cython syntax the Python tokenizer rejects: fall back to physical lines.
        return [_LogicalLine(n, len(raw) - len(raw.lstrip()), raw.strip())
                for n, raw in enumerate(text.splitlines(), 1) if raw.strip() and not raw.lstrip().startswith("#")]
    return lines


def _split(tokens: list[tuple[str, int]], sep: str) -> list[list[tuple[str, int]]]:
    out: list[list[tuple[str, int]]] = [[]]
    for tok in tokens:
        if (tok[0].strip(), tok[1]) == (sep, 0):
            out.append([])
        else:
            out[-1].append(tok)
    return [s for s in out if s]


def _split_header(stmt: list[tuple[str, int]]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """`if x: import y` -> (`if x:`, `import y`); other statements come back whole."""
    if stmt[0][0].strip() not in _COMPOUND:
        return stmt, []
    for i, tok in enumerate(stmt):
        if (tok[0].strip(), tok[1]) == (":", 0):
            return stmt[: i + 1], stmt[i + 1:]
    return stmt, []


def _names(text: str) -> list[str]:
    text = text.strip().strip("()").strip()
    out = []
    for item in text.split(","):
        words = item.split()
        if words:
            out.append(words[0])
    return out


_DYNAMIC = re.compile(r"\b(?:import_module|__import__)\s*\(\s*(?P<arg>[^,)]*)")


def _scan_cython(src: SourceFile, text: str) -> tuple[list[ImportEdge], list[Unresolved]]:
    edges = []
    unresolved = []
    blocks: list[tuple[int, str]] = []   # (indent of the header, scope it opens)
    for ll in _logical_lines(text):
        while blocks and ll.indent <= blocks[-1][0]:
            blocks.pop()
        scope = blocks[-1][1] if blocks else "module"
        stmt = re.sub(r"\s+", " ", ll.text)
        for target, kind in _cython_imports(src, stmt):
            edges.append(ImportEdge(src.module, target, src.rel, ll.line, kind, scope))
        for m in _DYNAMIC.finditer(stmt):
            literal = re.fullmatch(r"""(['"])([\w.]+)\1""", m["arg"].strip())
            if literal:
                edges.append(ImportEdge(src.module, literal[2], src.rel, ll.line, "dynamic", scope))
            else:
                unresolved.append(Unresolved(src.module, src.rel, ll.line, m[0] + ")"))
        if stmt.endswith(":"):
            if scope == "type-checking":
                opened = "type-checking"
            elif re.match(r"^if\s+(typing\.)?TYPE_CHECKING\s*:$", stmt):
                opened = "type-checking"
            elif _DEF_HEADER.match(stmt) and "(" in stmt:
                opened = "function"
            else:
                opened = scope
            blocks.append((ll.indent, opened))
    return edges, unresolved


def _cython_imports(src: SourceFile, stmt: str) -> list[tuple[str, str]]:
    m = _INCLUDE.match(stmt)
    if m:
        return [(_include_module(src, m["file"]), "include")]
    m = _CIMPORT.match(stmt)
    if m:
        return [(n, "cimport") for n in _names(m["names"])]
    m = _IMPORT.match(stmt)
    if m:
        return [(n, "import") for n in _names(m["names"])]
    m = _FROM.match(stmt)
    if m:
        base = re.sub(r"\s+", "", m["base"])   # `from . helpers` -> `.helpers`
        if base.startswith("."):
            level = len(base) - len(base.lstrip("."))
            base = _resolve_relative(src, level, base.lstrip(".") or None)
        if base == "__future__":
            return []
        kind = "cimport" if m["kw"] == "cimport" else "import"
        return [(base if n == "*" else f"{base}.{n}", kind) for n in _names(m["names"])]
    return []


def _include_module(src: SourceFile, file: str) -> str:
    """An include names a file relative to the including file; as a module name for the graph."""
    here = src.module.split(".")[:-1] if not src.is_package else src.module.split(".")
    rel = Path(file).with_suffix("")
    parts = list(here)
    for p in rel.parts:
        if p == "..":
            parts = parts[:-1]
        elif p != ".":
            parts.append(p)
    return ".".join(parts)
