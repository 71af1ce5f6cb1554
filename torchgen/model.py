"""The schema model: function schemas (names, types, alias annotations, arguments, returns) parsed
into frozen dataclasses; torchgen/native_yaml.py reads native_functions.yaml entries into them.

The function-schema grammar is PyTorch's (torchgen/model.py; summarised in shared/notes/upstream.md
section a). It is whitespace-significant, and every parse is checked to print back to its input.
Every problem is a SchemaError(loc, msg) whose text starts with ``path:line: ``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias


# --- Locations and errors -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Location:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class SchemaError(Exception):
    """A bad schema string or YAML entry; with a location, str() starts with ``path:line: ``."""

    def __init__(self, loc: Location | None, msg: str) -> None:
        super().__init__(loc, msg)
        self.loc = loc
        self.msg = msg

    def __str__(self) -> str:
        return self.msg if self.loc is None else f"{self.loc}: {self.msg}"


class SchemaErrors(SchemaError):
    """Every error found in one file, one per line."""

    def __init__(self, errors: list[SchemaError]) -> None:
        self.errors = tuple(errors)
        super().__init__(errors[0].loc if errors else None, "\n".join(map(str, errors)))

    def __str__(self) -> str:
        return self.msg

    def __reduce__(self) -> tuple[type[SchemaErrors], tuple[list[SchemaError]]]:
        return SchemaErrors, (list(self.errors),)


# --- Closed sets ----------------------------------------------------------------------------------


class DispatchKey(Enum):
    CPU = "CPU"
    CUDA = "CUDA"
    MPS = "MPS"
    Meta = "Meta"
    XPU = "XPU"
    MTIA = "MTIA"
    HPU = "HPU"
    SparseCPU = "SparseCPU"
    SparseCUDA = "SparseCUDA"
    SparseMPS = "SparseMPS"
    SparseMeta = "SparseMeta"
    SparseCsrCPU = "SparseCsrCPU"
    SparseCsrCUDA = "SparseCsrCUDA"
    SparseCsrMPS = "SparseCsrMPS"
    SparseCsrMeta = "SparseCsrMeta"
    QuantizedCPU = "QuantizedCPU"
    QuantizedCUDA = "QuantizedCUDA"
    QuantizedMeta = "QuantizedMeta"
    NestedTensorCPU = "NestedTensorCPU"
    NestedTensorCUDA = "NestedTensorCUDA"
    NestedTensorHPU = "NestedTensorHPU"
    NestedTensorMeta = "NestedTensorMeta"
    MkldnnCPU = "MkldnnCPU"
    ZeroTensor = "ZeroTensor"
    CompositeImplicitAutograd = "CompositeImplicitAutograd"
    CompositeImplicitAutogradNestedTensor = "CompositeImplicitAutogradNestedTensor"
    CompositeExplicitAutograd = "CompositeExplicitAutograd"
    CompositeExplicitAutogradNonFunctional = "CompositeExplicitAutogradNonFunctional"
    # Runtime-only keys: the dispatcher knows them, but native_functions.yaml cannot name them.
    Autograd = "Autograd"
    AutogradCPU = "AutogradCPU"
    AutogradCUDA = "AutogradCUDA"
    BackendSelect = "BackendSelect"
    ADInplaceOrView = "ADInplaceOrView"
    AutocastCPU = "AutocastCPU"
    AutocastCUDA = "AutocastCUDA"

    @classmethod
    def parse(cls, text: str, loc: Location | None = None) -> DispatchKey:
        try:
            return cls(text)
        except ValueError:
            valid = ", ".join(k.value for k in YAML_DISPATCH_KEYS)
            raise SchemaError(loc, f"unknown dispatch key {text!r}; expected one of: {valid}") from None


_K = DispatchKey
RUNTIME_ONLY_DISPATCH_KEYS = frozenset(
    {_K.Autograd, _K.AutogradCPU, _K.AutogradCUDA, _K.BackendSelect, _K.ADInplaceOrView, _K.AutocastCPU,
     _K.AutocastCUDA}
)
YAML_DISPATCH_KEYS = tuple(k for k in DispatchKey if k not in RUNTIME_ONLY_DISPATCH_KEYS)
COMPOSITE_DISPATCH_KEYS = frozenset(
    {_K.CompositeImplicitAutograd, _K.CompositeImplicitAutogradNestedTensor, _K.CompositeExplicitAutograd,
     _K.CompositeExplicitAutogradNonFunctional}
)  # fmt: skip
# Backends whose kernels a structured_delegate op inherits from its out= op (upstream's set).
STRUCTURED_DISPATCH_KEYS = frozenset({_K.CPU, _K.CUDA, _K.MPS, _K.XPU, _K.MTIA})


class Variant(Enum):
    function = "function"
    method = "method"

    @classmethod
    def parse(cls, text: str, loc: Location | None = None) -> Variant:
        try:
            return cls(text)
        except ValueError:
            valid = ", ".join(v.value for v in cls)
            raise SchemaError(loc, f"unknown variant {text!r}; expected one of: {valid}") from None


class SchemaKind(Enum):
    functional = "functional"
    inplace = "inplace"
    out = "out"
    mutable = "mutable"
    scratch = "scratch"


class BaseTy(Enum):
    # NB: no methods here: members named int/str/bool/float shadow the builtins in this body.
    Generator = "Generator"
    ScalarType = "ScalarType"
    Tensor = "Tensor"
    int = "int"
    DimVector = "DimVector"
    float = "float"
    str = "str"
    bool = "bool"
    Layout = "Layout"
    Device = "Device"
    DeviceIndex = "DeviceIndex"
    Scalar = "Scalar"
    MemoryFormat = "MemoryFormat"
    QScheme = "QScheme"
    Storage = "Storage"
    Stream = "Stream"
    SymInt = "SymInt"
    SymBool = "SymBool"
    GraphModule = "GraphModule"


# --- Types and alias annotations ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BaseType:
    name: BaseTy

    def __str__(self) -> str:
        return self.name.value

    def is_tensor_like(self) -> bool:
        return self.name is BaseTy.Tensor

    def is_list_like(self) -> ListType | None:
        return None


@dataclass(frozen=True, slots=True)
class OptionalType:
    elem: Type

    def __str__(self) -> str:
        return f"{self.elem}?"

    def is_tensor_like(self) -> bool:
        return self.elem.is_tensor_like()

    def is_list_like(self) -> ListType | None:
        return self.elem.is_list_like()


@dataclass(frozen=True, slots=True)
class ListType:
    elem: Type
    size: int | None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"

    def is_tensor_like(self) -> bool:
        return self.elem.is_tensor_like()

    def is_list_like(self) -> ListType | None:
        return self


@dataclass(frozen=True, slots=True)
class CustomClassType:
    class_name: str

    def __str__(self) -> str:
        return f"__torch__.torch.classes.{self.class_name}"

    def is_tensor_like(self) -> bool:
        return False

    def is_list_like(self) -> ListType | None:
        return None


Type: TypeAlias = BaseType | OptionalType | ListType | CustomClassType

_LIST_SUFFIX = re.compile(r"(.+)\[([1-9][0-9]*)?\]")
_CUSTOM_CLASS = re.compile(r"__torch__\.torch\.classes\.([A-Za-z_][A-Za-z0-9_.]*)")


def parse_type(text: str) -> Type:
    """Parse a type. A trailing ``?`` is peeled first: ``int[1]?`` is Optional(List(int, 1))."""
    if text.endswith("?"):
        elem = parse_type(text[:-1])
        if isinstance(elem, OptionalType):
            raise SchemaError(None, f"type {text!r} is optional twice")
        return OptionalType(elem)
    if m := _LIST_SUFFIX.fullmatch(text):
        return ListType(parse_type(m.group(1)), int(m.group(2)) if m.group(2) else None)
    if m := _CUSTOM_CLASS.fullmatch(text):
        return CustomClassType(m.group(1))
    base = BaseTy.__members__.get(text)
    if base is None:
        valid = ", ".join(BaseTy.__members__)
        raise SchemaError(None, f"unknown type {text!r}; base types are: {valid}")
    return BaseType(base)


_ALIAS_SET = r"[a-z](?:\|[a-z])*"
_ANNOTATION = re.compile(rf"({_ALIAS_SET})(!?)(?: -> (\*|{_ALIAS_SET}))?")


@dataclass(frozen=True, slots=True)
class Annotation:
    """An alias annotation: ``a`` (view of a), ``a!`` (writes a), ``a -> *`` (a's alias set widens)."""

    alias_set: tuple[str, ...]
    is_write: bool
    alias_set_after: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Annotation:
        m = _ANNOTATION.fullmatch(text)
        if m is None:
            raise SchemaError(
                None, f"illegal alias annotation {text!r}; expected e.g. 'a', 'a!', 'a|b' or 'a -> *'"
            )
        alias_set = tuple(m.group(1).split("|"))
        is_write = m.group(2) == "!"
        after = tuple(m.group(3).split("|")) if m.group(3) else ()
        if is_write and len(alias_set) > 1:
            raise SchemaError(None, f"alias set {m.group(1)!r} has several members and cannot be written ('!')")
        if len(alias_set) > 1 and len(after) > 1:
            raise SchemaError(None, f"alias annotation {text!r} has several members on both sides of '->'")
        return cls(alias_set, is_write, after)

    def __str__(self) -> str:
        text = "|".join(self.alias_set) + ("!" if self.is_write else "")
        return f"{text} -> {'|'.join(self.alias_set_after)}" if self.alias_set_after else text


_ANNOTATED_TENSOR = re.compile(r"Tensor\(([^)]*)\)(.*)")
_ANNOTATABLE = ("Tensor", "Tensor?", "Tensor[]")
_ANNOTATION_TARGETS_MSG = "alias annotations are only allowed on Tensor, Tensor? and Tensor[]"


def _parse_annotated_type(text: str) -> tuple[Type, Annotation | None]:
    m = _ANNOTATED_TENSOR.fullmatch(text)
    if m is None:
        if "(" in text:
            raise SchemaError(None, f"illegal type {text!r}: {_ANNOTATION_TARGETS_MSG}")
        return parse_type(text), None
    if "Tensor" + m.group(2) not in _ANNOTATABLE:
        raise SchemaError(None, f"illegal type {text!r}: {_ANNOTATION_TARGETS_MSG}")
    return parse_type("Tensor" + m.group(2)), Annotation.parse(m.group(1))


def _check_annotation_target(type_: Type, annotation: Annotation | None) -> None:
    if annotation is not None and str(type_) not in _ANNOTATABLE:
        raise SchemaError(None, f"illegal annotation on type {str(type_)!r}: {_ANNOTATION_TARGETS_MSG}")


def _annotated_type_str(type_: Type, annotation: Annotation | None) -> str:
    text = str(type_)
    return text if annotation is None else f"Tensor({annotation}){text[len('Tensor'):]}"


# --- Arguments and returns ------------------------------------------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED = r""""(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'"""
_QUOTED_RE = re.compile(_QUOTED)
# Tokens that matter when splitting on ", ": string literals, brackets, stray quotes, separators.
_SPLIT_TOKEN = re.compile(rf"({_QUOTED})|([(\[])|([)\]])|([\"'])|(, )")
_CLOSER = {"(": ")", "[": "]"}


def _scan_top_level(text: str, start: int = 0, stop_at_close: bool = False) -> tuple[list[str], int]:
    """Split ``text[start:]`` on ", " outside brackets and quotes (so defaults may contain ", ").

    With ``stop_at_close`` the scan ends at the ")" that closes an already-open "(" and also
    returns its index; otherwise it runs to the end of the text.
    """
    parts: list[str] = []
    stack: list[str] = ["("] if stop_at_close else []
    piece_start = start
    for m in _SPLIT_TOKEN.finditer(text, start):
        if m.group(2):
            stack.append(m.group(2))
        elif m.group(3):
            if not stack or _CLOSER[stack.pop()] != m.group(3):
                raise SchemaError(None, f"unbalanced {m.group(3)!r} in {text!r}")
            if stop_at_close and not stack:
                parts.append(text[piece_start : m.start()])
                return parts, m.start()
        elif m.group(4):
            raise SchemaError(None, f"unterminated string literal in {text!r}")
        elif m.group(5) and len(stack) == (1 if stop_at_close else 0):
            parts.append(text[piece_start : m.start()])
            piece_start = m.end()
    if stack:
        raise SchemaError(None, f"unclosed {stack[-1]!r} in {text!r}")
    parts.append(text[piece_start:])
    return parts, len(text)


def _split_declaration(text: str) -> tuple[str, str | None]:
    """Split ``<type> <rest>`` at the first space after any ``Tensor(...)`` annotation."""
    start = text.find(")") + 1 if text.startswith("Tensor(") else 0
    space = text.find(" ", start)
    return (text, None) if space < 0 else (text[:space], text[space + 1 :])


@dataclass(frozen=True, slots=True)
class Argument:
    name: str
    type: Type
    default: str | None  # raw text, never evaluated: "None", "[-2,-1]", "contiguous_format", '"valid"'
    annotation: Annotation | None

    def __post_init__(self) -> None:
        _check_annotation_target(self.type, self.annotation)

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    @classmethod
    def parse(cls, text: str) -> Argument:
        type_text, rest = _split_declaration(text)
        if rest is None:
            raise SchemaError(None, f"illegal argument {text!r}: expected '<type> <name>[=<default>]'")
        name, eq, default = rest.partition("=")
        if eq and (not default or "=" in _QUOTED_RE.sub("", default)):
            raise SchemaError(None, f"illegal default value in argument {text!r}: expected one '=' then a value")
        if not _IDENTIFIER.fullmatch(name):
            raise SchemaError(None, f"illegal argument name {name!r} in {text!r}")
        type_, annotation = _parse_annotated_type(type_text)
        return cls(name, type_, default if eq else None, annotation)

    def __str__(self) -> str:
        text = f"{_annotated_type_str(self.type, self.annotation)} {self.name}"
        return text if self.default is None else f"{text}={self.default}"


@dataclass(frozen=True, slots=True)
class Return:
    name: str | None
    type: Type
    annotation: Annotation | None

    def __post_init__(self) -> None:
        _check_annotation_target(self.type, self.annotation)

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    @classmethod
    def parse(cls, text: str) -> Return:
        type_text, name = _split_declaration(text)
        if name is not None and not _IDENTIFIER.fullmatch(name):
            raise SchemaError(None, f"illegal return {text!r}: expected '<type>' or '<type> <name>'")
        type_, annotation = _parse_annotated_type(type_text)
        return cls(name, type_, annotation)

    def __str__(self) -> str:
        text = _annotated_type_str(self.type, self.annotation)
        return text if self.name is None else f"{text} {self.name}"


def _parse_returns(text: str) -> tuple[Return, ...]:
    if text == "()":
        return ()
    if text.startswith("(") and text.endswith(")"):
        parts, end = _scan_top_level(text, 1, stop_at_close=True)
        if end == len(text) - 1:
            if len(parts) == 1:
                raise SchemaError(None, f"a single return is not parenthesised: write {text[1:-1]!r}, not {text!r}")
            return tuple(Return.parse(p) for p in parts)
    parts, _ = _scan_top_level(text)
    if len(parts) > 1:
        raise SchemaError(None, f"several returns must be parenthesised: '({text})'")
    return (Return.parse(text),)


@dataclass(frozen=True, slots=True)
class TensorOptionsArguments:
    dtype: Argument
    layout: Argument
    device: Argument
    pin_memory: Argument

    def all(self) -> tuple[Argument, ...]:
        return (self.dtype, self.layout, self.device, self.pin_memory)


# Four consecutive kwarg-only arguments with these names and (optional) types form TensorOptions.
_TENSOR_OPTIONS = (
    ("dtype", BaseTy.ScalarType),
    ("layout", BaseTy.Layout),
    ("device", BaseTy.Device),
    ("pin_memory", BaseTy.bool),
)


def _is_tensor_options_window(args: list[Argument]) -> bool:
    return len(args) == len(_TENSOR_OPTIONS) and all(
        a.name == name and a.type in (BaseType(ty), OptionalType(BaseType(ty)))
        for a, (name, ty) in zip(args, _TENSOR_OPTIONS)
    )


@dataclass(frozen=True, slots=True)
class Arguments:
    pre_self_positional: tuple[Argument, ...]
    self_arg: Argument | None
    post_self_positional: tuple[Argument, ...]
    pre_tensor_options_kwarg_only: tuple[Argument, ...]
    tensor_options: TensorOptionsArguments | None
    post_tensor_options_kwarg_only: tuple[Argument, ...]
    out: tuple[Argument, ...]

    def __post_init__(self) -> None:
        if self.self_arg is None and self.pre_self_positional:
            raise SchemaError(None, "positional arguments before self need a self argument")
        if self.tensor_options is None and self.post_tensor_options_kwarg_only:
            raise SchemaError(None, "kwarg-only arguments after tensor options need tensor options")
        for a in self.pre_self_positional:
            if a.is_write:
                raise SchemaError(None, f"mutable argument {a.name!r} before self is not supported")
        for a in self.out:
            if not a.is_write:
                raise SchemaError(None, f"out argument {a.name!r} must be mutable, e.g. 'Tensor(a!) {a.name}'")
        seen: set[str] = set()
        for a in self.flat_all:
            if a.name in seen:
                raise SchemaError(None, f"duplicate argument name {a.name!r}")
            seen.add(a.name)

    @property
    def flat_positional(self) -> tuple[Argument, ...]:
        self_arg = () if self.self_arg is None else (self.self_arg,)
        return self.pre_self_positional + self_arg + self.post_self_positional

    @property
    def flat_kwarg_only(self) -> tuple[Argument, ...]:
        options = () if self.tensor_options is None else self.tensor_options.all()
        return self.pre_tensor_options_kwarg_only + options + self.post_tensor_options_kwarg_only

    @property
    def flat_non_out(self) -> tuple[Argument, ...]:
        return self.flat_positional + self.flat_kwarg_only

    @property
    def flat_all(self) -> tuple[Argument, ...]:
        return self.flat_non_out + self.out

    @classmethod
    def parse(cls, text: str) -> Arguments:
        positional: list[Argument] = []
        kwarg_only: list[Argument] = []
        out: list[Argument] = []
        bucket, seen_star = positional, False
        for piece in _scan_top_level(text)[0] if text else []:
            if piece == "*":
                if seen_star:
                    raise SchemaError(None, "the kwarg-only marker '*' may appear only once")
                bucket, seen_star = kwarg_only, True
                continue
            arg = Argument.parse(piece)
            # NB: the first mutable kwarg-only argument starts the out arguments (upstream rule).
            if arg.is_write and bucket is kwarg_only:
                bucket = out
            elif not arg.is_write and bucket is out:
                raise SchemaError(
                    None, f"non-mutable argument {arg.name!r} follows the out arguments; out arguments come last"
                )
            bucket.append(arg)
        if seen_star and not kwarg_only and not out:
            raise SchemaError(None, "the kwarg-only marker '*' must be followed by an argument")

        self_ix = next((i for i, a in enumerate(positional) if a.name == "self"), None)
        pre_self = positional[:self_ix] if self_ix is not None else []
        post_self = positional[self_ix + 1 :] if self_ix is not None else positional
        pre_options: list[Argument] = []
        post_options: list[Argument] = []
        options: TensorOptionsArguments | None = None
        i = 0
        while i < len(kwarg_only):
            window = kwarg_only[i : i + len(_TENSOR_OPTIONS)]
            if options is None and _is_tensor_options_window(window):
                options = TensorOptionsArguments(*window)
                i += len(window)
                continue
            (pre_options if options is None else post_options).append(kwarg_only[i])
            i += 1
        return cls(
            tuple(pre_self),
            positional[self_ix] if self_ix is not None else None,
            tuple(post_self),
            tuple(pre_options),
            options,
            tuple(post_options),
            tuple(out),
        )

    def __str__(self) -> str:
        parts = [str(a) for a in self.flat_positional]
        if self.flat_kwarg_only or self.out:
            parts.append("*")
        parts.extend(str(a) for a in self.flat_kwarg_only + self.out)
        return ", ".join(parts)


# --- Operator names and function schemas ----------------------------------------------------------

# Python's augmented assignments: __iand__ is the inplace __and__, but __int__ is no inplace __nt__.
AUGMENTED_ASSIGNMENT_NAMES = frozenset(
    {"add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"}
)
_DUNDER = re.compile(r"__([A-Za-z0-9]+)__")
_OVERLOAD_NAME = re.compile(r"[A-Za-z0-9_]+")
_FUNCTIONAL_SUFFIX = "_functional"


@dataclass(frozen=True, slots=True)
class BaseOperatorName:
    base: str
    inplace: bool
    dunder_method: bool
    functional_overload: bool = False
    namespace: str = ""

    @classmethod
    def parse(cls, text: str) -> BaseOperatorName:
        namespace, sep, op = text.rpartition("::")
        if sep and not _IDENTIFIER.fullmatch(namespace):
            raise SchemaError(None, f"illegal namespace {namespace!r} in operator name {text!r}")
        if op.endswith("_out"):
            raise SchemaError(
                None, f"operator name {op!r}: the _out suffix is reserved; use an out overload name (e.g. 'foo.out')"
            )
        if m := _DUNDER.fullmatch(op):
            word = m.group(1)
            inplace = word.startswith("i") and word[1:] in AUGMENTED_ASSIGNMENT_NAMES
            if word.startswith("i") and not inplace:
                raise SchemaError(
                    None,
                    f"dunder operator {op!r} starts with 'i' but {word[1:]!r} is not an augmented assignment "
                    f"({', '.join(sorted(AUGMENTED_ASSIGNMENT_NAMES))})",
                )
            base, dunder = (word[1:] if inplace else word), True
        else:
            if not _IDENTIFIER.fullmatch(op) or op.startswith("__"):
                raise SchemaError(None, f"illegal operator name {op!r}")
            inplace, dunder = op.endswith("_"), False
            base = op[:-1] if inplace else op
        functional = base.endswith(_FUNCTIONAL_SUFFIX)
        if functional:
            if dunder or inplace:
                raise SchemaError(None, f"operator {op!r}: a _functional overload cannot be inplace or a dunder")
            base = base[: -len(_FUNCTIONAL_SUFFIX)]
        if not base:
            raise SchemaError(None, f"illegal operator name {op!r}")
        return cls(base, inplace, dunder, functional, namespace)

    def __str__(self) -> str:
        ns = f"{self.namespace}::" if self.namespace else ""
        if self.dunder_method:
            return f"{ns}__{'i' if self.inplace else ''}{self.base}__"
        suffix = "_" if self.inplace else _FUNCTIONAL_SUFFIX if self.functional_overload else ""
        return f"{ns}{self.base}{suffix}"


@dataclass(frozen=True, slots=True)
class OperatorName:
    name: BaseOperatorName
    overload_name: str

    @classmethod
    def parse(cls, text: str) -> OperatorName:
        base, dot, overload = text.partition(".")
        if dot and not _OVERLOAD_NAME.fullmatch(overload):
            raise SchemaError(None, f"illegal overload name {overload!r} in {text!r}")
        return cls(BaseOperatorName.parse(base), overload)

    def __str__(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else str(self.name)

    def unambiguous_name(self) -> str:
        """A C identifier: ``add.Tensor`` -> ``add_Tensor``; ``add_`` stays ``add_``."""
        return f"{self.name}_{self.overload_name}" if self.overload_name else str(self.name)


@dataclass(frozen=True, slots=True)
class FunctionSchema:
    name: OperatorName
    arguments: Arguments
    returns: tuple[Return, ...]

    @classmethod
    def parse(cls, text: str) -> FunctionSchema:
        """Parse ``name(args) -> returns``; raises SchemaError (only) on any bad input."""
        if not isinstance(text, str):
            raise SchemaError(None, f"a schema must be a string, got {type(text).__name__}")
        open_ix = text.find("(")
        if open_ix <= 0:
            raise SchemaError(None, f"illegal schema {text!r}: expected 'name(args) -> returns'")
        name = OperatorName.parse(text[:open_ix])
        _, close_ix = _scan_top_level(text, open_ix + 1, stop_at_close=True)
        if not text.startswith(") -> ", close_ix):
            raise SchemaError(None, f"illegal schema {text!r}: expected ' -> ' after the argument list")
        arguments = Arguments.parse(text[open_ix + 1 : close_ix])
        schema = cls(name, arguments, _parse_returns(text[close_ix + len(") -> ") :]))
        if str(schema) != text:  # whitespace is significant, as upstream
            raise SchemaError(None, f"schema {text!r} does not print back the same; it reads as {str(schema)!r}")
        return schema

    def __str__(self) -> str:
        returns = ", ".join(map(str, self.returns))
        return f"{self.name}({self.arguments}) -> {returns if len(self.returns) == 1 else f'({returns})'}"

    def is_out_fn(self) -> bool:
        return bool(self.arguments.out)

    def is_functional_fn(self) -> bool:
        return "functional" in self.name.overload_name

    def kind(self) -> SchemaKind:
        if self.name.name.inplace:
            return SchemaKind.inplace
        if any(a.name.startswith("_scratch_") for a in self.arguments.out):
            return SchemaKind.scratch
        if self.arguments.out:
            return SchemaKind.out
        if any(a.is_write for a in self.arguments.post_self_positional):
            return SchemaKind.mutable
        return SchemaKind.functional

    def __post_init__(self) -> None:
        """Rules 1-7 of notes section a; direct construction is checked too, not only parse()."""
        op, args, returns = self.name, self.arguments, self.returns
        if op.name.inplace and args.out:
            raise SchemaError(None, f"{op}: a schema cannot be both inplace and out=")
        for i, (arg, ret) in enumerate(zip(args.out, returns)):
            if arg.annotation != ret.annotation:
                raise SchemaError(
                    None, f"{op}: out argument {arg.name!r} must have the same alias annotation as return {i}"
                )
        for arg in args.post_self_positional:
            if arg.is_write and any(arg.annotation == r.annotation for r in returns):
                raise SchemaError(None, f"{op}: mutable positional argument {arg.name!r} must not be returned")
        mutable = [r for r in returns if r.is_write]
        if mutable and len(mutable) != len(returns):
            raise SchemaError(None, f"{op}: returns must be all mutable or all immutable, not mixed")
        aliasable = args.out + tuple(a for a in args.flat_positional if a.name == "self")
        for ret in mutable:
            if not any(ret.annotation == a.annotation for a in aliasable):
                raise SchemaError(
                    None,
                    f"{op}: mutable return {str(ret)!r} aliases no out argument and not self; "
                    "did you forget to mark an out argument as kwarg-only (after '*')?",
                )
        if args.out:
            if any(a.type != BaseType(BaseTy.Tensor) for a in args.out):
                if returns:
                    raise SchemaError(None, f"{op}: out= ops with non-Tensor out arguments must return ()")
            elif len([a for a in args.out if not a.name.startswith("_scratch_")]) != len(returns):
                raise SchemaError(None, f"{op}: an out= op returns exactly its (non-scratch) out arguments")
        if op.name.inplace:
            self_arg = args.self_arg
            if self_arg is None or not self_arg.is_write:
                raise SchemaError(None, f"{op}: an inplace op needs a mutable self, e.g. 'Tensor(a!) self'")
            if self_arg.type == BaseType(BaseTy.Tensor):
                if len(returns) != 1 or returns[0].annotation != self_arg.annotation:
                    raise SchemaError(None, f"{op}: an inplace op on 'Tensor self' returns exactly self")
            elif returns:
                raise SchemaError(None, f"{op}: an inplace op on a non-Tensor self must return ()")
        if args.tensor_options is not None and self.kind() is not SchemaKind.functional:
            raise SchemaError(None, f"{op}: tensor options (dtype, layout, device, pin_memory) need a functional op")
        if self.is_functional_fn() and self.kind() is not SchemaKind.functional:
            raise SchemaError(None, f"{op}: overload names containing 'functional' are for functional ops only")
