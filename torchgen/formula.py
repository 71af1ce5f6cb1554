"""Render an `ember_pointwise` scalar formula to Cython or CUDA C.

A formula is a C-like expression over the op's argument names: numbers, + - * /, comparisons,
parentheses and calls of the math functions below. Both targets share the operators; only
names and functions differ, so the formula is written once (as tinygrad's renderers differ
only in code_for_op).
"""
from __future__ import annotations

import re

from torchgen.dtypes import DType
from torchgen.model import SchemaError

# name -> (float32 spelling, float64 spelling), shared by libm (Cython: libm.<name>) and CUDA.
MATH_FUNCTIONS: dict[str, tuple[str, str]] = {
    name: (name + "f", name)
    for name in ("exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos", "tan", "asin",
                 "acos", "atan", "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "fabs", "erf", "pow",
                 "fmod", "atan2", "fmax", "fmin")
}

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?|\.\d+)|(?P<name>[A-Za-z_]\w*)"
                    r"|(?P<op>==|!=|<=|>=|&&|\|\||[-+*/()<>,!]))")


def tokenize(formula: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = formula.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise SchemaError(None, f"formula {formula!r}: unexpected character {text[pos:].lstrip()[:1]!r}")
        kind = m.lastgroup
        assert kind is not None
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    return tokens


def render(formula: str, names: dict[str, str], dtype: DType, target: str) -> str:
    """The formula with arguments renamed per `names` and functions spelt for dtype and target."""
    tokens = tokenize(formula)
    out: list[str] = []
    for i, (kind, text) in enumerate(tokens):
        if kind == "name":
            is_call = i + 1 < len(tokens) and tokens[i + 1] == ("op", "(")
            if is_call:
                out.append(_function(text, dtype, target, formula))
            elif text in names:
                out.append(names[text])
            else:
                raise SchemaError(None, f"formula {formula!r}: unknown name {text!r}; arguments are {sorted(names)}")
        elif kind == "op" and target == "cython" and text in ("&&", "||", "!"):
            out.append({"&&": " and ", "||": " or ", "!": "not "}[text])
        elif kind == "op" and text in ("(", ")", ","):
            out.append(text + (" " if text == "," else ""))
        elif kind == "op":
            out.append(f" {text} " if text not in ("!",) else text)
        else:
            out.append(text)
    rendered = "".join(out)
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", re.sub(r"^\s*-\s+", "-", rendered))).replace("( -", "(-")


def _function(name: str, dtype: DType, target: str, formula: str) -> str:
    if name not in MATH_FUNCTIONS:
        raise SchemaError(None, f"formula {formula!r}: unknown function {name}(); known: {', '.join(sorted(MATH_FUNCTIONS))}")
    single, double = MATH_FUNCTIONS[name]
    spelt = single if dtype.name == "float32" else double
    return f"libm.{spelt}" if target == "cython" else spelt
