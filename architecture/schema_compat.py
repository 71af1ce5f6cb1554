"""Operator-schema backward compatibility: the `schemas` check of the architecture audit.

The committed manifest records every operator schema the last release exposed. A schema
that changed since is judged by the rules of PyTorch's `FunctionSchema::isBackwardCompatibleWith`
(what its forward/backward-compatibility CI enforces), restated here over torchgen's model:

* the operator name, overload name and number of returns stay the same, and the argument
  list never shrinks;
* returns may only get more specific (a caller that handled the old type handles the new);
* non-out arguments are compared pairwise by position: same name, list size and alias
  annotation, no positional argument turned keyword-only, the type may only widen
  (``int`` -> ``int?``/``SymInt``/``Scalar``, ``Tensor`` -> ``Tensor?``) and an existing
  default may neither change nor disappear;
* arguments added after the old non-out ones need a default, and the out arguments are
  compared pairwise after aligning where they start.

PyTorch also compares the vararg/varret flags; torchgen's model has neither, so they are
always equal here.
"""
from __future__ import annotations

import ast
import datetime
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from architecture.findings import ERROR, NOTE, Finding
from torchgen.model import (Annotation, Argument, BaseTy, BaseType, FunctionSchema, ListType, OptionalType, Return,
                            SchemaError, Type)

CHECK = "schemas"
ALLOWLIST_PATH = "architecture/surfaces/allowlist.yaml"
UPDATE_COMMAND = "python -m architecture surfaces --update"
# Operators in native_functions.yaml carry no namespace; callers and PyTorch's own
# allowlists spell them with it, so both spellings must name the same operator.
DEFAULT_NAMESPACE = "aten"


# --- The allowlist --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemaAllow:
    """One intended break: ``name`` is an operator name (with or without ``aten::``) or a regex."""

    name: str
    reason: str
    until: datetime.date | None = None

    def expired(self, today: datetime.date) -> bool:
        # `until` is the last day the entry still excuses a break.
        return self.until is not None and today > self.until

    def matches(self, operator: str) -> bool:
        forms = _name_forms(operator)
        return self.name in forms or any(re.fullmatch(self.name, form) for form in forms)


def _name_forms(operator: str) -> tuple[str, ...]:
    namespace, sep, bare = operator.rpartition("::")
    if not sep:
        return operator, f"{DEFAULT_NAMESPACE}::{operator}"
    return (operator, bare) if namespace == DEFAULT_NAMESPACE else (operator,)


_ALLOW_KEYS = frozenset({"name", "reason", "until"})


def parse_allowlist(entries: list[dict[str, Any]]) -> list[SchemaAllow]:
    """Validate the `schemas:` entries of the allowlist; a bad entry is a ValueError naming it."""
    if not isinstance(entries, list):
        raise ValueError(
            f"the `schemas:` allowlist must be a list of entries with 'name' and 'reason', got {type(entries).__name__}"
        )
    return [_parse_allow_entry(index, entry) for index, entry in enumerate(entries, 1)]


def _parse_allow_entry(index: int, entry: Any) -> SchemaAllow:
    where = f"`schemas:` allowlist entry {index}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected a mapping with 'name' and 'reason', got {entry!r}")
    unknown = sorted(map(str, set(entry) - _ALLOW_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed keys are name, reason, until")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}: 'name' must be a non-empty operator name or regex, e.g. 'add.Tensor'")
    where = f"{where} ({name!r})"
    try:
        re.compile(name)
    except re.error as err:
        raise ValueError(f"{where}: 'name' is neither an operator name nor a valid regex: {err}") from None
    reason = entry.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(f"{where}: a non-empty 'reason' is required: say why the break is intended")
    return SchemaAllow(name, reason.strip(), _parse_until(where, entry.get("until")))


def _parse_until(where: str, value: Any) -> datetime.date | None:
    if value is None:
        return None
    # YAML loaders turn an unquoted 2025-01-31 into a date already (a datetime is a date too).
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"{where}: 'until' must be a date written YYYY-MM-DD, got {value!r}")


# --- Types: which changes widen -------------------------------------------------------------------

# Pairs (old, new) where every old value is a valid new value. SymInt/SymBool accept plain
# ints/bools (PyTorch compares their "fake" int/bool types); Scalar is PyTorch's Number.
_SYMBOLIC_WIDENINGS = frozenset({(BaseTy.int, BaseTy.SymInt), (BaseTy.bool, BaseTy.SymBool)})
_SCALAR_WIDENINGS = frozenset({(BaseTy.int, BaseTy.Scalar), (BaseTy.float, BaseTy.Scalar), (BaseTy.SymInt, BaseTy.Scalar)})


def is_subtype(sub: Type, sup: Type) -> bool:
    """True when every value of ``sub`` is a value of ``sup``; list sizes are compared apart."""
    if sub == sup:
        return True
    if isinstance(sup, OptionalType):
        return is_subtype(sub.elem if isinstance(sub, OptionalType) else sub, sup.elem)
    if isinstance(sub, ListType) and isinstance(sup, ListType):
        # Lists are invariant (a callee may store into them), up to the symbolic aliases.
        return _same_up_to_symbolic(sub.elem, sup.elem)
    if isinstance(sub, BaseType) and isinstance(sup, BaseType):
        pair = (sub.name, sup.name)
        return pair in _SYMBOLIC_WIDENINGS or pair in _SCALAR_WIDENINGS
    return False


def _same_up_to_symbolic(old: Type, new: Type) -> bool:
    if isinstance(old, BaseType) and isinstance(new, BaseType):
        return old == new or (old.name, new.name) in _SYMBOLIC_WIDENINGS
    if isinstance(old, OptionalType) and isinstance(new, OptionalType):
        return _same_up_to_symbolic(old.elem, new.elem)
    if isinstance(old, ListType) and isinstance(new, ListType):
        return old.size == new.size and _same_up_to_symbolic(old.elem, new.elem)
    return old == new


def _list_size(type_: Type) -> int | None:
    # PyTorch keeps the fixed size N of `int[2]` (also of `int[2]?`) beside the type.
    inner = type_.elem if isinstance(type_, OptionalType) else type_
    return inner.size if isinstance(inner, ListType) else None


# --- Comparing two schemas ------------------------------------------------------------------------


def breaking_reasons(old: FunctionSchema, new: FunctionSchema) -> list[str]:
    """Why ``new`` cannot replace ``old`` for existing callers; [] when it is backward compatible."""
    return _name_reasons(old, new) + _return_reasons(old.returns, new.returns) + _argument_reasons(old, new)


def _name_reasons(old: FunctionSchema, new: FunctionSchema) -> list[str]:
    reasons = []
    if old.name.name != new.name.name:
        reasons.append(f"operator renamed from {old.name.name} to {new.name.name}")
    if old.name.overload_name != new.name.overload_name:
        before, after = (repr(o) if o else "(none)" for o in (old.name.overload_name, new.name.overload_name))
        reasons.append(f"overload name changed from {before} to {after}")
    return reasons


def _return_reasons(old: tuple[Return, ...], new: tuple[Return, ...]) -> list[str]:
    if len(old) != len(new):
        return [f"number of returns changed from {len(old)} to {len(new)}"]
    reasons = []
    for i, (o, n) in enumerate(zip(old, new)):
        where = f"return {i}" + (f" '{o.name}'" if o.name else "")
        if o.name != n.name:
            # Return names are the fields of the named tuple callers unpack.
            reasons.append(f"{where}: name changed from {o.name or '(unnamed)'} to {n.name or '(unnamed)'}")
        reasons += _shape_reasons(where, o.type, o.annotation, n.type, n.annotation)
        if not is_subtype(n.type, o.type):
            how = "widened" if is_subtype(o.type, n.type) else "changed"
            reasons.append(f"{where}: return type {how} from {o.type} to {n.type}; callers may get values they do not expect")
    return reasons


def _shape_reasons(where: str, old_t: Type, old_a: Annotation | None, new_t: Type, new_a: Annotation | None) -> list[str]:
    """The checks arguments and returns share: fixed list size and alias annotation."""
    reasons = []
    old_n, new_n = _list_size(old_t), _list_size(new_t)
    if old_n != new_n:
        reasons.append(f"{where}: list size changed from {_size_text(old_n)} to {_size_text(new_n)}")
    if old_a != new_a:
        # Aliasing and mutability are part of the contract: a caller relies on (not) being written to.
        reasons.append(f"{where}: alias annotation changed from {_annotation_text(old_a)} to {_annotation_text(new_a)}")
    return reasons


def _size_text(size: int | None) -> str:
    return "unsized" if size is None else str(size)


def _annotation_text(annotation: Annotation | None) -> str:
    return "none" if annotation is None else f"({annotation})"


class _Slot(NamedTuple):
    arg: Argument
    kwarg_only: bool


def _slots(schema: FunctionSchema) -> list[_Slot]:
    # PyTorch's argument list is flat: positional, then kwarg-only, then out (kwarg-only too).
    args = schema.arguments
    return [_Slot(a, False) for a in args.flat_positional] + [
        _Slot(a, True) for a in args.flat_kwarg_only + args.out
    ]


def _argument_reasons(old: FunctionSchema, new: FunctionSchema) -> list[str]:
    old_slots, new_slots = _slots(old), _slots(new)
    old_out, new_out = len(old.arguments.flat_non_out), len(new.arguments.flat_non_out)
    new_positions = {s.arg.name: i for i, s in enumerate(new_slots)}
    reasons = []
    if len(new_slots) < len(old_slots):
        reasons.append(f"the schema has fewer arguments: {len(old_slots)} before, {len(new_slots)} now")
    for i in range(old_out):
        if i < len(new_slots):
            reasons += _slot_reasons(i, old_slots[i], new_slots[i], new_positions)
        else:
            reasons.append(f"argument {i} '{old_slots[i].arg.name}' was removed")
    reasons += _added_reasons(old_slots, new_slots[old_out:new_out], old_out)
    # Out arguments sit at the end; added non-out arguments shift them, so align their starts.
    for i in range(old_out, len(old_slots)):
        j = i - old_out + new_out
        if j < len(new_slots):
            reasons += _slot_reasons(i, old_slots[i], new_slots[j], new_positions)
        else:
            reasons.append(f"out argument {i} '{old_slots[i].arg.name}' was removed")
    return reasons


def _added_reasons(old_slots: list[_Slot], added: list[_Slot], first: int) -> list[str]:
    old_names = {s.arg.name for s in old_slots}
    reasons = []
    for i, slot in enumerate(added, first):
        # An old argument seen here was moved, which the pairwise comparison reports already.
        if slot.arg.default is None and slot.arg.name not in old_names:
            reasons.append(f"argument {i} '{slot.arg.name}' was added without a default; existing callers do not pass it")
    return reasons


def _slot_reasons(i: int, old: _Slot, new: _Slot, new_positions: Mapping[str, int]) -> list[str]:
    where = f"argument {i} '{old.arg.name}'"
    if old.arg.name != new.arg.name:
        # The rest of the comparison would pit two different arguments against each other.
        moved_to = new_positions.get(old.arg.name)
        change = "was removed or renamed" if moved_to is None else f"moved to position {moved_to}"
        return [f"{where} {change} ('{new.arg.name}' is in its place now)"]
    reasons = []
    if new.kwarg_only and not old.kwarg_only:
        reasons.append(f"{where} became keyword-only; callers passing it by position break")
    reasons += _shape_reasons(where, old.arg.type, old.arg.annotation, new.arg.type, new.arg.annotation)
    if not is_subtype(old.arg.type, new.arg.type):
        how = "narrowed" if is_subtype(new.arg.type, old.arg.type) else "changed"
        reasons.append(f"{where}: type {how} from {old.arg.type} to {new.arg.type}; not every old value is accepted")
    reasons += _default_reasons(where, old.arg.default, new.arg.default)
    return reasons


def _default_reasons(where: str, old: str | None, new: str | None) -> list[str]:
    # Callers that omit the argument silently get the default: it is part of the contract.
    if old is None:
        return []
    if new is None:
        return [f"{where}: default {old} was removed"]
    if _default_key(old) != _default_key(new):
        return [f"{where}: default changed from {old} to {new}"]
    return []


_DEFAULT_TOKEN = re.compile(r""""(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\s+""")


# Symbolic defaults and their values: at::Reduction (`int reduction=Mean` is `int reduction=1`).
_SYMBOLIC_DEFAULTS = {"Mean": "1", "Sum": "2"}
_STRING_LITERAL = re.compile(r""""(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'""")


def _default_key(text: str) -> str:
    """Default text without the spaces outside string literals (`[0, 1]` is `[0,1]`), a string
    literal by its value whatever its quotes, a symbolic default by its value."""
    if text in _SYMBOLIC_DEFAULTS:
        return _SYMBOLIC_DEFAULTS[text]
    if _STRING_LITERAL.fullmatch(text):
        return repr(ast.literal_eval(text))
    return _DEFAULT_TOKEN.sub(lambda m: "" if m.group().isspace() else m.group(), text)


# --- The check over the manifest ------------------------------------------------------------------


class _Current(NamedTuple):
    text: str
    schema: FunctionSchema
    path: str
    line: int


@dataclass(frozen=True)
class _Allowances:
    live: Sequence[SchemaAllow]
    expired: Sequence[SchemaAllow]

    def excuse(self, operator: str) -> SchemaAllow | None:
        return next((a for a in self.live if a.matches(operator)), None)

    def lapsed(self, operator: str) -> SchemaAllow | None:
        return next((a for a in self.expired if a.matches(operator)), None)


def compare_schemas(
    old: Sequence[str],
    new: Mapping[str, tuple[str, int]],
    allow: Sequence[SchemaAllow],
    *,
    manifest_path: str,
    today: datetime.date | None = None,
) -> list[Finding]:
    """Findings for the manifest's schemas ``old`` (line i+1 holds old[i]) against ``new``.

    ``new`` maps each current func string to the (path, line) of its native_functions.yaml entry.
    """
    day = today if today is not None else datetime.date.today()
    allowances = _Allowances([a for a in allow if not a.expired(day)], [a for a in allow if a.expired(day)])
    current, findings = _index_current(new)
    old_operators: set[str] = set()
    for line, text in enumerate(old, 1):
        operator, found = _check_recorded(text, line, new, current, allowances, manifest_path)
        old_operators.add(operator)
        findings += found
    findings += [_added(op, entry) for op, entry in current.items() if op not in old_operators]
    findings += [_expired_note(a) for a in allowances.expired]
    return findings


def _index_current(new: Mapping[str, tuple[str, int]]) -> tuple[dict[str, _Current], list[Finding]]:
    current: dict[str, _Current] = {}
    findings: list[Finding] = []
    for text, (path, line) in new.items():
        try:
            schema = FunctionSchema.parse(text)
        except SchemaError as err:
            findings.append(_unparseable(text, err, path, line, "fix the `func:` entry"))
            continue
        # The yaml loader rejects duplicate operators; should one slip through, the first wins.
        current.setdefault(str(schema.name), _Current(text, schema, path, line))
    return current, findings


def _check_recorded(
    text: str,
    line: int,
    new: Mapping[str, tuple[str, int]],
    current: Mapping[str, _Current],
    allowances: _Allowances,
    manifest_path: str,
) -> tuple[str, list[Finding]]:
    """Judge one manifest entry; returns its operator name (for spotting additions) and findings."""
    try:
        old_schema = FunctionSchema.parse(text)
    except SchemaError as err:
        fix = f"restore the entry as the old schema text, or regenerate the manifest with `{UPDATE_COMMAND}`"
        return text.partition("(")[0], [_unparseable(text, err, manifest_path, line, fix)]
    operator = str(old_schema.name)
    if text in new:
        return operator, []
    entry = current.get(operator)
    if entry is None:
        return operator, [_removed(operator, text, manifest_path, line, allowances)]
    reasons = breaking_reasons(old_schema, entry.schema)
    if not reasons:
        return operator, [_changed_compatibly(operator, text, entry)]
    return operator, [_incompatible(operator, text, entry, reasons, allowances)]


def _unparseable(text: str, err: SchemaError, path: str, line: int, fix: str) -> Finding:
    return Finding(CHECK, "unparseable", f"schema {text!r} does not parse: {err}", fix, path, line)


def _removed(operator: str, text: str, manifest_path: str, line: int, allowances: _Allowances) -> Finding:
    message = f"operator {operator} was removed (it was `{text}`)"
    fix = (
        f"restore {operator}, or add `{operator}` with a reason to {ALLOWLIST_PATH} under `schemas:` "
        f"if the removal is intended; then `{UPDATE_COMMAND}`"
    )
    return _breach("removed", operator, message, fix, manifest_path, line, allowances, {"old": text})


def _incompatible(operator: str, text: str, entry: _Current, reasons: list[str], allowances: _Allowances) -> Finding:
    message = (
        f"operator {operator} changed incompatibly: {'; '.join(reasons)} "
        f"(old: `{text}`, new: `{entry.text}`)"
    )
    fix = (
        f"keep the old signature (add new arguments at the end with defaults), or add `{operator}` with a reason "
        f"to {ALLOWLIST_PATH} under `schemas:` if the break is intended; then `{UPDATE_COMMAND}`"
    )
    extra = {"old": text, "new": entry.text, "reasons": reasons}
    return _breach("incompatible", operator, message, fix, entry.path, entry.line, allowances, extra)


def _breach(
    rule: str,
    operator: str,
    message: str,
    fix: str,
    path: str,
    line: int,
    allowances: _Allowances,
    extra: dict[str, Any],
) -> Finding:
    """An error, unless an unexpired allowlist entry excuses it (then a note that says why)."""
    extra = {"operator": operator, **extra}
    excuse = allowances.excuse(operator)
    if excuse is not None:
        until = f" until {excuse.until}" if excuse.until else ""
        return Finding(
            CHECK, "allowed", f"{message}; allowed{until}: {excuse.reason}",
            f"`{UPDATE_COMMAND}` records the change", path, line, NOTE, {**extra, "breaks": rule},
        )
    lapsed = allowances.lapsed(operator)
    if lapsed is not None:
        message += f"; its allowlist entry `{lapsed.name}` expired on {lapsed.until}"
    return Finding(CHECK, rule, message, fix, path, line, ERROR, extra)


def _changed_compatibly(operator: str, text: str, entry: _Current) -> Finding:
    return Finding(
        CHECK, "changed-compatible", f"operator {operator} changed compatibly: `{text}` -> `{entry.text}`",
        f"record it with `{UPDATE_COMMAND}`", entry.path, entry.line, NOTE,
        {"operator": operator, "old": text, "new": entry.text},
    )


def _added(operator: str, entry: _Current) -> Finding:
    return Finding(
        CHECK, "added", f"operator {operator} was added: `{entry.text}`",
        f"record it with `{UPDATE_COMMAND}`", entry.path, entry.line, NOTE,
        {"operator": operator, "new": entry.text},
    )


def _expired_note(entry: SchemaAllow) -> Finding:
    return Finding(
        CHECK, "allow-expired",
        f"allowlist entry `{entry.name}` expired on {entry.until} and no longer excuses anything ({entry.reason})",
        f"remove it from {ALLOWLIST_PATH} under `schemas:`, or move its `until:` if the break still needs excusing",
        ALLOWLIST_PATH, None, NOTE, {"name": entry.name},
    )
