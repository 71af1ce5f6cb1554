"""Operator schemas at run time: `parse_schema("ns::name.overload(Tensor x, *, int k=2) -> Tensor")`.

The build parses native_functions.yaml with torchgen; user operators (torch.library) are declared
while the program runs, and torchgen is build-time only, so this is a small parser of the same
language (PyTorch's FunctionSchema): types with `?`, `[]`/`[N]` and alias annotations (`Tensor(a!)`),
`*` before keyword-only arguments, defaults (None, True/False, numbers, strings, lists, names) and a
single return, a tuple of returns or `()`. Errors are RuntimeErrors that point at the offending
token, as PyTorch's schema parser does. str() of a schema gives its canonical text.
"""
from __future__ import annotations

import re

BASE_TYPES = frozenset((
    "Tensor", "int", "float", "bool", "Scalar", "str", "SymInt", "SymFloat", "SymBool", "ScalarType",
    "Layout", "Device", "MemoryFormat", "Generator", "Dimname", "Storage", "Stream", "complex", "Any",
    "QScheme", "DeviceIndex", "GraphModule", "t", "number", "AnyEnumType"))

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<arrow>->)
  | (?P<ns>::)
  | (?P<number>-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<punct>[()\[\],*?!=.|])
""", re.VERBOSE)


class Argument:
    """One argument or return: `type` is its schema type text ("Tensor?", "int[2]"), `alias` the
    annotation inside Tensor(...) or "", `default_value` the Python value of its default."""
    __slots__ = ("name", "type", "alias", "has_default", "default_value", "default_text", "kwarg_only")

    def __init__(self, name: str, type: str, alias: str = "", has_default: bool = False,
                 default_value: object = None, default_text: str = "", kwarg_only: bool = False) -> None:
        self.name = name
        self.type = type
        self.alias = alias
        self.has_default = has_default
        self.default_value = default_value
        self.default_text = default_text
        self.kwarg_only = kwarg_only

    @property
    def is_write(self) -> bool:
        return "!" in self.alias

    def type_text(self) -> str:
        if not self.alias:
            return self.type
        base = re.match(r"[A-Za-z_]+", self.type).group(0)  # type: ignore[union-attr]
        return f"{base}({self.alias}){self.type[len(base):]}"

    def __str__(self) -> str:
        text = self.type_text() + (f" {self.name}" if self.name else "")
        return text + (f"={self.default_text}" if self.has_default else "")

    def __repr__(self) -> str:
        return f"Argument({str(self)!r})"


class FunctionSchema:
    """A parsed operator schema: `name` ("ns::op" or "op"), `overload_name`, `arguments`, `returns`."""

    def __init__(self, name: str, overload_name: str, arguments: list[Argument], returns: list[Argument]) -> None:
        self.name = name
        self.overload_name = overload_name
        self.arguments = arguments
        self.returns = returns

    @property
    def namespace(self) -> str:
        return self.name.split("::", 1)[0] if "::" in self.name else ""

    def __str__(self) -> str:
        parts = []
        star = False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(str(a))
        if len(self.returns) == 1:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        overload = f".{self.overload_name}" if self.overload_name else ""
        return f"{self.name}{overload}({', '.join(parts)}) -> {rets}"

    def __repr__(self) -> str:
        return f"FunctionSchema({str(self)!r})"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                self.error(f"unexpected character '{text[pos]}' here:", pos, 1)
            assert m is not None      # error() raises
            kind = m.lastgroup
            if kind != "space":
                value = m.group(0)
                self.tokens.append((value if kind == "punct" else kind, value, pos))  # type: ignore[arg-type]
            pos = m.end()
        self.tokens.append(("eof", "", len(text)))
        self.i = 0

    def error(self, message: str, pos: int, width: int) -> None:
        raise RuntimeError(f"{message}\n{self.text}\n{' ' * pos}{'~' * max(width, 1)} <--- HERE\n")

    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def next(self) -> tuple[str, str, int]:
        tok = self.peek()
        self.i += 1
        return tok

    def accept(self, kind: str) -> bool:
        if self.peek()[0] == kind:
            self.i += 1
            return True
        return False

    def expect(self, kind: str, what: str | None = None) -> str:
        tok = self.next()
        if tok[0] != kind:
            self.error(f"expected {what or kind} but found '{tok[0]}' here:", tok[2], len(tok[1]))
        return tok[1]

    # schema := name ['.' overload] '(' arguments ')' '->' returns
    def schema(self) -> FunctionSchema:
        name = self.expect("ident")
        if self.accept("ns"):
            name += "::" + self.expect("ident")
        overload = self.expect("ident") if self.accept(".") else ""
        if self.peek()[0] != "(":
            self.expect("eof")          # a bare operator name is not a schema
            raise RuntimeError(f"expected a schema with arguments and returns, got the operator name '{self.text}'")
        self.next()
        arguments: list[Argument] = []
        kwarg_only = False
        closed = self.accept(")")
        while not closed:
            if self.accept("*"):
                kwarg_only = True
            else:
                arguments.append(self.argument(kwarg_only, is_return=False))
            closed = not self.accept(",")
            if closed:
                self.expect(")")
        self.expect("arrow")
        returns: list[Argument] = []
        if self.accept("("):
            closed = self.accept(")")
            while not closed:
                returns.append(self.argument(False, is_return=True))
                closed = not self.accept(",")
                if closed:
                    self.expect(")")
        else:
            returns.append(self.argument(False, is_return=True))
        self.expect("eof")
        seen_default = None
        for a in arguments:
            if a.has_default and not a.kwarg_only:
                seen_default = a
            elif seen_default is not None and not a.kwarg_only:
                raise RuntimeError(f"Non-default positional argument follows default argument. Parameter {a.name} "
                                   f"in {self.text}")
        return FunctionSchema(name, overload, arguments, returns)

    def argument(self, kwarg_only: bool, is_return: bool) -> Argument:
        kind, base, pos = self.next()
        if kind != "ident":
            self.error(f"expected ident but found '{kind}' here:", pos, len(base))
        if base not in BASE_TYPES:
            self.error("\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, float, "
                       "bool, Scalar; for a full list, please see "
                       "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func :",
                       pos, len(base))
        alias = ""
        if self.peek()[0] == "(" and not is_return or (is_return and self.peek()[0] == "("
                                                       and self.peek(1)[0] == "ident" and self.peek(2)[0] in "!|)"):
            self.next()
            start = self.peek()[2]
            while self.peek()[0] not in (")", "eof"):
                self.next()
            alias = self.text[start:self.peek()[2]].strip()
            self.expect(")")
        type_text = base
        while True:
            if self.accept("?"):
                type_text += "?"
            elif self.accept("["):
                size = self.expect("number") if self.peek()[0] == "number" else ""
                self.expect("]")
                type_text += f"[{size}]"
            else:
                break
        name = ""
        if self.peek()[0] == "ident":
            name = self.next()[1]
        elif not is_return:
            tok = self.peek()
            self.error(f"expected ident but found '{tok[0]}' here:", tok[2], len(tok[1]))
        arg = Argument(name, type_text, alias, kwarg_only=kwarg_only)
        if not is_return and self.accept("="):
            arg.has_default = True
            arg.default_text, arg.default_value = self.default(type_text)
        return arg

    def default(self, type_text: str) -> tuple[str, object]:
        kind, value, pos = self.peek()
        if kind == "[":
            self.next()
            items: list[object] = []
            texts: list[str] = []
            while self.peek()[0] != "]":
                if items:
                    self.expect(",")
                text, item = self.scalar_default(in_list=True)
                items.append(item)
                texts.append(text)
            self.expect("]")
            return "[" + ", ".join(texts) + "]", items
        text, item = self.scalar_default(in_list=False)
        fixed = re.search(r"\[(\d+)\]$", type_text)
        if fixed and isinstance(item, int) and not isinstance(item, bool):
            item = [item] * int(fixed.group(1))
        return text, item

    def scalar_default(self, in_list: bool) -> tuple[str, object]:
        kind, value, pos = self.next()
        if kind == "number":
            return value, (int(value) if re.fullmatch(r"-?\d+", value) else float(value))
        if kind == "string":
            body = value[1:-1].encode("utf-8").decode("unicode_escape")
            return '"' + value[1:-1] + '"', body
        if kind == "ident":
            if value in ("None", "True", "False"):
                return value, {"None": None, "True": True, "False": False}[value]
            if in_list:
                self.error("\ninvalid numeric default value:", pos, len(value))
            return value, value          # an enum name: contiguous_format, long, Mean ...
        self.error(f"expected None but found '{kind}' here:", pos, len(value))
        raise AssertionError("unreachable")


def parse_schema(text: str) -> FunctionSchema:
    """Parse PyTorch's operator schema text; RuntimeError (pointing at the token) when it is invalid."""
    return _Parser(text).schema()

