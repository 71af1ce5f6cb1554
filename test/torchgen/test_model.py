"""torchgen.model: the schema grammar, native_functions.yaml parsing, and every error's file:line."""

from __future__ import annotations

import keyword
import textwrap
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from torchgen.model import (Annotation, Argument, BaseOperatorName, BaseTy, BaseType, CustomClassType, DispatchKey,
                            FunctionSchema, ListType, Location, OperatorName, OptionalType, Return, SchemaError,
                            SchemaErrors, SchemaKind, Variant, parse_type)
from torchgen.native_yaml import PointwiseFormula, parse_native_yaml, parse_native_yaml_text, parse_tags_yaml

# The repo is /work/main and shared data sits beside it: /work/shared/upstream.
UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream"
NATIVE_YAML = UPSTREAM / "native_functions.yaml"
TAGS_YAML = UPSTREAM / "tags.yaml"
needs_upstream = pytest.mark.skipif(
    not (NATIVE_YAML.exists() and TAGS_YAML.exists()),
    reason=f"PyTorch's native_functions.yaml/tags.yaml not found under {UPSTREAM} (expected beside the repo root)",
)
TAGS = frozenset({"core", "pointwise", "reduction", "nondeterministic_seeded", "inplace_view"})


def schema(text: str) -> FunctionSchema:
    parsed = FunctionSchema.parse(text)
    assert str(parsed) == text
    return parsed


# --- The upstream corpus --------------------------------------------------------------------------


@needs_upstream
def test_every_upstream_func_round_trips_through_parse_and_str() -> None:
    entries = yaml.load(NATIVE_YAML.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    funcs = [e["func"] for e in entries]
    assert len(funcs) == 2584
    mismatched = [f for f in funcs if str(FunctionSchema.parse(f)) != f]
    assert mismatched == []


@needs_upstream
def test_parse_native_yaml_accepts_the_whole_upstream_file_with_upstream_tags() -> None:
    functions = parse_native_yaml(str(NATIVE_YAML), str(TAGS_YAML))
    assert len(functions) == 2584
    # Counts measured independently in shared/notes/upstream.md sections a and b.
    assert Counter(f.func.kind() for f in functions) == {
        SchemaKind.functional: 1606,
        SchemaKind.out: 631,
        SchemaKind.inplace: 337,
        SchemaKind.mutable: 10,
    }
    implicit = [f for f in functions if not f.has_explicit_dispatch and not f.structured and not f.structured_delegate]
    assert len(implicit) == 653
    assert all(f.dispatch[0][0] is DispatchKey.CompositeImplicitAutograd for f in implicit)
    keys = Counter(k for f in functions if f.has_explicit_dispatch for k, _ in f.dispatch)
    assert (keys[DispatchKey.CUDA], keys[DispatchKey.CPU], keys[DispatchKey.MPS]) == (884, 681, 533)
    assert sum(1 for f in functions if f.has_explicit_dispatch and not f.dispatch) == 9
    assert sum(1 for f in functions if f.func.arguments.tensor_options is not None) == 100
    assert sum(1 for f in functions if f.func.arguments.pre_self_positional) == 106
    add_out = next(f for f in functions if str(f.func.name) == "add.out")
    assert add_out.structured and add_out.ufunc_inner_loop[0][0] == "Generic"
    assert add_out.loc == Location(str(NATIVE_YAML), add_out.loc.line) and add_out.loc.line > 1


@needs_upstream
def test_upstream_tags_yaml_defines_twenty_tags() -> None:
    tags = parse_tags_yaml(str(TAGS_YAML))
    assert len(tags) == 20 and {"pointwise", "core", "nondeterministic_seeded"} <= tags


# --- Grammar: the checklist of notes section a ----------------------------------------------------


def test_out_overload_has_one_out_arg_and_kwarg_only_alpha() -> None:
    s = schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert s.kind() is SchemaKind.out and s.is_out_fn()
    assert [a.name for a in s.arguments.out] == ["out"]
    assert [a.name for a in s.arguments.flat_kwarg_only] == ["alpha"]
    assert s.arguments.flat_kwarg_only[0].default == "1"
    assert [a.name for a in s.arguments.flat_all] == ["self", "other", "alpha", "out"]
    assert s.returns == (Return(None, BaseType(BaseTy.Tensor), Annotation(("a",), True, ())),)


def test_trailing_underscore_makes_an_inplace_op_with_the_base_name_without_it() -> None:
    s = schema("abs_(Tensor(a!) self) -> Tensor(a!)")
    assert s.kind() is SchemaKind.inplace
    assert s.name.name == BaseOperatorName("abs", inplace=True, dunder_method=False, functional_overload=False)
    assert s.name.unambiguous_name() == "abs_"


def test_augmented_assignment_dunder_is_inplace() -> None:
    s = schema("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)")
    assert (s.name.name.base, s.name.name.inplace, s.name.name.dunder_method) == ("and", True, True)
    assert s.name.unambiguous_name() == "__iand___Tensor"
    assert not schema("__and__.Tensor(Tensor self, Tensor other) -> Tensor").name.name.inplace


def test_operator_names_print_and_give_unambiguous_c_names() -> None:
    assert str(OperatorName.parse("add.Tensor")) == "add.Tensor"
    assert OperatorName.parse("add.Tensor").unambiguous_name() == "add_Tensor"
    assert OperatorName.parse("add_").unambiguous_name() == "add_"
    assert OperatorName.parse("add").overload_name == ""
    normal = OperatorName.parse("normal_functional")
    assert normal.name.functional_overload and normal.name.base == "normal"
    ns = OperatorName.parse("ember::foo.out")
    assert (ns.name.namespace, ns.name.base, str(ns)) == ("ember", "foo", "ember::foo.out")


def test_four_factory_kwargs_group_into_tensor_options_before_later_kwargs() -> None:
    s = schema(
        "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
    )
    options = s.arguments.tensor_options
    assert options is not None
    assert [a.name for a in options.all()] == ["dtype", "layout", "device", "pin_memory"]
    assert [a.name for a in s.arguments.post_tensor_options_kwarg_only] == ["memory_format"]
    assert s.arguments.pre_tensor_options_kwarg_only == ()
    assert [a.name for a in s.arguments.flat_kwarg_only] == ["dtype", "layout", "device", "pin_memory", "memory_format"]
    assert s.arguments.self_arg is None


def test_tensor_options_must_be_all_four_in_order() -> None:
    s = schema("foo(*, ScalarType? dtype=None, Device? device=None) -> Tensor")
    assert s.arguments.tensor_options is None
    assert [a.name for a in s.arguments.pre_tensor_options_kwarg_only] == ["dtype", "device"]


def test_question_mark_binds_loosest_in_list_types() -> None:
    assert parse_type("Tensor?[]") == ListType(OptionalType(BaseType(BaseTy.Tensor)), None)
    assert parse_type("int[1]?") == OptionalType(ListType(BaseType(BaseTy.int), 1))
    assert parse_type("float[]?") == OptionalType(ListType(BaseType(BaseTy.float), None))
    assert parse_type("__torch__.torch.classes.quantized.Conv") == CustomClassType("quantized.Conv")
    for text in ("Tensor?[]", "int[1]?", "SymInt[2]", "bool[3]", "__torch__.torch.classes.x.Y"):
        assert str(parse_type(text)) == text
    index = schema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
    assert index.arguments.post_self_positional[0].type == ListType(OptionalType(BaseType(BaseTy.Tensor)), None)
    total = schema("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    assert total.arguments.post_self_positional[0].type == OptionalType(ListType(BaseType(BaseTy.int), 1))


def test_tensor_likeness_and_list_likeness_see_through_optional() -> None:
    assert all(parse_type(t).is_tensor_like() for t in ("Tensor", "Tensor?", "Tensor[]", "Tensor?[]"))
    assert not any(parse_type(t).is_tensor_like() for t in ("int", "Scalar", "int[]"))
    assert parse_type("int[1]?").is_list_like() == ListType(BaseType(BaseTy.int), 1)
    assert parse_type("int?").is_list_like() is None


def test_view_annotation_and_enum_defaults_are_kept_raw() -> None:
    s = schema("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)")
    assert s.arguments.self_arg == Argument("self", BaseType(BaseTy.Tensor), None, Annotation(("a",), False, ()))
    assert s.arguments.flat_kwarg_only[0].default == "contiguous_format"
    assert s.kind() is SchemaKind.functional
    assert schema("foo(Tensor self, int reduction=Mean) -> Tensor").arguments.flat_all[1].default == "Mean"
    assert schema('foo(Tensor self, str padding="valid") -> Tensor').arguments.flat_all[1].default == '"valid"'


def test_wildcard_after_set_and_annotated_list_return() -> None:
    s = schema("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]")
    assert s.arguments.self_arg is not None
    assert s.arguments.self_arg.annotation == Annotation(("a",), False, ("*",))
    assert s.returns[0].type == ListType(BaseType(BaseTy.Tensor), None)
    assert str(Annotation.parse("a|b -> *")) == "a|b -> *"


def test_list_out_argument_returns_nothing() -> None:
    s = schema("unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()")
    assert s.kind() is SchemaKind.out and s.returns == ()


def test_named_returns_and_scratch_and_mutable_kinds() -> None:
    s = schema("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert [r.name for r in s.returns] == ["values", "indices"]
    scratch = schema("foo.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> Tensor(a!)")
    assert scratch.kind() is SchemaKind.scratch
    mutable = schema("_fused(Tensor self, Tensor(a!) running_mean) -> Tensor")
    assert mutable.kind() is SchemaKind.mutable


def test_pre_self_positional_args_split_around_self() -> None:
    s = schema("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor")
    assert [a.name for a in s.arguments.pre_self_positional] == ["condition"]
    assert [a.name for a in s.arguments.flat_positional] == ["condition", "self", "other"]


def test_defaults_containing_comma_space_and_escaped_quotes_round_trip() -> None:
    s = schema('foo(Tensor self, str a="x, y", str c="k=v", int[2] d=[-2,-1]) -> Tensor')
    assert [a.default for a in s.arguments.flat_all[1:]] == ['"x, y"', '"k=v"', "[-2,-1]"]
    # The upstream entry, as YAML hands it over: escaped quotes and backslashes inside both quote styles.
    upstream = r"""_test_string_default(Tensor dummy, str a="\"'\\", str b='"\'\\') -> Tensor"""
    assert [a.default for a in schema(upstream).arguments.flat_all[1:]] == [r'''"\"'\\"''', r"""'"\'\\'"""]


def test_argument_write_flag_follows_its_annotation() -> None:
    assert Argument.parse("Tensor(a!) out").is_write
    assert not Argument.parse("Tensor(a) self").is_write
    assert not Argument.parse("int x=1").is_write


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("foo(int) -> Tensor", "expected '<type> <name>"),
        ("foo(int x=1=2) -> Tensor", "illegal default value"),
        ("foo(Tensor x, *, int a, *, int b) -> Tensor", "'*' may appear only once"),
        ("foo(Tensor x, *) -> Tensor", "'*' must be followed by an argument"),
        ("foo(Tensor x, *, Tensor(a!) out, int y) -> Tensor(a!)", "non-mutable argument 'y' follows the out arguments"),
        ("foo(Tensor(a!) x) -> Tensor(a!)", "mutable positional argument 'x' must not be returned"),
        ("foo(int(a) x) -> Tensor", "alias annotations are only allowed on Tensor"),
        ("foo(Tensor(a!)?[] x) -> Tensor", "alias annotations are only allowed on Tensor"),
        ("foo(Tensor x) -> (Tensor)", "a single return is not parenthesised"),
        ("foo(Tensor x) -> Tensor, Tensor", "several returns must be parenthesised"),
        ("foo_out(Tensor x) -> Tensor", "_out suffix is reserved"),
        ("__ifoo__(Tensor(a!) self) -> Tensor(a!)", "is not an augmented assignment"),
        ("foo.out(Tensor x, *, Tensor(a!) out) -> (Tensor(a!), Tensor)", "all mutable or all immutable"),
        ("foo(Tensor(a|b!) x) -> Tensor", "cannot be written"),
        ("foo(Tensor(A) x) -> Tensor", "illegal alias annotation"),
        ("foo(Tensor x)->Tensor", "expected ' -> ' after the argument list"),
        ("foo(Tensor  x) -> Tensor", "illegal argument name"),
        ("foo(Tensor x, int x) -> Tensor", "duplicate argument name 'x'"),
        ("foo(Tenser x) -> Tensor", "unknown type 'Tenser'"),
        ("foo(int?? x) -> Tensor", "optional twice"),
        ('foo(str s="abc) -> Tensor', "unterminated string literal"),
        ("foo(int[2 x) -> Tensor", "unbalanced ')'"),
        ("foo(int x) -> (Tensor, int", "unclosed '('"),
        ("foo.(Tensor x) -> Tensor", "illegal overload name"),
        ("foo", "expected 'name(args) -> returns'"),
        ("foo(Tensor self) -> Tensor(a!)", "aliases no out argument and not self"),
        ("foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(b!)", "same alias annotation as return 0"),
        ("foo.out(Tensor x, *, Tensor(a!) out, Tensor(b!) out2) -> Tensor(a!)", "returns exactly its"),
        ("foo.out(Tensor x, *, Tensor(a!)[] out) -> Tensor(a!)[]", "must return ()"),
        ("foo_(Tensor self) -> Tensor", "needs a mutable self"),
        ("foo_(Tensor(a!) self) -> Tensor", "returns exactly self"),
        ("foo_(Tensor(a!)[] self) -> Tensor", "must return ()"),
        ("foo_.out(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(b!)", "both inplace and out"),
        ("foo.out(Tensor x, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
         "bool? pin_memory=None, Tensor(a!) out) -> Tensor(a!)", "tensor options"),  # fmt: skip
        ("foo.functional_out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)", "'functional' are for functional ops"),
        ("foo_functional_(Tensor(a!) self) -> Tensor(a!)", "cannot be inplace"),
        ("foo(Tensor(a!) x, Tensor(b!) self) -> ()", "before self is not supported"),
    ],
)
def test_bad_schema_raises_schema_error_with_reason(text: str, fragment: str) -> None:
    with pytest.raises(SchemaError) as info:
        FunctionSchema.parse(text)
    assert info.value.loc is None
    assert fragment in info.value.msg


def test_schema_error_text_starts_with_path_and_line() -> None:
    assert str(SchemaError(Location("a.yaml", 3), "bad")) == "a.yaml:3: bad"
    assert str(SchemaError(None, "bad")) == "bad"
    both = SchemaErrors([SchemaError(Location("a.yaml", 3), "x"), SchemaError(Location("a.yaml", 9), "y")])
    assert isinstance(both, SchemaError) and str(both) == "a.yaml:3: x\na.yaml:9: y"


def test_enums_parse_their_names_and_reject_others() -> None:
    cea_nf = DispatchKey.CompositeExplicitAutogradNonFunctional
    assert DispatchKey.parse("CompositeExplicitAutogradNonFunctional") is cea_nf
    assert Variant.parse("method") is Variant.method
    with pytest.raises(SchemaError, match="unknown variant 'mthod'; expected one of: function, method"):
        Variant.parse("mthod")
    with pytest.raises(SchemaError, match="unknown dispatch key 'GPU'"):
        DispatchKey.parse("GPU")
    assert len(BaseTy) == 19


# --- Property: random valid schemas round-trip ----------------------------------------------------

_identifiers = st.from_regex(r"[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,4})?", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s) and not s.endswith("_out") and "functional" not in s and not s.startswith("out")
)
_base_types = st.sampled_from(["Tensor", "int", "float", "bool", "SymInt", "Scalar", "ScalarType", "str", "Generator"])
_defaults = {"int": ["0", "-1", "2"], "SymInt": ["1"], "float": ["1.0", "1e-05"], "bool": ["True", "False"],
             "Scalar": ["1"], "ScalarType": ["long"], "str": ['"valid"', "'a, b'"]}  # fmt: skip


@st.composite
def _arg_texts(draw: st.DrawFn, name: str) -> str:
    base = draw(_base_types)
    type_text = base + draw(st.sampled_from(["", "", "[]", "[2]"]))
    optional = draw(st.booleans())
    type_text += "?" if optional else ""
    choices = (["None"] if optional else []) + (["[]", "[1,2]"] if "[" in type_text else _defaults.get(base, []))
    default = draw(st.sampled_from([None, *choices])) if choices else None
    return f"{type_text} {name}" + ("" if default is None else f"={default}")


@st.composite
def _schemas(draw: st.DrawFn) -> str:
    name = draw(_identifiers) + draw(st.sampled_from(["", ".Tensor", ".dim_IntList", ".x2"]))
    names = draw(st.lists(_identifiers, min_size=0, max_size=6, unique=True).filter(lambda ns: "self" not in ns))
    args = [draw(_arg_texts(n)) for n in names]
    if draw(st.booleans()):
        args.insert(0, "Tensor self")
    star = draw(st.integers(0, len(args)))
    kwargs = args[star:]
    n_out = draw(st.integers(0, 2))
    outs = [f"Tensor({'ab'[i]}!) out{i}" for i in range(n_out)]
    parts = args[:star] + (["*"] if kwargs or outs else []) + kwargs + outs
    if n_out:
        name = name.split(".")[0] + ".out"
        returns = [f"Tensor({'ab'[i]}!)" for i in range(n_out)]
    else:
        kinds = st.sampled_from(["Tensor", "int", "Tensor[]", "Tensor values", "bool flag"])
        returns = draw(st.lists(kinds, max_size=3))
    ret_text = returns[0] if len(returns) == 1 else f"({', '.join(returns)})"
    return f"{name}({', '.join(parts)}) -> {ret_text}"


@settings(max_examples=200, deadline=None, database=None)
@given(_schemas())
def test_random_valid_schemas_round_trip(text: str) -> None:
    parsed = FunctionSchema.parse(text)
    assert str(parsed) == text
    assert FunctionSchema.parse(str(parsed)) == parsed
    assert parsed.kind() in (SchemaKind.functional, SchemaKind.out)


# --- native_functions.yaml entries ----------------------------------------------------------------

TAGS_TEXT = "".join(f"- tag: {t}\n  desc: test tag {t}\n" for t in sorted(TAGS))


def write_yaml(tmp_path: Path, text: str) -> tuple[str, str]:
    path, tags_path = tmp_path / "native_functions.yaml", tmp_path / "tags.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    tags_path.write_text(TAGS_TEXT)
    return str(path), str(tags_path)


def yaml_errors(tmp_path: Path, text: str, **kwargs: bool) -> list[str]:
    path, tags_path = write_yaml(tmp_path, text)
    with pytest.raises(SchemaErrors) as info:
        parse_native_yaml(path, tags_path, **kwargs)
    assert all(isinstance(e, SchemaError) and e.loc is not None for e in info.value.errors)
    return str(info.value).splitlines()


def parse_one(text: str) -> tuple[object, ...]:
    (nf,) = parse_native_yaml_text(textwrap.dedent(text), tags=TAGS)
    return (nf.dispatch, nf.has_explicit_dispatch)


def test_entry_fields_are_read_with_defaults_and_location(tmp_path: Path) -> None:
    path, tags_path = write_yaml(
        tmp_path,
        """
        # a comment
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          variants: function, method
          structured_delegate: add.out
          tags: [core, pointwise]
          dispatch:
            SparseCPU, SparseMeta: add_sparse
            MkldnnCPU: mkldnn_add

        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          structured: True
          structured_inherits: TensorIteratorBase
          device_check: NoCheck
          cpp_no_default_args: ['alpha']
          precomputed:
          - dim -> int dim
          dispatch:
            CPU, CUDA: add_out
        """,
    )
    add, add_out = parse_native_yaml(path, tags_path)
    assert add.loc == Location(path, 2) and add_out.loc == Location(path, 10)
    assert add.variants == {Variant.function, Variant.method}
    assert add.tags == {"core", "pointwise"}
    assert add.structured_delegate == OperatorName.parse("add.out")
    assert add.dispatch == ((DispatchKey.SparseCPU, "add_sparse"), (DispatchKey.SparseMeta, "add_sparse"),
                            (DispatchKey.MkldnnCPU, "mkldnn_add"))  # fmt: skip
    assert add.dispatch_dict()[DispatchKey.MkldnnCPU] == "mkldnn_add"
    assert add.device_guard and add.python_module is None and add.pointwise is None
    assert add_out.structured and add_out.structured_inherits == "TensorIteratorBase"
    assert add_out.variants == {Variant.function} and add_out.device_check == "NoCheck"
    assert add_out.cpp_no_default_args == {"alpha"} and add_out.precomputed == ("dim -> int dim",)


def test_entry_without_dispatch_gets_an_implicit_composite_kernel_named_after_the_op() -> None:
    cia = DispatchKey.CompositeImplicitAutograd
    assert parse_one("- func: foo.Tensor(Tensor self) -> Tensor\n") == (((cia, "foo"),), False)
    assert parse_one("- func: foo_(Tensor(a!) self) -> Tensor(a!)\n") == (((cia, "foo_"),), False)
    assert parse_one("- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n") == (((cia, "foo_out"),), False)
    assert parse_one("- func: foo(Tensor self) -> Tensor\n  dispatch: {}\n") == ((), True)
    delegated = "- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n"
    assert parse_one(delegated) == ((), False)


def test_autogen_and_single_string_tags_are_accepted() -> None:
    (nf,) = parse_native_yaml_text(
        "- func: foo(Tensor self) -> Tensor\n  tags: core\n  autogen: foo.out, foo.x_out\n"
        "  dispatch:\n    CompositeExplicitAutograd: foo\n",
        tags=TAGS,
    )
    assert nf.tags == {"core"} and [str(n) for n in nf.autogen] == ["foo.out", "foo.x_out"]


def test_pointwise_entry_gets_generated_cpu_and_cuda_kernels() -> None:
    (nf,) = parse_native_yaml_text(
        """
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  tags: [core, pointwise]
  ember_pointwise:
    formula: self + alpha * other
    dtypes: AllAndBool
    promote: default
""",
        tags=TAGS,
    )
    assert nf.pointwise == PointwiseFormula("self + alpha * other", "AllAndBool", "default")
    assert nf.dispatch == ((DispatchKey.CPU, "add_Tensor_cpu"), (DispatchKey.CUDA, "add_Tensor_cuda"))
    assert not nf.has_explicit_dispatch


def test_pointwise_bool_input_checks_keep_all_before_any() -> None:
    (nf,) = parse_native_yaml_text(
        """
- func: sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  ember_pointwise:
    formula: self - alpha * other
    bool_inputs:
      any: one bool
      all: two bools
""",
        tags=TAGS,
    )
    assert nf.pointwise is not None
    assert nf.pointwise.bool_inputs == (("all", "two bools"), ("any", "one bool"))


@pytest.mark.parametrize("value", ["oops", "{some: message}", "{any: ''}"])
def test_bad_bool_inputs_reports_file_and_line(tmp_path: Path, value: str) -> None:
    text = f"- func: neg(Tensor self) -> Tensor\n  ember_pointwise:\n    formula: -self\n    bool_inputs: {value}\n"
    (line,) = yaml_errors(tmp_path, text)
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:4: ember_pointwise bool_inputs must map")


def test_pointwise_defaults_apply_and_calls_are_not_argument_names() -> None:
    functions = parse_native_yaml_text(
        "- func: exp(Tensor self) -> Tensor\n  ember_pointwise:\n    formula: exp(self) + max (self, 1.5e-3)\n"
        "  dispatch:\n    MPS: exp_mps\n"
    )
    (exp,) = functions
    assert exp.pointwise == PointwiseFormula("exp(self) + max (self, 1.5e-3)", "AllAndBool", "default")
    assert [k for k, _ in exp.dispatch] == [DispatchKey.MPS, DispatchKey.CPU, DispatchKey.CUDA]
    assert exp.has_explicit_dispatch


def test_opmath_names_the_backends_whose_kernels_compute_in_float32() -> None:
    (nf,) = parse_native_yaml_text(
        "- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo_cpu\n    CUDA: foo_cuda\n"
        "  ember_opmath: CPU, CUDA\n"
    )
    assert nf.opmath == {DispatchKey.CPU, DispatchKey.CUDA}


@pytest.mark.parametrize(("value", "fragment"), [
    ("CPU, CUDA", "ember_opmath names CUDA, which has no kernel in this entry's dispatch"),
    ("CompositeExplicitAutograd", "ember_opmath names backends (CPU, CUDA), not CompositeExplicitAutograd"),
    ("GPU", "unknown dispatch key 'GPU'"),
])  # fmt: skip
def test_opmath_naming_a_key_without_a_backend_kernel_reports_file_and_line(
        tmp_path: Path, value: str, fragment: str) -> None:
    text = f"- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo_cpu\n  ember_opmath: {value}\n"
    (line,) = yaml_errors(tmp_path, text)
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:4: ") and fragment in line


def test_autocast_declares_a_cast_policy_per_device() -> None:
    (nf, norm_dtype) = parse_native_yaml_text(
        "- func: foo(Tensor self, Scalar p=2) -> Tensor\n"
        "  ember_autocast: {CPU: lower_precision_fp, CUDA: fp32_append_dtype(foo.dtype)}\n"
        "- func: foo.dtype(Tensor self, Scalar? p, *, ScalarType dtype) -> Tensor\n"
    )
    assert [(p.device, p.policy, str(p.redispatch)) for p in nf.autocast] == [
        (DispatchKey.CPU, "lower_precision_fp", "None"), (DispatchKey.CUDA, "fp32_append_dtype", "foo.dtype")]
    assert norm_dtype.autocast == ()


@pytest.mark.parametrize(("func", "value", "fragment"), [
    ("foo(Tensor self) -> Tensor", "{CPU: fp16}", "unknown autocast policy 'fp16'"),
    ("foo(Tensor self) -> Tensor", "{MPS: fp32}", "ember_autocast names devices (CPU, CUDA), not MPS"),
    ("foo(Tensor self) -> Tensor", "{CUDA: fp32_set_opt_dtype}", "needs a `ScalarType? dtype` argument"),
    ("foo(Tensor self) -> Tensor", "{CUDA: fp32_append_dtype}", "fp32_append_dtype names the overload"),
    ("foo(Tensor self) -> Tensor", "{CUDA: fp32(foo.out)}", "no other policy names one"),
    ("foo_(Tensor(a!) self) -> Tensor(a!)", "{CUDA: fp32}", "applies to functional ops"),
])  # fmt: skip
def test_a_bad_autocast_entry_reports_file_and_line(tmp_path: Path, func: str, value: str, fragment: str) -> None:
    (line,) = yaml_errors(tmp_path, f"- func: {func}\n  ember_autocast: {value}\n")
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:") and fragment in line


def test_storage_dtypes_say_how_the_kernels_serve_float8_and_the_unsigned_types() -> None:
    (nf,) = parse_native_yaml_text(
        "- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo_cpu\n"
        "  ember_storage_dtypes: {float8: bits, unsigned: order}\n"
    )
    assert nf.storage == (("float8", "bits"), ("unsigned", "order"))


@pytest.mark.parametrize(("value", "fragment"), [
    ("{float16: widen}", "ember_storage_dtypes names dtype groups (float8, unsigned, complex), not 'float16'"),
    ("{float8: promote}", "float8: unknown mode 'promote'; expected one of: widen, bits"),
])  # fmt: skip
def test_a_bad_storage_dtypes_entry_reports_file_and_line(tmp_path: Path, value: str, fragment: str) -> None:
    text = f"- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo_cpu\n  ember_storage_dtypes: {value}\n"
    (line,) = yaml_errors(tmp_path, text)
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:4: ") and fragment in line


_NORM = ("- func: foo(Tensor input, Tensor? weight, Tensor? bias) -> (Tensor, Tensor)\n  dispatch:\n"
         "    CPU: foo_cpu\n")


def test_opmath_mixed_names_the_float32_operands_and_the_results_kept_in_float32() -> None:
    (nf,) = parse_native_yaml_text(_NORM + "  ember_opmath: CPU\n"
                                   "  ember_opmath_mixed: {params: [weight, bias], float_results: [1]}\n")
    assert nf.opmath_mixed == (("weight", "bias"), (1,))


@pytest.mark.parametrize(("value", "fragment"), [
    ("{params: [running_mean]}", "'running_mean' is not a tensor argument of foo"),
    ("{params: [weight], float_results: [2]}", "float_results lists positions of foo's 2 results"),
    ("{float_results: [1]}", "ember_opmath_mixed holds params"),
])  # fmt: skip
def test_a_bad_opmath_mixed_entry_reports_file_and_line(tmp_path: Path, value: str, fragment: str) -> None:
    text = _NORM + f"  ember_opmath: CPU\n  ember_opmath_mixed: {value}\n"
    (line,) = yaml_errors(tmp_path, text)
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:") and fragment in line
    (line,) = yaml_errors(tmp_path, _NORM + "  ember_opmath_mixed: {params: [weight]}\n")
    assert "ember_opmath_mixed needs ember_opmath" in line


def test_a_pointwise_float8_value_must_name_how_the_loops_compute(tmp_path: Path) -> None:
    text = "- func: foo(Tensor self) -> Tensor\n  ember_pointwise:\n    formula: self\n    float8: bytes\n"
    (line,) = yaml_errors(tmp_path, text)
    assert "unknown ember_pointwise float8 'bytes'; expected one of: float32, bits" in line


# --- native_functions.yaml errors: every one reported, each with path:line ------------------------


def test_unknown_schema_key_reports_file_and_line_and_lists_valid_keys(tmp_path: Path) -> None:
    (line,) = yaml_errors(tmp_path, "- func: foo(Tensor self) -> Tensor\n  dispach:\n    CPU: foo_cpu\n")
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:2: unknown key 'dispach'; valid keys are: ")
    assert "dispatch" in line and "ember_pointwise" in line


def test_extension_key_is_unknown_when_extensions_are_disallowed(tmp_path: Path) -> None:
    text = "- func: foo(Tensor self) -> Tensor\n  ember_pointwise:\n    formula: self\n"
    (line,) = yaml_errors(tmp_path, text, allow_extension_keys=False)
    assert ":2: unknown key 'ember_pointwise'" in line


def test_unknown_tag_reports_file_and_line(tmp_path: Path) -> None:
    (line,) = yaml_errors(tmp_path, "- func: foo(Tensor self) -> Tensor\n\n  tags: [core, pointwize]\n")
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:3: unknown tag 'pointwize'; tags.yaml defines: ")


def test_unknown_dispatch_key_reports_the_line_of_that_key(tmp_path: Path) -> None:
    (line,) = yaml_errors(
        tmp_path, "- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo_cpu\n    CUDA, GPU: foo_gpu\n"
    )
    assert line.startswith(f"{tmp_path / 'native_functions.yaml'}:4: unknown dispatch key 'GPU'; expected one of: CPU,")


def test_duplicate_func_reports_the_second_definition_and_the_first(tmp_path: Path) -> None:
    path = tmp_path / "native_functions.yaml"
    (line,) = yaml_errors(
        tmp_path, "- func: foo(Tensor self) -> Tensor\n\n- func: foo(Tensor self, int x) -> Tensor\n"
    )
    assert line == f"{path}:3: duplicate func 'foo' (first defined at {path}:1)"


def test_bad_schema_reports_the_func_line_and_the_parser_reason(tmp_path: Path) -> None:
    (line,) = yaml_errors(tmp_path, "- func: foo(Tensor self) -> Tensor\n- func: bar(int) -> Tensor\n")
    path = tmp_path / "native_functions.yaml"
    assert line == f"{path}:2: illegal argument 'int': expected '<type> <name>[=<default>]'"


@pytest.mark.parametrize(
    ("body", "line", "fragment"),
    [
        ("  ember_pointwise:\n    formula: self + other\n    dtype: All\n", 5, "unknown ember_pointwise key 'dtype'"),
        ("  ember_pointwise:\n    formula: self + other\n    dtypes: Complex\n", 5, "unknown ember_pointwise dtypes"),
        ("  ember_pointwise:\n    formula: self\n    promote: never\n", 5, "unknown ember_pointwise promote 'never'"),
        ("  ember_pointwise:\n    dtypes: All\n", 3, "needs a non-empty 'formula'"),
        ("  ember_pointwise:\n    formula: self + beta * other\n", 4,
         "unknown name 'beta'; the arguments are: self, other, alpha"),  # fmt: skip
        ("  ember_pointwise: self + other\n", 3, "'ember_pointwise' must be a mapping"),
        ("  dispatch:\n    CPU: foo_cpu\n  ember_pointwise:\n    formula: self\n", 3,
         "ember_pointwise generates the CPU kernel"),  # fmt: skip
    ],
)
def test_bad_ember_pointwise_reports_file_and_line(tmp_path: Path, body: str, line: int, fragment: str) -> None:
    text = "- func: foo.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  tags: pointwise\n" + body
    (error,) = yaml_errors(tmp_path, text)
    assert error.startswith(f"{tmp_path / 'native_functions.yaml'}:{line}: ") and fragment in error


@pytest.mark.parametrize(
    "func",
    [
        "foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "foo(Tensor self, int[] dim) -> Tensor",
        "foo(Tensor self, Tensor? other) -> Tensor",
        "foo(Tensor self) -> (Tensor, Tensor)",
        "foo(Scalar self) -> Tensor",
    ],
)
def test_ember_pointwise_rejects_schemas_that_are_not_plain_tensor_maps(tmp_path: Path, func: str) -> None:
    (error,) = yaml_errors(tmp_path, f"- func: {func}\n  ember_pointwise:\n    formula: self\n")
    assert ":2: ember_pointwise needs a functional op whose arguments are plain Tensor" in error


@pytest.mark.parametrize(
    ("body", "line", "fragment"),
    [
        ("- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  variants: function, method\n", 2,
         "out= functions must have 'variants: function' only"),
        ("- func: foo(Tensor self) -> Tensor\n  variants: funcion\n", 2, "unknown variant 'funcion'"),
        ("- func: foo(Tensor self) -> Tensor\n  structured: True\n", 2, "put 'structured: True' on the out= variant"),
        ("- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured_delegate: foo.x\n", 2,
         "structured_delegate is not allowed on out= ops"),
        ("- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n  device_guard: False\n", 3,
         "device_guard: False"),
        ("- func: foo(Tensor self) -> Tensor\n  structured_inherits: TensorIteratorBase\n", 2,
         "structured_inherits requires 'structured: True'"),
        ("- func: foo(Tensor self) -> Tensor\n  precomputed:\n  - dim -> int dim\n", 2,
         "precomputed requires 'structured: True'"),
        ("- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n"
         "  ufunc_inner_loop:\n    Generic: foo (All)\n  dispatch:\n    CPU: foo_out\n", 5,
         "ufunc_inner_loop generates the CPU and CUDA kernels"),
        ("- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n  dispatch:\n    CUDA: foo_cuda\n", 3,
         "CUDA must not be in dispatch"),
        ("- func: foo(Tensor self, int x=0) -> Tensor\n  cpp_no_default_args: ['dim']\n", 2,
         "cpp_no_default_args names 'dim', which has no default"),
        ("- func: _foreach_foo(Tensor[] self) -> Tensor[]\n", 1, "_foreach ops must say 'device_check: NoCheck'"),
        ("- func: foo(Tensor self) -> Tensor\n  device_check: Sometimes\n", 2, "unknown device_check 'Sometimes'"),
        ("- func: my_rand(Tensor self) -> Tensor\n", 1, "need tag nondeterministic_seeded"),
        ("- func: foo(Tensor self, *, Generator? generator=None) -> Tensor\n", 1, "need tag nondeterministic_seeded"),
        ("- func: foo(Tensor self) -> Tensor\n  variants: method\n  python_module: nn\n", 3,
         "functions in a python_module cannot be methods"),
        ("- func: foo(Tensor self) -> Tensor\n  manual_kernel_registration: True\n  dispatch:\n    CPU: foo\n", 3,
         "manual_kernel_registration and dispatch exclude each other"),
        ("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicitAutograd: foo\n", 2,
         "unnecessary dispatch table"),
        ("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicitAutograd: foo\n"
         "    CompositeExplicitAutograd: foo2\n", 2,
         "at most one of CompositeExplicitAutograd, CompositeImplicitAutograd"),
        ("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    Autograd: foo\n", 3, "is runtime-only"),
        ("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo\n    CPU, CUDA: foo2\n", 4, "listed twice"),
        ("- func: foo(Tensor self, int lambda) -> Tensor\n", 1, "argument name 'lambda' is a Python keyword"),
        ("- func: foo(Tensor self) -> Tensor\n  device_guard: no thanks\n", 2, "'device_guard' must be a boolean"),
        ("- func: foo(Tensor self) -> Tensor\n  structured: 1\n", 2, "'structured' must be a boolean"),
        ("- func: foo(Tensor self) -> Tensor\n  variants: [function]\n", 2, "'variants' must be a string"),
        ("- func: foo(Tensor self) -> Tensor\n  tags: [core, 3]\n", 2, "'tags' must be a string or a list of strings"),
        ("- func: foo(Tensor self) -> Tensor\n  dispatch: [CPU]\n", 2, "'dispatch' must be a mapping"),
        ("- func: foo(Tensor self) -> Tensor\n  autogen: foo_out\n", 2, "_out suffix is reserved"),
        ("- func: [foo]\n", 1, "each entry needs 'func: <schema string>', got ['foo']"),
        ("- variants: function\n", 1, "each entry needs 'func: <schema string>', got None"),
        ("- func:\n", 1, "each entry needs 'func: <schema string>', got None"),
        ("- func: foo(Tensor self) -> Tensor\n  func: bar(Tensor self) -> Tensor\n", 2, "duplicate key 'func'"),
    ],
)  # fmt: skip
def test_entry_rule_violation_reports_file_and_line(tmp_path: Path, body: str, line: int, fragment: str) -> None:
    errors = yaml_errors(tmp_path, body)
    assert any(e.startswith(f"{tmp_path / 'native_functions.yaml'}:{line}: ") and fragment in e for e in errors), errors


def test_legacy_ops_may_keep_an_argument_named_from() -> None:
    text = "- func: uniform_(Tensor(a!) self, float from=0, float to=1) -> Tensor(a!)\n  dispatch:\n    CPU: uniform_\n"
    (nf,) = parse_native_yaml_text(text)
    assert nf.func.arguments.flat_all[1].name == "from"


def test_several_errors_in_one_file_are_all_reported(tmp_path: Path) -> None:
    errors = yaml_errors(
        tmp_path,
        """
        - func: ok(Tensor self) -> Tensor

        - func: bad(int) -> Tensor

        - func: foo(Tensor self) -> Tensor
          tags: nope
          colour: red

        - func: ok(Tensor self) -> Tensor
        """,
    )
    lines = [e.split(": ", 1)[0].rsplit(":", 1)[1] for e in errors]
    assert lines == ["3", "6", "7", "9"]
    assert "unknown tag 'nope'" in errors[1] and "unknown key 'colour'" in errors[2]
    assert "duplicate func 'ok'" in errors[3]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("- func: foo(Tensor self) -> Tensor\n  tags: [core\n- func: bar\n", 3, "invalid YAML"),
        ("- func: foo(Tensor self) -> Tensor\n\tdispatch: {}\n", 2, "invalid YAML"),
        ("func: foo(Tensor self) -> Tensor\n", 1, "expected a YAML list of entries"),
        ("", 1, "expected a YAML list of entries"),
        ("- func: foo(Tensor self) -> Tensor\n- just a string\n", 2, "expected a mapping with a 'func' key"),
    ],
)
def test_malformed_yaml_reports_file_and_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    (error,) = yaml_errors(tmp_path, text)
    assert error.startswith(f"{tmp_path / 'native_functions.yaml'}:{line}: ") and fragment in error


def test_tags_yaml_entries_need_a_tag_and_a_description(tmp_path: Path) -> None:
    path = tmp_path / "tags.yaml"
    path.write_text("- tag: core\n  desc: ok\n- tag: pointwise\n- tag: core\n  desc: again\n  colour: red\n")
    with pytest.raises(SchemaErrors) as info:
        parse_tags_yaml(str(path))
    assert str(info.value).splitlines() == [
        f"{path}:3: each tag needs a 'tag' name and a 'desc' string",
        f"{path}:4: duplicate tag 'core'",
        f"{path}:6: unknown key 'colour'; valid keys are: desc, tag",
    ]


def test_tags_are_not_validated_without_a_tags_file() -> None:
    (nf,) = parse_native_yaml_text("- func: foo(Tensor self) -> Tensor\n  tags: anything\n")
    assert nf.tags == {"anything"}
