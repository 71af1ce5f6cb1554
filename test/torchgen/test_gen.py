"""The generator on small schemas in a throw-away tree: what it writes, and when it writes."""
from __future__ import annotations

import ast
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from torchgen.gen import GENERATED, generate
from torchgen.model import SchemaError

REPO = Path(__file__).resolve().parents[2]

NEG = """
- func: neg(Tensor self) -> Tensor
  variants: function, method
  tags: [pointwise]
  ember_pointwise:
    formula: -self
    dtypes: All
"""


def make_tree(root: Path, schema: str) -> Path:
    (root / "aten/native").mkdir(parents=True)
    for d in ("cpu", "cuda", "composite"):
        (root / "aten/native" / d).mkdir()
    (root / "torch/_C").mkdir(parents=True)
    shutil.copy(REPO / "aten/native/tags.yaml", root / "aten/native/tags.yaml")
    (root / "aten/native/native_functions.yaml").write_text(textwrap.dedent(schema))
    return root


def test_pointwise_op_gets_cpu_module_cuda_source_bindings_and_registration(tmp_path):
    root = make_tree(tmp_path, NEG)
    result = generate(root, quiet=True)
    modules = dict(result.extensions)
    assert "aten.native.cpu._gen_neg" in modules and "torch._C._gen_neg" in modules
    cpu = (root / modules["aten.native.cpu._gen_neg"]).read_text()
    assert "cdef void neg_float32(" in cpu and "def neg_cpu(TensorImpl self not None)" in cpu
    assert "neg_bool" not in cpu  # dtypes: All has no bool loop
    cu = (root / "aten/native/cuda/_gen_neg.cu").read_text()
    assert 'extern "C" __global__ void neg_float64(' in cu and "_strided(" in cu
    regs = (root / "aten/_gen_registrations.py").read_text()
    assert 'register_lazy("neg", DispatchKey.CPU, "aten.native.cpu._gen_neg", "neg_cpu")' in regs
    assert 'register_lazy("neg", DispatchKey.CUDA, "aten.native.cuda._gen_neg_launch", "neg_cuda")' in regs
    index = (root / "torch/_C/_gen_index.py").read_text()
    assert '"neg": "torch._C._gen_neg"' in index and '"neg": ("torch._C._gen_neg", "Tensor_neg")' in index


def test_every_generated_file_names_its_generator_template_and_schema_entry(tmp_path):
    root = make_tree(tmp_path, NEG)
    generate(root, quiet=True)
    for path in [*root.rglob("_gen_*.pyx"), *root.rglob("_gen_*.cu"), *root.rglob("_gen_*.py")]:
        head = path.read_text().splitlines()[:4]
        assert any(f"{GENERATED} by torchgen/targets/" in line and "templates/" in line for line in head), path
        assert any("Do not edit" in line for line in head), path


def test_formula_is_rendered_for_both_targets_with_float_and_double_math(tmp_path):
    root = make_tree(tmp_path, NEG.replace("-self", "exp(self) * 2").replace("dtypes: All", "dtypes: Floating"))
    generate(root, quiet=True)
    cpu = (root / "build/gen/aten/native/cpu/_gen_neg.pyx").read_text()
    cu = (root / "aten/native/cuda/_gen_neg.cu").read_text()
    # float32: C over contiguous blocks with vec_math.h's vectorisable exp, per ISA; float64: libm
    assert "(ember_vm_expf(x0) * ((float)2))" in cpu and "(libm.exp(x0) * (<double>2))" in cpu
    assert "EMBER_AVX2_ATTR static void neg_float32_vec_avx2(" in cpu and "neg_float32_strided(data, steps, n)" in cpu
    float32_loop = cpu[cpu.index("cdef void neg_float32("):cpu.index("cdef void neg_float64(")]
    assert "neg_float32_vec(p0, out, n)" in float32_loop and "libm" not in float32_loop
    assert "(expf(x0) * ((float)2))" in cu and "(double)((exp(x0) * ((double)2)))" in cu


@pytest.mark.parametrize("formula, libm_call", [("exp(abs(self))", "libm.expf(sm.abs(x0))"),
                                                ("sin(exp(self))", "libm.sinf(libm.expf(x0))")])
def test_float32_formula_with_a_helper_or_unvectorised_function_keeps_libm(tmp_path, formula, libm_call):
    root = make_tree(tmp_path, NEG.replace("-self", f'"{formula}"').replace("dtypes: All", "dtypes: Floating"))
    generate(root, quiet=True)
    cpu = (root / "build/gen/aten/native/cpu/_gen_neg.pyx").read_text()
    assert libm_call in cpu and "vec_math" not in cpu


def test_unchanged_schema_rewrites_nothing_and_keeps_mtimes(tmp_path):
    root = make_tree(tmp_path, NEG)
    generate(root, quiet=True)
    files = sorted(p for p in root.rglob("_gen_*") if p.is_file())
    before = {p: p.stat().st_mtime_ns for p in files}
    os.utime(root / "aten/native/native_functions.yaml")
    result = generate(root, quiet=True)
    assert result.changed == []
    assert {p: p.stat().st_mtime_ns for p in files} == before


def test_editing_one_op_rewrites_only_that_ops_kernel_module(tmp_path):
    schema = NEG + NEG.replace("neg(", "pos(").replace("-self", "self")
    root = make_tree(tmp_path, schema)
    generate(root, quiet=True)
    (root / "aten/native/native_functions.yaml").write_text(textwrap.dedent(schema.replace("formula: -self", "formula: 0 - self")))
    result = generate(root, quiet=True)
    # and the compiler's table of formulas (Python: nothing to compile)
    assert sorted(result.changed) == ["aten/native/cuda/_gen_neg.cu", "aten/native/cuda/_gen_neg_launch.py",
                                      "build/gen/aten/native/cpu/_gen_neg.pyx", "torch/_inductor/_gen_pointwise.py"]


def test_inserting_an_op_above_others_leaves_their_modules_untouched(tmp_path):
    root = make_tree(tmp_path, NEG)
    generate(root, quiet=True)
    (root / "aten/native/native_functions.yaml").write_text(textwrap.dedent(NEG.replace("neg(", "pos(") + NEG))
    result = generate(root, quiet=True)
    assert not [p for p in result.changed if "_gen_neg" in p]


def test_op_removed_from_schema_leaves_no_importable_module_behind(tmp_path):
    schema = NEG + NEG.replace("neg(", "pos(").replace("-self", "self")
    root = make_tree(tmp_path, schema)
    generate(root, quiet=True)
    compiled = root / "aten/native/cpu/_gen_pos.cpython-311-x86_64-linux-gnu.so"
    compiled.write_text("stand-in for a compiled module")
    (root / "aten/native/native_functions.yaml").write_text(textwrap.dedent(NEG))
    result = generate(root, quiet=True)
    assert not compiled.exists()
    assert not (root / "build/gen/aten/native/cpu/_gen_pos.pyx").exists()
    assert not (root / "aten/native/cuda/_gen_pos.cu").exists()
    assert "aten/native/cpu/_gen_pos.cpython-311-x86_64-linux-gnu.so" in result.removed
    assert "pos" not in (root / "torch/_C/_gen_index.py").read_text()


def test_missing_handwritten_kernel_gets_a_stub_that_is_never_overwritten(tmp_path):
    root = make_tree(tmp_path, """
        - func: frobnicate(Tensor self, int k=2) -> Tensor
          dispatch:
            CPU: frobnicate_cpu
        """)
    result = generate(root, quiet=True)
    stub = root / "aten/native/cpu/frobnicate.pyx"
    assert result.stubs == ["aten/native/cpu/frobnicate.pyx"]
    assert "def frobnicate_cpu(self, k=None):" in stub.read_text()
    assert "NotImplementedError" in stub.read_text()
    stub.write_text("def frobnicate_cpu(self, k=2):\n    return self\n")
    result = generate(root, quiet=True)
    assert result.stubs == []
    assert stub.read_text() == "def frobnicate_cpu(self, k=2):\n    return self\n"
    assert '"aten.native.cpu.frobnicate", "frobnicate_cpu"' in (root / "aten/_gen_registrations.py").read_text()


def test_kernel_missing_from_an_existing_file_is_an_error_naming_the_file(tmp_path):
    root = make_tree(tmp_path, """
        - func: frobnicate(Tensor self) -> Tensor
          dispatch:
            CPU: frobnicate_cpu
        """)
    (root / "aten/native/cpu/frobnicate.pyx").write_text("def something_else(self):\n    pass\n")
    with pytest.raises(SchemaError, match=r"native_functions.yaml:2: kernel frobnicate_cpu .* add `def frobnicate_cpu"):
        generate(root, quiet=True)
    assert (root / "aten/native/cpu/frobnicate.pyx").read_text() == "def something_else(self):\n    pass\n"


def test_composite_kernels_are_found_in_the_composite_directory(tmp_path):
    root = make_tree(tmp_path, """
        - func: twice(Tensor self) -> Tensor
          variants: function, method
          dispatch:
            CompositeExplicitAutograd: twice
        """)
    (root / "aten/native/composite/doubling.py").write_text("def twice(self):\n    return self\n")
    generate(root, quiet=True)
    assert ('register_lazy("twice", DispatchKey.CompositeExplicitAutograd, "aten.native.composite.doubling", "twice")'
            in (root / "aten/_gen_registrations.py").read_text())


def test_scalar_overload_is_not_bound_when_a_tensor_overload_takes_numbers(tmp_path):
    root = make_tree(tmp_path, """
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          variants: function, method
          tags: [pointwise]
          ember_pointwise:
            formula: self + alpha * other
        - func: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
          variants: function, method
          tags: [pointwise]
          dispatch:
            CompositeExplicitAutograd: add_Scalar
        """)
    (root / "aten/native/composite/arithmetic.py").write_text("def add_Scalar(self, other, alpha=1):\n    pass\n")
    generate(root, quiet=True)
    bindings = (root / "build/gen/torch/_C/_gen_add.pyx").read_text()
    assert "aten::add.Tensor" in bindings and "aten::add.Scalar" not in bindings
    assert 'Param("input", P_TENSOR, False, False, None, True)' in bindings  # self is `input`, numbers allowed
    assert 'register_lazy("add.Scalar"' in (root / "aten/_gen_registrations.py").read_text()


def test_unsupported_binding_type_fails_with_file_and_line(tmp_path):
    root = make_tree(tmp_path, """
        - func: weird(Tensor self, Stream dim) -> Tensor
          dispatch:
            CPU: weird_cpu
        """)
    (root / "aten/native/cpu/weird.pyx").write_text("def weird_cpu(self, dim):\n    pass\n")
    with pytest.raises(SchemaError, match=r"native_functions.yaml:2: python bindings: argument 'dim' of type Stream"):
        generate(root, quiet=True)


def test_formula_with_unknown_function_is_rejected(tmp_path):
    root = make_tree(tmp_path, NEG.replace("-self", "frob(self)"))
    with pytest.raises(SchemaError, match=r"unknown function frob\(\)"):
        generate(root, quiet=True)


def test_the_real_schema_generates_cleanly():
    result = generate(REPO, quiet=True)
    assert result.stubs == []
    assert "torch._C._gen_add" in dict(result.extensions)


def _binding(root: Path, base: str) -> str:
    return (root / f"build/gen/torch/_C/_gen_{base}.pyx").read_text()


def test_scalar_overload_is_bound_and_tried_after_its_tensor_overload(tmp_path):
    # Upstream skips only add/sub/mul/div.Scalar; the rest are bound, the Tensor form first
    # (sort_overloads) whatever the schema order, so a tensor never lands in a Scalar.
    root = make_tree(tmp_path, """
        - func: fillit.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
          variants: function, method
          dispatch:
            CompositeExplicitAutograd: fillit_Scalar
        - func: fillit.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
          variants: function, method
          dispatch:
            CompositeExplicitAutograd: fillit_Tensor
        """)
    (root / "aten/native/composite/fill.py").write_text(
        "def fillit_Scalar(self, mask, value):\n    pass\n\n\ndef fillit_Tensor(self, mask, value):\n    pass\n")
    generate(root, quiet=True)
    bindings = _binding(root, "fillit")
    assert bindings.index("aten::fillit.Tensor") < bindings.index("aten::fillit.Scalar")


def test_factories_and_like_functions_take_requires_grad(tmp_path):
    root = make_tree(tmp_path, """
        - func: nothing(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
          dispatch:
            CompositeExplicitAutograd: nothing
        - func: nothing_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
          dispatch:
            CompositeExplicitAutograd: nothing_like
        - func: something(Tensor self) -> Tensor
          dispatch:
            CompositeExplicitAutograd: something
        """)
    (root / "aten/native/composite/f.py").write_text(
        "def nothing(size, dtype=None, layout=None, device=None, pin_memory=None):\n    pass\n\n\n"
        "def nothing_like(self, dtype=None, layout=None, device=None, pin_memory=None):\n    pass\n\n\n"
        "def something(self):\n    pass\n")
    generate(root, quiet=True)
    for base in ("nothing", "nothing_like"):
        text = _binding(root, base)
        assert 'Param("requires_grad", P_OPT_BOOL, True, True, False, False)' in text
        # The kernel gets the schema's five arguments; requires_grad (v[5]) is applied to its result.
        assert "(v[0], v[1], v[2], v[3], v[4])), v[5])" in text and "set_requires_grad(" in text
    assert "requires_grad" not in _binding(root, "something")


def test_optional_argument_without_default_is_required_but_takes_none(tmp_path):
    root = make_tree(tmp_path, """
        - func: opt(Tensor self, Scalar? p, int[1] dim, bool keepdim=False, *, ScalarType dtype) -> Tensor
          dispatch:
            CompositeExplicitAutograd: opt
        """)
    (root / "aten/native/composite/o.py").write_text("def opt(self, p, dim, keepdim=False, dtype=None):\n    pass\n")
    generate(root, quiet=True)
    text = _binding(root, "opt")
    assert 'Param("p", P_OPT_SCALAR, False, False, None, False)' in text
    assert 'Param("dim", P_OPT_INT_LIST, False, False, None, False)' in text


def test_reduction_enum_default_and_double_quoted_strings_generate_valid_python(tmp_path):
    schema = ('loss(Tensor self, Tensor target, int reduction=Mean, str mode="valid", str q="\\"\'\\\\") -> Tensor')
    root = make_tree(tmp_path, f"""
        - func: {schema}
          dispatch:
            CompositeExplicitAutograd: loss
        """)
    (root / "aten/native/composite/l.py").write_text("def loss(self, target, reduction=1, mode='valid', q=''):\n    pass\n")
    generate(root, quiet=True)
    # the binding's default is PyTorch parser's reading of "Mean" (0); the registered schema keeps Mean
    assert 'Param("reduction", P_INT, False, True, 0, False)' in _binding(root, "loss")
    regs = ast.parse((root / "aten/_gen_registrations.py").read_text())
    defined = [ast.literal_eval(node.args[0]) for node in ast.walk(regs)
               if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "define"]
    assert defined == [schema]
    signatures = ast.parse((root / "torch/_C/_gen_signatures.py").read_text())
    texts = [ast.literal_eval(n) for n in ast.walk(signatures) if isinstance(n, ast.Tuple)]
    assert texts == [("(input, target, reduction=0, mode=\"valid\", q=\"\\\"'\\\\\")",)]


FROB = """
    - func: frobnicate(Tensor self, int k=2, *, bool fast=False, Tensor(a!) out) -> Tensor(a!)
      dispatch:
        CPU: frobnicate_cpu
    """


@pytest.mark.parametrize("signature, problem", [
    ("def frobnicate_cpu(TensorImpl self not None, k=2, fast=False):",
     "it takes 3 parameters for the schema's 4 arguments (self, k, fast, out)"),
    ("def frobnicate_cpu(self, k=2, quick=False, out=None):", "keyword-only argument `fast` is its parameter `quick`"),
    ("def frobnicate_cpu(self, k, fast=False, out=None):",
     "argument `k` has a default in the schema, parameter `k` has none"),
    ("def frobnicate_cpu(self, k=2, fast=False, out=None, extra):", "extra parameter `extra` has no default"),
    ("def frobnicate_cpu(self, *, k=2, fast=False, out=None):", "argument `k` is its keyword-only parameter `k`"),
    ("def frobnicate_cpu(self, k=2, fast=False, /, out=None):",
     "keyword-only argument `fast` is its positional-only parameter `fast`"),
])
def test_a_handwritten_kernel_that_does_not_match_its_schema_fails_the_build_naming_both_places(
        tmp_path, signature, problem):
    root = make_tree(tmp_path, FROB)
    (root / "aten/native/cpu/frobnicate.pyx").write_text(f"# the kernel\n\n{signature}\n    return out\n")
    with pytest.raises(SchemaError) as raised:
        generate(root, quiet=True)
    message = str(raised.value)
    assert message.startswith(f"{root / 'aten/native/native_functions.yaml'}:2: kernel frobnicate_cpu "
                              "(aten/native/cpu/frobnicate.pyx:3) for aten::frobnicate (CPU) does not match"), message
    assert problem in message


@pytest.mark.parametrize("signature", [
    "def frobnicate_cpu(TensorImpl self not None, int k=2, bint fast=False, TensorImpl out=None):",
    "def frobnicate_cpu(input, k=2, fast=False, out=None, rounding_mode=None):",   # positional names may differ
    "def frobnicate_cpu(self: Any, k: int = 2, fast: bool = False, out: Any = None) -> Any:",
    "def frobnicate_cpu(*args, **kwargs):",
    "def frobnicate_cpu(self, k=2, /, fast=False, out=None):",
    'def frobnicate_cpu(self,  # the input, (a comment)\n        k=2, fast=False, out=None, mode="a, b)"):',
])
def test_kernels_that_take_the_schemas_arguments_pass(tmp_path, signature):
    root = make_tree(tmp_path, FROB)
    (root / "aten/native/cpu/frobnicate.pyx").write_text(f"{signature}\n    pass\n")
    generate(root, quiet=True)


def test_a_cpu_or_cuda_kernel_may_live_in_the_device_neutral_layer_but_not_a_composite_or_a_cdef(tmp_path):
    root = make_tree(tmp_path, """
        - func: relabel_(Tensor(a!) self) -> Tensor(a!)
          dispatch:
            CPU: relabel_
            CUDA: relabel_
        - func: unfold_meta(Tensor self) -> Tensor
          dispatch:
            CompositeExplicitAutograd: unfold_meta
        """)
    (root / "aten/native/meta").mkdir()
    (root / "aten/native/meta/relabel.pyx").write_text(
        "def relabel_(self):\n    return self\n\n\ncdef int unfold_meta(self):\n    return 0\n")
    result = generate(root, quiet=True)
    regs = (root / "aten/_gen_registrations.py").read_text()
    assert 'register_lazy("relabel_", DispatchKey.CPU, "aten.native.meta.relabel", "relabel_")' in regs
    assert 'register_lazy("relabel_", DispatchKey.CUDA, "aten.native.meta.relabel", "relabel_")' in regs
    # A composite kernel never binds to the neutral layer (and a cdef helper is no kernel): it gets a stub.
    assert result.stubs == ["aten/native/composite/unfold_meta.py"]


def test_an_opmath_backend_registers_its_kernel_to_compute_in_float32_and_the_others_as_they_are(tmp_path):
    root = make_tree(tmp_path, """
        - func: frob(Tensor self) -> Tensor
          dispatch:
            CPU: frob_cpu
            CUDA: frob_cuda
          ember_opmath: CPU
        """)
    (root / "aten/native/cpu/frob.pyx").write_text("def frob_cpu(self):\n    return self\n")
    (root / "aten/native/cuda").mkdir(parents=True, exist_ok=True)
    (root / "aten/native/cuda/frob.py").write_text("def frob_cuda(self):\n    return self\n")
    generate(root, quiet=True)
    regs = (root / "aten/_gen_registrations.py").read_text()
    assert 'register_lazy("frob", DispatchKey.CPU, "aten.native.cpu.frob", "frob_cpu", opmath=True)' in regs
    assert 'register_lazy("frob", DispatchKey.CUDA, "aten.native.cuda.frob", "frob_cuda")\n' in regs


def _registrations(tmp_path, schema, kernels):
    """aten/_gen_registrations.py generated from schema, with kernels (path -> source) written first."""
    root = make_tree(tmp_path, schema)
    for path, text in kernels.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    generate(root, quiet=True)
    return (root / "aten/_gen_registrations.py").read_text()


def test_autocast_entries_register_the_policy_at_each_devices_autocast_key(tmp_path):
    regs = _registrations(tmp_path, """
        - func: frob(Tensor self, int k=3) -> Tensor
          ember_autocast: {CPU: fp32, CUDA: fp32_append_dtype(frob.dtype)}
        - func: frob.dtype(Tensor self, int k, *, ScalarType dtype) -> Tensor
          dispatch:
            CompositeExplicitAutograd: frob_dtype
        """, {"aten/native/composite/frob.py":
              "def frob(self, k=3):\n    return self\n\n\ndef frob_dtype(self, k, dtype):\n    return self\n"})
    assert 'register_autocast("frob", DispatchKey.AutocastCPU, "fp32")' in regs
    assert 'register_autocast("frob", DispatchKey.AutocastCUDA, "fp32_append_dtype", "frob.dtype", (None, 3, ))' in regs


def test_an_append_dtype_overload_must_take_the_ops_arguments_and_a_dtype(tmp_path):
    with pytest.raises(SchemaError, match="must name an overload taking this op's arguments"):
        _registrations(tmp_path, """
            - func: frob(Tensor self) -> Tensor
              ember_autocast: {CUDA: fp32_append_dtype(frob.other)}
            - func: frob.other(Tensor self, int k, *, ScalarType dtype) -> Tensor
              dispatch:
                CompositeExplicitAutograd: frob_other
            """, {"aten/native/composite/frob.py":
                  "def frob(self):\n    return self\n\n\ndef frob_other(self, k, dtype):\n    return self\n"})


def test_storage_dtypes_wrap_every_kernel_of_the_entry(tmp_path):
    regs = _registrations(tmp_path, """
        - func: frob(Tensor self) -> Tensor
          dispatch:
            CPU: frob_cpu
            CUDA: frob_cuda
          ember_opmath: CPU
          ember_storage_dtypes: {float8: bits}
        """, {"aten/native/cpu/frob.pyx": "def frob_cpu(self):\n    return self\n",
              "aten/native/cuda/frob.py": "def frob_cuda(self):\n    return self\n"})
    assert ('register_lazy("frob", DispatchKey.CPU, "aten.native.cpu.frob", "frob_cpu", opmath=True, '
            "storage={'float8': 'bits'})") in regs
    assert ('register_lazy("frob", DispatchKey.CUDA, "aten.native.cuda.frob", "frob_cuda", '
            "storage={'float8': 'bits'})") in regs


def test_opmath_mixed_reaches_the_opmath_kernels_registrations(tmp_path):
    regs = _registrations(tmp_path, """
        - func: frob(Tensor self, Tensor? weight) -> (Tensor, Tensor)
          dispatch:
            CPU: frob_cpu
            CUDA: frob_cuda
          ember_opmath: CPU
          ember_opmath_mixed: {params: [weight], float_results: [1]}
        """, {"aten/native/cpu/frob.pyx": "def frob_cpu(self, weight):\n    return self, self\n",
              "aten/native/cuda/frob.py": "def frob_cuda(self, weight):\n    return self, self\n"})
    assert ('register_lazy("frob", DispatchKey.CPU, "aten.native.cpu.frob", "frob_cpu", opmath=True, '
            "mixed=(('weight',), (1,)))") in regs
    assert 'register_lazy("frob", DispatchKey.CUDA, "aten.native.cuda.frob", "frob_cuda")' in regs


FORWARD_SCHEMA = NEG + """
- func: twice(Tensor self, Tensor other) -> Tensor
  variants: function
  dispatch:
    CompositeExplicitAutograd: twice

- func: halves(Tensor self) -> (Tensor a, Tensor b)
  variants: function
  dispatch:
    CompositeExplicitAutograd: halves
"""


def _forward_tree(root: Path, derivatives: str) -> Path:
    make_tree(root, FORWARD_SCHEMA)
    (root / "aten/native/composite/ops.py").write_text("def twice(self, other):\n    return self\n\n\n"
                                                       "def halves(self):\n    return self, self\n")
    (root / "tools/autograd").mkdir(parents=True)
    (root / "tools/autograd/derivatives.yaml").write_text(textwrap.dedent(derivatives))
    return root


def test_forward_formulas_become_forward_ad_kernels_registered_at_their_key(tmp_path):
    root = _forward_tree(tmp_path, """
        - name: neg(Tensor self) -> Tensor
          self: grad.neg()
          result: auto_element_wise

        - name: twice(Tensor self, Tensor other) -> Tensor
          self: grad * other
          other: grad * self
          result: auto_linear

        - name: halves(Tensor self) -> (Tensor a, Tensor b)
          self: grads[0] + grads[1]
          b: self_t * self_p.sym_sizes()[0]
        """)
    generate(root, quiet=True)
    module = (root / "torch/csrc/autograd/_gen_forward_ad.py").read_text()
    assert "return ((conj(conj(self_t).neg())),)" in module          # the backward formula, grad -> conj(self_t)
    assert "return ((_OP_twice(self_t, other_t)),)" in module           # the op itself on the tangents
    assert "return (None, (self_t * tuple(self_p.shape)[0]),)" in module   # by output name; accessors as attributes
    assert 'fw_neg = ForwardKernel("neg", ' in module
    regs = (root / "torch/csrc/autograd/_gen_registrations.py").read_text()
    assert 'register_lazy("neg", DispatchKey.ForwardAD, "torch.csrc.autograd._gen_forward_ad", "fw_neg")' in regs


def test_entry_without_forward_formula_gets_the_not_implemented_kernel(tmp_path):
    root = _forward_tree(tmp_path, """
        - name: neg(Tensor self) -> Tensor
          self: grad.neg()
        """)
    generate(root, quiet=True)
    module = (root / "torch/csrc/autograd/_gen_forward_ad.py").read_text()
    assert 'fw_neg = NoForwardFormula("neg", NOT_IMPLEMENTED.format("neg"))' in module


def test_auto_element_wise_needs_one_differentiable_input(tmp_path):
    root = _forward_tree(tmp_path, """
        - name: twice(Tensor self, Tensor other) -> Tensor
          self: grad * other
          other: grad * self
          result: auto_element_wise
        """)
    with pytest.raises(SchemaError, match="auto_element_wise needs exactly one differentiable tensor input"):
        generate(root, quiet=True)


def test_the_compilers_table_holds_each_formula_rendered_to_c_and_cuda(tmp_path):
    schema = NEG + """
- func: tanh(Tensor self) -> Tensor
  variants: function, method
  tags: [pointwise]
  ember_pointwise:
    formula: tanh(self)
    dtypes: Floating
    promote: int_to_float

- func: atan(Tensor self) -> Tensor
  variants: function, method
  tags: [pointwise]
  ember_pointwise:
    formula: atan(self)
    dtypes: Floating
    promote: int_to_float
"""
    root = make_tree(tmp_path, schema)
    generate(root, quiet=True)
    namespace: dict = {}
    exec((root / "torch/_inductor/_gen_pointwise.py").read_text(), namespace)
    table = namespace["FORMULAS"]
    assert table["neg"] == (["self"], [], {}, "(-x0)", "(-x0)", "float32", [], False)
    assert table["tanh"][3] == "ember_vm_tanhf(x0)" and table["tanh"][7] is True      # an approximated function
    assert table["tanh"][4] == "tanhf(x0)"
    assert table["atan"][3] is None and table["atan"][4] == "atanf(x0)"    # libm only: the CPU calls its kernel
    helpers = (root / "aten/native/cuda/_gen_scalar_ops.cuh").read_text()
    assert "ember_truncdiv" in helpers and "Do not edit" in helpers.splitlines()[1]
