"""Handwritten kernels checked against their schema at build time, so that a parameter mismatch
fails the build (with the schema's file:line and the kernel's) instead of the first call.

Kernels are called with the schema's arguments in its order: positionally from the dispatcher, and
keyword-only arguments by name from composites. So a kernel must take at least the schema's
arguments, none of them keyword-only in the kernel; each of the schema's keyword-only ones (after
`*`, and out=) under its schema name and not positional-only; a default wherever the schema has
one. Extra parameters need defaults (one kernel may serve several overloads), and
a kernel taking *args or **kwargs accepts anything."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from torchgen.model import SchemaError
from torchgen.native_yaml import NativeFunction


@dataclass(frozen=True)
class Parameter:
    name: str
    has_default: bool
    variadic: bool = False      # *args or **kwargs
    keyword_only: bool = False  # after a bare `*` or *args
    positional_only: bool = False   # before a `/`


def _split_top_level(text: str) -> list[str]:
    """The comma-separated parts of a parameter list, with comments dropped; commas inside
    brackets or string literals do not split."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            current.append(c)
            if c == "\\" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
            current.append(c)
        elif c == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif c == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            depth += 1 if c in "([{" else -1 if c in ")]}" else 0
            current.append(c)
        i += 1
    if "".join(current).strip():
        parts.append("".join(current))
    return parts


def parameters_of(path: Path, name: str) -> tuple[list[Parameter], int] | None:
    """The parameters of `def name(...)` (Python or Cython: typed, `not None`, annotated, with `*`
    and `/` markers and comments) and its line, or None when the file does not define it."""
    text = path.read_text()
    match = re.search(rf"^(?:c?p?def)\s+(?:[\w.\[\]*]+\s+)*?{re.escape(name)}\s*\(", text, re.M)
    if match is None:
        return None
    depth, end = 1, match.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    params: list[Parameter] = []
    keyword_only = False
    for raw in _split_top_level(text[match.end():end - 1]):
        part = " ".join(raw.split())
        if part == "/":
            params = [Parameter(p.name, p.has_default, p.variadic, p.keyword_only, True) for p in params]
            continue
        if part.startswith("*"):
            if part.startswith("**"):
                params.append(Parameter(part.lstrip("*"), True, variadic=True))
            else:
                if part != "*":
                    params.append(Parameter(part.lstrip("*"), True, variadic=True))
                keyword_only = True
            continue
        head = part.split("=")[0].split(":")[0].replace(" not None", "").strip()
        params.append(Parameter(head.split()[-1], "=" in part, keyword_only=keyword_only))
    return params, text[:match.start()].count("\n") + 1


def check(fn: NativeFunction, key: str, kernel: str, path: Path, rel: str) -> None:
    found = parameters_of(path, kernel)
    if found is None:
        return
    params, line = found
    if any(p.variadic for p in params):
        return
    args = fn.func.arguments
    schema = [(a.name, a.default is not None, False) for a in args.flat_positional]
    schema += [(a.name, a.default is not None, True) for a in (*args.flat_kwarg_only, *args.out)]
    problems = []
    if len(params) < len(schema):
        problems.append(f"it takes {len(params)} parameters for the schema's {len(schema)} arguments "
                        f"({', '.join(n for n, _, _ in schema)})")
    for param, (name, default, keyword) in zip(params, schema):
        if keyword and param.name != name:
            problems.append(f"keyword-only argument `{name}` is its parameter `{param.name}`")
        if keyword and param.positional_only:
            problems.append(f"keyword-only argument `{name}` is its positional-only parameter `{param.name}`")
        if param.keyword_only:     # the dispatcher passes every argument by position
            problems.append(f"argument `{name}` is its keyword-only parameter `{param.name}`")
        if default and not param.has_default:
            problems.append(f"argument `{name}` has a default in the schema, parameter `{param.name}` has none")
    problems += [f"extra parameter `{p.name}` has no default" for p in params[len(schema):] if not p.has_default]
    if problems:
        raise SchemaError(fn.loc, f"kernel {kernel} ({rel}:{line}) for aten::{fn.func.name} ({key}) does not "
                                  f"match the schema: {'; '.join(problems)}")
