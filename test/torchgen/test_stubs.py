"""The .pyi stubs torchgen writes from a small schema: PyTorch's Python types for schema types,
the parser's overload order and forms, and names defined in Python left to their own types."""
from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

from torchgen.gen import generate

REPO = Path(__file__).resolve().parents[2]


def make_tree(root: Path, schema: str) -> Path:
    """A throw-away repository holding only a schema (as test_gen's)."""
    for d in ("cpu", "cuda", "composite"):
        (root / "aten/native" / d).mkdir(parents=True)
    (root / "torch/_C").mkdir(parents=True)
    shutil.copy(REPO / "aten/native/tags.yaml", root / "aten/native/tags.yaml")
    (root / "aten/native/native_functions.yaml").write_text(textwrap.dedent(schema))
    return root


SCHEMA = """
    - func: fill_all(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor
      dispatch:
        CompositeExplicitAutograd: fill_all
    - func: total(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
      variants: function, method
      dispatch:
        CompositeExplicitAutograd: total
    - func: total.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
      dispatch:
        CompositeExplicitAutograd: total_out
    - func: biggest.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
      variants: function, method
      dispatch:
        CompositeExplicitAutograd: biggest
    - func: random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)
      variants: method
      tags: [nondeterministic_seeded]
      dispatch:
        CompositeExplicitAutograd: random_from
    - func: shaped(Tensor self, SymInt[] size) -> Tensor
      variants: method
      dispatch:
        CompositeExplicitAutograd: shaped
"""
KERNELS = ("def fill_all(size, fill_value, dtype=None, device=None):\n    pass\n\n\n"
           "def total(self, dim, keepdim=False, dtype=None):\n    pass\n\n\n"
           "def total_out(self, dim, keepdim=False, dtype=None, out=None):\n    pass\n\n\n"
           "def biggest(self, dim, keepdim=False):\n    pass\n\n\n"
           "def random_from(self, from_, to, generator=None):\n    pass\n\n\n"
           "def shaped(self, size):\n    pass\n")


def _generate(tmp_path: Path) -> tuple[str, str, str]:
    root = make_tree(tmp_path, SCHEMA)
    (root / "aten/native/composite/k.py").write_text(KERNELS)
    generate(root, quiet=True)
    stubs = root / "torch/_C"
    return tuple(  # type: ignore[return-value]
        (stubs / name).read_text() for name in
        ("_gen_variable_functions.pyi", "_gen_tensor_base.pyi", "_gen_return_types.pyi"))


def test_schema_types_become_pytorchs_python_types(tmp_path):
    functions, methods, return_types = _generate(tmp_path)
    assert ("def fill_all(size: Sequence[_int], fill_value: _Number, *, dtype: _dtype | None = None, "
            "device: DeviceLikeType | None = None, requires_grad: _bool = False) -> Tensor: ...") in functions
    # int[1]? takes one int, a list or None; the out= overload's tensor is keyword-only.
    assert ("def total(input: Tensor, dim: _int | Sequence[_int] | None, keepdim: _bool = False, *, "
            "dtype: _dtype | None = None, out: Tensor | None = None) -> Tensor: ...") in functions
    assert "    def total(self, dim: _int | Sequence[_int] | None, keepdim: _bool = False" in methods
    # Named results are torch.return_types' named tuples.
    assert "-> _rt_biggest: ..." in functions and "-> _rt_biggest: ..." in methods
    assert "class biggest(tuple[Tensor, Tensor]):" in return_types
    assert "def values(self) -> Tensor: ..." in return_types
    # A keyword parameter name is spelt as PyTorch's stubs spell it.
    assert "def random_(self, from_: _int, to: _int | None, *, generator: Generator | None = None) -> Tensor" in methods


def test_int_list_only_positional_parameter_also_takes_varargs(tmp_path):
    functions, methods, _ = _generate(tmp_path)
    assert "    @overload\n    def shaped(self, size: Sequence[_int]) -> Tensor: ..." in methods
    assert "    @overload\n    def shaped(self, *size: _int) -> Tensor: ..." in methods
    # fill_all has a second positional parameter: no varargs form.
    assert "def fill_all(*size" not in functions


def test_stubs_are_valid_python_and_list_their_functions(tmp_path):
    functions, methods, return_types = _generate(tmp_path)
    for text in (functions, methods, return_types):
        ast.parse(text)
    assert '"fill_all",' in functions and '"total",' in functions
    assert '"random_"' not in functions and '"shaped"' not in functions   # methods only


def test_names_defined_in_python_are_left_to_their_handwritten_types(tmp_path):
    root = make_tree(tmp_path, SCHEMA)
    (root / "aten/native/composite/k.py").write_text(KERNELS)
    (root / "torch/functional.py").write_text('__all__ = ["total"]\n')
    (root / "torch/_tensor.py").write_text("class Tensor:\n    def biggest(self):\n        pass\n")
    generate(root, quiet=True)
    functions = (root / "torch/_C/_gen_variable_functions.pyi").read_text()
    methods = (root / "torch/_C/_gen_tensor_base.pyi").read_text()
    assert "def total(" not in functions and "def biggest(" in functions
    assert "def biggest(" not in methods and "def total(" in methods
