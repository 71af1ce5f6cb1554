"""The `schemas` check: PyTorch's schema backward-compatibility rules over the manifest."""
import datetime
import re
from pathlib import Path

import pytest

from architecture.findings import CHECK_BITS, ERROR, NOTE, exit_status
from architecture.schema_compat import (
    ALLOWLIST_PATH,
    UPDATE_COMMAND,
    SchemaAllow,
    breaking_reasons,
    compare_schemas,
    parse_allowlist,
)
from torchgen.model import FunctionSchema

UPSTREAM = Path("/work/shared/upstream/native_functions.yaml")
MANIFEST = "architecture/surfaces/schemas.txt"
YAML = "aten/native/native_functions.yaml"
TODAY = datetime.date(2025, 6, 1)


def reasons(old: str, new: str) -> list[str]:
    return breaking_reasons(FunctionSchema.parse(old), FunctionSchema.parse(new))


def compare(old, new, allow=(), today=TODAY):
    """``new`` is a list of func strings; the i-th sits at line 10*(i+1) of the yaml."""
    current = {text: (YAML, 10 * (i + 1)) for i, text in enumerate(new)}
    return compare_schemas(old, current, list(allow), manifest_path=MANIFEST, today=today)


def rules(findings):
    return [(f.rule, f.severity) for f in findings]


# --- Compatible changes ---------------------------------------------------------------------------

COMPATIBLE = {
    "identical": ("foo(Tensor self, int dim=0) -> Tensor", "foo(Tensor self, int dim=0) -> Tensor"),
    "added_trailing_arg_with_default": ("foo(Tensor self) -> Tensor", "foo(Tensor self, int dim=0) -> Tensor"),
    "added_kwarg_only_arg_with_default": (
        "foo(Tensor self, *, int a=1) -> Tensor",
        "foo(Tensor self, *, int a=1, bool b=False) -> Tensor",
    ),
    "added_first_kwarg_only_arg_with_default": ("foo(Tensor self) -> Tensor", "foo(Tensor self, *, int a=1) -> Tensor"),
    "widened_int_to_optional": ("foo(Tensor self, int dim) -> Tensor", "foo(Tensor self, int? dim) -> Tensor"),
    "widened_tensor_to_optional": ("foo(Tensor self, Tensor other) -> Tensor", "foo(Tensor self, Tensor? other) -> Tensor"),
    "widened_int_to_symint": ("foo(Tensor self, int n) -> Tensor", "foo(Tensor self, SymInt n) -> Tensor"),
    "widened_int_list_to_symint_list": ("foo(Tensor self, int[] size) -> Tensor", "foo(Tensor self, SymInt[] size) -> Tensor"),
    "widened_sized_int_list_to_symint_list": (
        "foo(Tensor self, int[2] size) -> Tensor",
        "foo(Tensor self, SymInt[2] size) -> Tensor",
    ),
    "widened_optional_int_to_optional_symint": ("foo(Tensor self, int? n) -> Tensor", "foo(Tensor self, SymInt? n) -> Tensor"),
    "widened_int_to_scalar": ("foo(Tensor self, int other) -> Tensor", "foo(Tensor self, Scalar other) -> Tensor"),
    "widened_bool_to_symbool": ("foo(Tensor self, bool b) -> Tensor", "foo(Tensor self, SymBool b) -> Tensor"),
    "widened_with_default_kept": ("foo(Tensor self, int dim=0) -> Tensor", "foo(Tensor self, int? dim=0) -> Tensor"),
    "default_added_to_required_arg": ("foo(Tensor self, int dim) -> Tensor", "foo(Tensor self, int dim=0) -> Tensor"),
    "default_respaced": ("foo(Tensor self, int[] dims=[0,1]) -> Tensor", "foo(Tensor self, int[] dims=[0, 1]) -> Tensor"),
    "kwarg_only_made_positional": ("foo(Tensor self, *, int a=1) -> Tensor", "foo(Tensor self, int a=1) -> Tensor"),
    "return_made_more_specific": ("foo(Tensor self) -> Tensor?", "foo(Tensor self) -> Tensor"),
    "out_overload_gains_arg_before_out": (
        "foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "foo.out(Tensor self, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    ),
    "out_overload_gains_kwarg_before_out": (
        "foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "foo.out(Tensor self, *, bool keepdim=False, Tensor(a!) out) -> Tensor(a!)",
    ),
}


@pytest.mark.parametrize("old,new", COMPATIBLE.values(), ids=COMPATIBLE.keys())
def test_compatible_change_has_no_breaking_reasons(old, new):
    assert reasons(old, new) == []


# --- Breaking changes -----------------------------------------------------------------------------

BREAKING = {
    "renamed_operator": ("foo(Tensor self) -> Tensor", "bar(Tensor self) -> Tensor", "operator renamed from foo to bar"),
    "renamed_overload": (
        "foo.Tensor(Tensor self) -> Tensor",
        "foo.Scalar(Tensor self) -> Tensor",
        "overload name changed from 'Tensor' to 'Scalar'",
    ),
    "renamed_argument": (
        "foo(Tensor self, int dim) -> Tensor",
        "foo(Tensor self, int axis) -> Tensor",
        "argument 1 'dim' was removed or renamed ('axis' is in its place now)",
    ),
    "removed_argument": (
        "foo(Tensor self, int dim=0) -> Tensor",
        "foo(Tensor self) -> Tensor",
        "the schema has fewer arguments: 2 before, 1 now",
    ),
    "removed_middle_argument": (
        "foo(Tensor self, int a=0, int b=0) -> Tensor",
        "foo(Tensor self, int b=0, int c=0) -> Tensor",
        "argument 1 'a' was removed or renamed ('b' is in its place now)",
    ),
    "reordered_arguments": (
        "foo(Tensor self, int a, int b) -> Tensor",
        "foo(Tensor self, int b, int a) -> Tensor",
        "argument 1 'a' moved to position 2 ('b' is in its place now)",
    ),
    "inserted_defaulted_arg_before_existing": (
        "foo(Tensor self, Tensor other) -> Tensor",
        "foo(Tensor self, int alpha=1, Tensor other) -> Tensor",
        "argument 1 'other' moved to position 2 ('alpha' is in its place now)",
    ),
    "inserted_positional_before_kwarg_only": (
        "foo(Tensor self, *, int a=1) -> Tensor",
        "foo(Tensor self, int b=0, *, int a=1) -> Tensor",
        "argument 1 'a' moved to position 2 ('b' is in its place now)",
    ),
    "added_required_argument": (
        "foo(Tensor self) -> Tensor",
        "foo(Tensor self, int dim) -> Tensor",
        "argument 1 'dim' was added without a default; existing callers do not pass it",
    ),
    "added_required_kwarg_only_argument": (
        "foo(Tensor self, *, int a=1) -> Tensor",
        "foo(Tensor self, *, int a=1, int b) -> Tensor",
        "argument 2 'b' was added without a default; existing callers do not pass it",
    ),
    "narrowed_optional_int": (
        "foo(Tensor self, int? dim) -> Tensor",
        "foo(Tensor self, int dim) -> Tensor",
        "argument 1 'dim': type narrowed from int? to int; not every old value is accepted",
    ),
    "narrowed_optional_tensor": (
        "foo(Tensor self, Tensor? w) -> Tensor",
        "foo(Tensor self, Tensor w) -> Tensor",
        "argument 1 'w': type narrowed from Tensor? to Tensor; not every old value is accepted",
    ),
    "narrowed_symint_to_int": (
        "foo(Tensor self, SymInt n) -> Tensor",
        "foo(Tensor self, int n) -> Tensor",
        "argument 1 'n': type narrowed from SymInt to int; not every old value is accepted",
    ),
    "narrowed_symint_list_to_int_list": (
        "foo(Tensor self, SymInt[] size) -> Tensor",
        "foo(Tensor self, int[] size) -> Tensor",
        "argument 1 'size': type narrowed from SymInt[] to int[]; not every old value is accepted",
    ),
    "narrowed_scalar_to_int": (
        "foo(Tensor self, Scalar other) -> Tensor",
        "foo(Tensor self, int other) -> Tensor",
        "argument 1 'other': type narrowed from Scalar to int; not every old value is accepted",
    ),
    "changed_type_unrelated": (
        "foo(Tensor self, int n) -> Tensor",
        "foo(Tensor self, float n) -> Tensor",
        "argument 1 'n': type changed from int to float; not every old value is accepted",
    ),
    "list_element_made_optional": (
        "foo(Tensor[] tensors) -> Tensor",
        "foo(Tensor?[] tensors) -> Tensor",
        "argument 0 'tensors': type changed from Tensor[] to Tensor?[]; not every old value is accepted",
    ),
    "changed_list_size": (
        "foo(Tensor self, int[2] stride) -> Tensor",
        "foo(Tensor self, int[3] stride) -> Tensor",
        "argument 1 'stride': list size changed from 2 to 3",
    ),
    "sized_list_unsized": (
        "foo(Tensor self, int[2] stride) -> Tensor",
        "foo(Tensor self, int[] stride) -> Tensor",
        "argument 1 'stride': list size changed from 2 to unsized",
    ),
    "changed_default": (
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2) -> Tensor",
        "argument 2 'alpha': default changed from 1 to 2",
    ),
    "removed_default": (
        "foo(Tensor self, int dim=0) -> Tensor",
        "foo(Tensor self, int dim) -> Tensor",
        "argument 1 'dim': default 0 was removed",
    ),
    "made_keyword_only": (
        "foo(Tensor self, int dim=0) -> Tensor",
        "foo(Tensor self, *, int dim=0) -> Tensor",
        "argument 1 'dim' became keyword-only; callers passing it by position break",
    ),
    "dropped_mutability": (
        "foo.m(Tensor self, Tensor(a!) buf) -> ()",
        "foo.m(Tensor self, Tensor buf) -> ()",
        "argument 1 'buf': alias annotation changed from (a!) to none",
    ),
    "added_mutability": (
        "foo.m(Tensor self, Tensor buf) -> ()",
        "foo.m(Tensor self, Tensor(a!) buf) -> ()",
        "argument 1 'buf': alias annotation changed from none to (a!)",
    ),
    "dropped_view_alias": (
        "foo(Tensor(a) self) -> Tensor(a)",
        "foo(Tensor self) -> Tensor",
        "return 0: alias annotation changed from (a) to none",
    ),
    "changed_number_of_returns": (
        "foo(Tensor self) -> Tensor",
        "foo(Tensor self) -> (Tensor, Tensor)",
        "number of returns changed from 1 to 2",
    ),
    "widened_return": (
        "foo(Tensor self) -> Tensor",
        "foo(Tensor self) -> Tensor?",
        "return 0: return type widened from Tensor to Tensor?; callers may get values they do not expect",
    ),
    "renamed_return": (
        "foo(Tensor self) -> (Tensor values, Tensor indices)",
        "foo(Tensor self) -> (Tensor vals, Tensor indices)",
        "return 0 'values': name changed from values to vals",
    ),
    "renamed_out_argument": (
        "foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "foo.out(Tensor self, *, Tensor(a!) result) -> Tensor(a!)",
        "argument 1 'out' was removed or renamed ('result' is in its place now)",
    ),
    "removed_out_argument": (
        "foo.out(Tensor self, *, Tensor(a!) v, Tensor(b!) i) -> (Tensor(a!), Tensor(b!))",
        "foo.out(Tensor self, int a=0, int b=0, *, Tensor(a!) v) -> Tensor(a!)",
        "out argument 2 'i' was removed",
    ),
}


@pytest.mark.parametrize("old,new,reason", BREAKING.values(), ids=BREAKING.keys())
def test_breaking_change_is_explained(old, new, reason):
    assert reason in reasons(old, new)


def test_every_problem_of_one_argument_is_listed():
    found = reasons("foo(Tensor self, int dim=0) -> Tensor", "foo(Tensor self, *, float dim=1) -> Tensor")
    assert found == [
        "argument 1 'dim' became keyword-only; callers passing it by position break",
        "argument 1 'dim': type changed from int to float; not every old value is accepted",
        "argument 1 'dim': default changed from 0 to 1",
    ]


def test_reason_indexes_count_all_arguments_from_zero():
    assert reasons(
        "foo(Tensor self, int a, *, int b=0, Tensor(a!) out) -> Tensor(a!)",
        "foo(Tensor self, int a, *, int b=1, Tensor(a!) out) -> Tensor(a!)",
    ) == ["argument 2 'b': default changed from 0 to 1"]


# --- Allowlist parsing ----------------------------------------------------------------------------


def test_allowlist_parses_names_reasons_and_dates():
    parsed = parse_allowlist([
        {"name": "add.Tensor", "reason": "  alpha became kw-only  "},
        {"name": "aten::sub.*", "reason": "r", "until": "2025-12-31"},
        {"name": "mul", "reason": "r", "until": datetime.date(2026, 1, 1)},
        {"name": "div", "reason": "r", "until": datetime.datetime(2026, 1, 2, 3, 4)},
    ])
    assert parsed == [
        SchemaAllow("add.Tensor", "alpha became kw-only"),
        SchemaAllow("aten::sub.*", "r", datetime.date(2025, 12, 31)),
        SchemaAllow("mul", "r", datetime.date(2026, 1, 1)),
        SchemaAllow("div", "r", datetime.date(2026, 1, 2)),
    ]


@pytest.mark.parametrize(
    "entry,message",
    [
        ({"name": "add.Tensor"}, "non-empty 'reason' is required"),
        ({"name": "add.Tensor", "reason": "   "}, "non-empty 'reason' is required"),
        ({"reason": "r"}, "'name' must be a non-empty"),
        ({"name": "add.Tensor", "reason": "r", "until": "next year"}, "'until' must be a date written YYYY-MM-DD"),
        ({"name": "add.Tensor", "reason": "r", "until": 2025}, "'until' must be a date"),
        ({"name": "add(", "reason": "r"}, "nor a valid regex"),
        ({"name": "add", "reason": "r", "expires": "2025-01-01"}, "unknown key(s) expires"),
        ("add.Tensor", "expected a mapping"),
    ],
)
def test_bad_allowlist_entry_is_a_clear_value_error(entry, message):
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        parse_allowlist([{"name": "ok", "reason": "fine"}, entry])
    assert "entry 2" in str(info.value)


def test_allowlist_that_is_not_a_list_is_rejected():
    with pytest.raises(ValueError, match="must be a list"):
        parse_allowlist({"name": "add", "reason": "r"})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["add.Tensor", "aten::add.Tensor", r"add\..*", r"aten::add\.(Tensor|Scalar)"])
def test_allowlist_name_matches_with_or_without_namespace_or_as_regex(name):
    assert SchemaAllow(name, "r").matches("add.Tensor")


@pytest.mark.parametrize("name", ["add", "add.Scalar", "add.Tensor_out", "other::add.Tensor", "dd.Tensor"])
def test_allowlist_name_does_not_match_other_operators(name):
    assert not SchemaAllow(name, "r").matches("add.Tensor")


def test_allowlist_entry_is_valid_through_its_until_day():
    entry = SchemaAllow("add", "r", TODAY)
    assert not entry.expired(TODAY)
    assert entry.expired(TODAY + datetime.timedelta(days=1))
    assert not SchemaAllow("add", "r").expired(datetime.date(9999, 12, 31))


# --- The check over the manifest ------------------------------------------------------------------

ADD = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
ADD_ALPHA_2 = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2) -> Tensor"
ADD_DIM = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1, int dim=0) -> Tensor"
NEG = "neg(Tensor self) -> Tensor"
NEG_OUT = "neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"
RELU = "relu(Tensor self) -> Tensor"


def test_unchanged_manifest_has_no_findings():
    assert compare([ADD, NEG], [NEG, ADD]) == []


def test_compatible_change_is_a_note_at_the_new_entry():
    [finding] = compare([NEG, ADD], [NEG, ADD_DIM])
    assert (finding.check, finding.rule, finding.severity) == ("schemas", "changed-compatible", NOTE)
    assert (finding.path, finding.line) == (YAML, 20)
    assert ADD in finding.message and ADD_DIM in finding.message
    assert UPDATE_COMMAND in finding.fix


def test_incompatible_change_is_an_error_at_the_new_entry():
    [finding] = compare([NEG, ADD], [ADD_ALPHA_2, NEG])
    assert (finding.check, finding.rule, finding.severity) == ("schemas", "incompatible", ERROR)
    assert finding.location == f"{YAML}:10"
    assert "add.Tensor" in finding.message
    assert ADD in finding.message and ADD_ALPHA_2 in finding.message
    assert "argument 2 'alpha': default changed from 1 to 2" in finding.message
    assert finding.fix == (
        "keep the old signature (add new arguments at the end with defaults), or add `add.Tensor` with a reason "
        f"to {ALLOWLIST_PATH} under `schemas:` if the break is intended; then `python -m architecture surfaces --update`"
    )
    assert finding.extra["reasons"] == ["argument 2 'alpha': default changed from 1 to 2"]
    assert exit_status([finding]) == CHECK_BITS["schemas"]


def test_each_reason_is_named_in_the_error():
    [finding] = compare(["foo(Tensor self, int a=0) -> Tensor"], ["foo(Tensor self, *, int? a=1) -> Tensor"])
    assert "became keyword-only" in finding.message and "default changed from 0 to 1" in finding.message


def test_removed_operator_is_an_error_at_its_manifest_line():
    found = compare([ADD, NEG, RELU], [ADD, RELU])
    assert rules(found) == [("removed", ERROR)]
    assert (found[0].check, found[0].path, found[0].line) == ("schemas", MANIFEST, 2)
    assert "neg" in found[0].message and NEG in found[0].message


def test_removed_overload_is_an_error_even_when_others_remain():
    found = compare([NEG, NEG_OUT], [NEG])
    assert rules(found) == [("removed", ERROR)]
    assert found[0].line == 2 and "neg.out" in found[0].message


def test_renamed_operator_is_a_removal_and_an_addition():
    found = compare([RELU], ["relu_fwd(Tensor self) -> Tensor"])
    assert rules(found) == [("removed", ERROR), ("added", NOTE)]


def test_added_operator_is_a_note_at_its_yaml_line():
    found = compare([NEG], [NEG, RELU])
    assert rules(found) == [("added", NOTE)]
    assert (found[0].check, found[0].path, found[0].line) == ("schemas", YAML, 20)
    assert "relu" in found[0].message
    assert exit_status(found) == 0


def test_new_out_overload_is_only_an_addition():
    found = compare([NEG], [NEG, NEG_OUT])
    assert rules(found) == [("added", NOTE)]
    assert "neg.out" in found[0].message


def test_unparseable_manifest_entry_is_an_error_at_its_line():
    found = compare([NEG, "neg.bad(Tensor self -> Tensor", ADD], [NEG, ADD])
    assert rules(found) == [("unparseable", ERROR)]
    assert (found[0].path, found[0].line) == (MANIFEST, 2)


def test_unparseable_manifest_entry_does_not_make_its_operator_look_added():
    found = compare(["relu(Tensor self, int) -> Tensor"], [RELU])
    assert rules(found) == [("unparseable", ERROR)]


@pytest.mark.parametrize("name", ["add.Tensor", "aten::add.Tensor", r"add\..*"])
def test_allowlisted_break_is_a_note_with_its_reason(name):
    allow = [SchemaAllow(name, "alpha now defaults to 2 like upstream", TODAY)]
    [finding] = compare([ADD], [ADD_ALPHA_2], allow)
    assert (finding.rule, finding.severity, finding.line) == ("allowed", NOTE, 10)
    assert "alpha now defaults to 2 like upstream" in finding.message
    assert "default changed from 1 to 2" in finding.message
    assert exit_status([finding]) == 0


def test_allowlisted_removal_is_a_note():
    found = compare([ADD, NEG], [ADD], [SchemaAllow("neg", "folded into mul")])
    assert rules(found) == [("allowed", NOTE)]
    assert (found[0].path, found[0].line) == (MANIFEST, 2)
    assert found[0].extra["breaks"] == "removed"


def test_allowlist_entry_for_another_operator_excuses_nothing():
    found = compare([ADD], [ADD_ALPHA_2], [SchemaAllow("add.Scalar", "other")])
    assert rules(found) == [("incompatible", ERROR)]


def test_expired_allowlist_entry_no_longer_excuses_and_is_reported():
    allow = [SchemaAllow("add.Tensor", "temporary", datetime.date(2025, 5, 31))]
    found = compare([ADD], [ADD_ALPHA_2], allow)
    assert rules(found) == [("incompatible", ERROR), ("allow-expired", NOTE)]
    assert "expired on 2025-05-31" in found[0].message
    assert found[1].check == "schemas" and found[1].path == ALLOWLIST_PATH
    assert "add.Tensor" in found[1].message and "temporary" in found[1].message


def test_expired_allowlist_entry_is_reported_even_when_unused():
    found = compare([NEG], [NEG], [SchemaAllow("gone", "old", datetime.date(2020, 1, 1))])
    assert rules(found) == [("allow-expired", NOTE)]


def test_today_defaults_to_the_real_date():
    allow = [SchemaAllow("add.Tensor", "far future", datetime.date(9999, 12, 31))]
    found = compare_schemas([ADD], {ADD_ALPHA_2: (YAML, 3)}, allow, manifest_path=MANIFEST)
    assert rules(found) == [("allowed", NOTE)]


def test_every_finding_belongs_to_the_schemas_check_and_renders():
    found = compare(
        [ADD, NEG, "x(", RELU],
        [ADD_ALPHA_2, RELU, NEG_OUT],
        [SchemaAllow("relu", "r", datetime.date(2000, 1, 1))],
    )
    assert {f.check for f in found} == {"schemas"}
    assert {f.rule for f in found} == {"incompatible", "removed", "unparseable", "added", "allow-expired"}
    for f in found:
        assert f"[schemas/{f.rule}]" in f.render()
        assert f.to_json()["check"] == "schemas"


# --- Upstream round trip --------------------------------------------------------------------------


def upstream_schemas() -> list[str]:
    return [m.group(1) for line in UPSTREAM.read_text().splitlines() if (m := re.match(r"- func: (.*)$", line))]


@pytest.mark.skipif(not UPSTREAM.exists(), reason="needs the upstream native_functions.yaml")
def test_every_upstream_schema_is_backward_compatible_with_itself():
    texts = upstream_schemas()
    assert len(texts) > 2000
    for text in texts:
        schema = FunctionSchema.parse(text)
        assert breaking_reasons(schema, schema) == [], text
    # The whole-manifest path too, with every entry re-parsed from its text (line numbers start at 1).
    current = {text: (YAML, i) for i, text in enumerate(texts, 1)}
    assert compare_schemas(texts, current, [], manifest_path=MANIFEST, today=TODAY) == []


@pytest.mark.skipif(not UPSTREAM.exists(), reason="needs the upstream native_functions.yaml")
def test_upstream_schema_gaining_a_trailing_defaulted_argument_stays_compatible():
    # A kwarg-only argument appended just before the out arguments is always a compatible change.
    for text in upstream_schemas():
        old = FunctionSchema.parse(text)
        args = old.arguments
        kwargs = [str(a) for a in args.flat_kwarg_only] + ["bool zz_new_flag=False"] + [str(a) for a in args.out]
        body = ", ".join([str(a) for a in args.flat_positional] + ["*"] + kwargs)
        new = FunctionSchema.parse(f"{old.name}({body}) -> {text.rsplit(') -> ', 1)[1]}")
        assert breaking_reasons(old, new) == [], text
