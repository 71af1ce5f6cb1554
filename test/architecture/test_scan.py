"""architecture/scan.py on tricky sources: every import is found once, at the line where its
statement starts, with the right kind and scope; nothing that merely looks like an import counts."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from architecture.scan import SourceFile, Unresolved, discover, scan_file

Found = set[tuple[int, str, str, str]]   # (line, target, kind, scope)


def _source(root: Path, rel: str, text: str) -> SourceFile:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    for parent in path.relative_to(root).parents:
        if parent != Path(".") and not (root / parent / "__init__.py").exists():
            (root / parent / "__init__.py").write_text("")
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    top = Path(rel).parts[0]
    [src] = [f for f in discover(root, [top], []) if f.rel == rel]
    return src


def scan(root: Path, rel: str, text: str) -> tuple[Found, list[Unresolved]]:
    edges, unresolved = scan_file(_source(root, rel, text))
    for e in edges:
        assert e.path == rel and e.location == f"{rel}:{e.line}"
    return {(e.line, e.target, e.kind, e.scope) for e in edges}, unresolved


# --- Cython import statements ------------------------------------------------------------------


def test_multiline_parenthesised_from_cimport_yields_each_name_at_the_statement_line(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", """\
        # header
        from api.tensor cimport (Tensor,
                                 TensorImpl as Impl,
            empty)
        x = 1
        """)
    assert found == {(2, "api.tensor.Tensor", "cimport", "module"), (2, "api.tensor.TensorImpl", "cimport", "module"),
                     (2, "api.tensor.empty", "cimport", "module")}


def test_backslash_continued_from_cimport_is_one_statement(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", "from api.tensor \\\n    cimport Tensor\n")
    assert found == {(1, "api.tensor.Tensor", "cimport", "module")}


def test_cimport_of_a_dotted_module_with_alias_targets_the_module(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pxd", "cimport numpy as cnp\ncimport a.b as c, d.e\nimport x.y as z\n")
    assert found == {(1, "numpy", "cimport", "module"), (2, "a.b", "cimport", "module"),
                     (2, "d.e", "cimport", "module"), (3, "x.y", "import", "module")}


def test_from_cimport_with_aliases_and_star(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", "from a.b cimport c as d, e\nfrom f import *\nfrom libc.math cimport sqrt\n")
    assert found == {(1, "a.b.c", "cimport", "module"), (1, "a.b.e", "cimport", "module"),
                     (2, "f", "import", "module"), (3, "libc.math.sqrt", "cimport", "module")}


def test_future_import_is_not_an_edge(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", "from __future__ import annotations\nimport os\n")
    assert found == {(2, "os", "import", "module")}


def test_relative_from_cimport_in_cython_resolves_against_the_package(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/sub/m.pyx", """\
        from . cimport sibling
        from .helpers cimport fast_add
        """)
    assert found == {(1, "pkg.sub.sibling", "cimport", "module"), (2, "pkg.sub.helpers.fast_add", "cimport", "module")}


def test_relative_from_import_two_levels_up_in_cython_resolves(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/sub/m.pyx", "from ..other import z\n")
    assert found == {(1, "pkg.other.z", "import", "module")}


def test_relative_imports_in_python_resolve_against_the_package(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/sub/__init__.py", "from . import sibling\nfrom ..other import z\n")
    assert found == {(1, "pkg.sub.sibling", "import", "module"), (2, "pkg.other.z", "import", "module")}
    found, _ = scan(tmp_path, "pkg/sub/m.py", "from . import sibling\nfrom ..other import z\nfrom .x import *\n")
    assert found == {(1, "pkg.sub.sibling", "import", "module"), (2, "pkg.other.z", "import", "module"),
                     (3, "pkg.sub.x", "import", "module")}


def test_the_word_import_in_comments_and_docstrings_is_not_an_import(tmp_path: Path) -> None:
    text = '''\
        """Module docstring.
        import api.fake
        from api.fake cimport nothing
        """
        # import api.commented
        # from api.commented cimport nothing
        cdef str s = "import api.in_a_string"

        def f():
            """
            import api.in_a_docstring
            """
            return 'from x cimport y'
        '''
    found, unresolved = scan(tmp_path, "pkg/m.pyx", text)
    assert found == set() and unresolved == []
    found, unresolved = scan(tmp_path, "pkg/p.py", text.replace("cdef str s", "s"))
    assert found == set() and unresolved == []


def test_include_is_an_include_edge_to_the_file_relative_to_the_includer(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/sub/m.pyx", "include \"defs.pxi\"\ninclude '../shared/more.pxi'\n")
    assert found == {(1, "pkg.sub.defs", "include", "module"), (2, "pkg.shared.more", "include", "module")}
    found, _ = scan(tmp_path, "pkg/sub/__init__.pxd", 'include "defs.pxi"\n')
    assert found == {(1, "pkg.sub.defs", "include", "module")}


# --- Cython scopes -------------------------------------------------------------------------------


def test_cdef_class_body_is_not_a_function_but_its_methods_are(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", """\
        cdef class Tensor(Base):
            from api.a import klass_level
            cdef int size

            def method(self):
                import api.in_method
                return 1

            cdef int cmethod(self) except -1:
                from api.b cimport in_cmethod
                return 0
        import api.after_class
        class Py:
            import api.py_class_level
        cdef public class Exported [object Exp, type ExpType]:
            import api.public_class_level
        """)
    assert found == {(2, "api.a.klass_level", "import", "module"),
                     (6, "api.in_method", "import", "function"),
                     (10, "api.b.in_cmethod", "cimport", "function"),
                     (12, "api.after_class", "import", "module"),
                     (14, "api.py_class_level", "import", "module"),
                     (16, "api.public_class_level", "import", "module")}


def test_cdef_cpdef_and_multiline_function_bodies_are_function_scope(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", """\
        cdef int f(int a, int b):
            from api.x cimport y
            return a

        cpdef double g(double v) nogil:
            import api.g
            return v

        cdef inline (int, int) h(int a,
                                 int b) except *:
            import api.h
            return a, b

        async def k():
            import api.k
        import api.top
        """)
    assert found == {(2, "api.x.y", "cimport", "function"), (6, "api.g", "import", "function"),
                     (11, "api.h", "import", "function"), (15, "api.k", "import", "function"),
                     (16, "api.top", "import", "module")}


def test_with_nogil_block_inside_a_function_stays_function_scope(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", """\
        def f(double[:] x):
            cdef Py_ssize_t i
            with nogil:
                for i in range(3):
                    from api.inner cimport deep
            import api.after_with
        with nogil:
            import api.module_with
        """)
    assert found == {(5, "api.inner.deep", "cimport", "function"), (6, "api.after_with", "import", "function"),
                     (8, "api.module_with", "import", "module")}


def test_extern_struct_and_enum_blocks_are_not_functions(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pxd", """\
        cdef extern from "x.h" nogil:
            int f(int)
        cdef struct S:
            int a
        cdef enum E:
            A
        cimport api.after_blocks
        """)
    assert found == {(7, "api.after_blocks", "cimport", "module")}


def test_type_checking_block_in_cython(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", """\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            import api.only_for_types
            def f():
                import api.still_types
        import api.real
        """)
    assert {(3, "api.only_for_types", "import", "type-checking"), (5, "api.still_types", "import", "type-checking"),
            (6, "api.real", "import", "module")} <= found


def test_semicolon_separated_imports_in_cython_are_each_found(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", "import api.a; import api.b\n")
    assert found == {(1, "api.a", "import", "module"), (1, "api.b", "import", "module")}


def test_one_line_function_body_import_in_cython_is_found(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/m.pyx", "def f(): import api.lazy\n")
    assert found == {(1, "api.lazy", "import", "function")}


# --- Dynamic imports -----------------------------------------------------------------------------


def test_literal_import_module_is_a_dynamic_edge_and_a_computed_one_is_unresolved(tmp_path: Path) -> None:
    text = """\
        import importlib

        def load(name):
            a = importlib.import_module("api.x")
            b = __import__('api.y')
            return importlib.import_module(name)
        """
    found, unresolved = scan(tmp_path, "pkg/p.py", text)
    assert found == {(1, "importlib", "import", "module"), (4, "api.x", "dynamic", "function"),
                     (5, "api.y", "dynamic", "function")}
    assert [(u.line, u.text) for u in unresolved] == [(6, "importlib.import_module(name)")]
    found, unresolved = scan(tmp_path, "pkg/c.pyx", text)
    assert found == {(1, "importlib", "import", "module"), (4, "api.x", "dynamic", "function"),
                     (5, "api.y", "dynamic", "function")}
    assert [u.line for u in unresolved] == [6] and "name" in unresolved[0].text


def test_relative_import_module_with_a_package_argument_is_unresolved(tmp_path: Path) -> None:
    found, unresolved = scan(tmp_path, "pkg/p.py", "import importlib\nm = importlib.import_module('.x', __package__)\n")
    assert found == {(1, "importlib", "import", "module")}
    assert [u.line for u in unresolved] == [2]


# --- Python scopes -------------------------------------------------------------------------------


def test_python_scopes_function_class_body_and_type_checking(tmp_path: Path) -> None:
    found, _ = scan(tmp_path, "pkg/p.py", """\
        import typing
        if typing.TYPE_CHECKING:
            from api import types_only
        else:
            from api import at_runtime

        class C:
            import api.class_level

            def m(self):
                import api.in_method

        async def coro():
            from api import in_coro

        def outer():
            def inner():
                import api.nested
        """)
    assert found == {(1, "typing", "import", "module"), (3, "api.types_only", "import", "type-checking"),
                     (5, "api.at_runtime", "import", "module"), (8, "api.class_level", "import", "module"),
                     (11, "api.in_method", "import", "function"), (14, "api.in_coro", "import", "function"),
                     (18, "api.nested", "import", "function")}


# --- Discovery -----------------------------------------------------------------------------------


def test_discover_names_modules_and_mirrors_generated_dirs(tmp_path: Path) -> None:
    for rel in ("pkg/__init__.py", "pkg/a.pyx", "pkg/a.pxd", "pkg/defs.pxi", "pkg/sub/__init__.pxd",
                "pkg/__pycache__/a.cpython-311.pyc", "pkg/__pycache__/junk.py", "pkg/not-a-package/x.py",
                "pkg/data.txt", "other/__init__.py", "build/gen/pkg/_gen_k.pyx", "build/gen/pkg/sub/_gen_s.pyx"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    files = discover(tmp_path, ["pkg", "missing_root"], ["build/gen", "build/absent"])
    assert [(f.rel, f.module, f.is_package) for f in files] == [
        ("build/gen/pkg/_gen_k.pyx", "pkg._gen_k", False),
        ("build/gen/pkg/sub/_gen_s.pyx", "pkg.sub._gen_s", False),
        ("pkg/__init__.py", "pkg", True),
        ("pkg/a.pxd", "pkg.a", False),
        ("pkg/a.pyx", "pkg.a", False),
        ("pkg/defs.pxi", "pkg.defs", False),
        ("pkg/sub/__init__.pxd", "pkg.sub", True),
    ]
    assert all(f.path == tmp_path / f.rel for f in files)
