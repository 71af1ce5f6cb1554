"""Render an `ember_pointwise` scalar formula to Cython or CUDA C.

A formula is a C-like expression over the op's argument names: numbers; + - * / (floating
only: integer division goes through the helpers); comparisons; && || !; bitwise & | ^ ~ << >>;
parentheses; `where(cond, a, b)`; math functions (MATH_FUNCTIONS: float spellings of libm,
floating loops only) and helpers (HELPERS: defined for every dtype with PyTorch's per-kind
semantics in aten/native/cpu/scalar_ops.pxd and its CUDA twin). It is parsed once and printed
fully parenthesised for either target, so C and Python operator precedence never differ;
number literals take the loop's dtype.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from torchgen.dtypes import DType
from torchgen.model import SchemaError

# name -> (float32 spelling, float64 spelling), shared by libm (Cython: libm.<name>) and CUDA.
MATH_FUNCTIONS: dict[str, tuple[str, str]] = {
    name: (name + "f", name)
    for name in ("exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos", "tan", "asin",
                 "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "fabs", "erf", "erfc",
                 "atan2", "hypot", "copysign", "lgamma")
}
# float32 spellings with a branch-free, vectorisable definition in aten/native/cpu/vec_math.h,
# used by the "c" target (a float32 CPU loop compiled per ISA: torchgen/targets/cpu_loops.py):
# math functions and, exact so the same as their scalar loops, sqrt and the rounding and selecting helpers.
VECTOR_FLOAT32: dict[str, str] = {"exp": "ember_vm_expf", "exp2": "ember_vm_exp2f", "expm1": "ember_vm_expm1f",
                                  "log": "ember_vm_logf", "log1p": "ember_vm_log1pf", "tanh": "ember_vm_tanhf",
                                  "erf": "ember_vm_erff", "fabs": "fabsf", "sqrt": "ember_vm_sqrtf",
                                  "floor": "ember_vm_floorf", "ceil": "ember_vm_ceilf", "trunc": "ember_vm_truncf",
                                  "round": "ember_vm_roundf", "isnan": "ember_vm_isnanf", "maximum": "ember_vm_maximumf",
                                  "minimum": "ember_vm_minimumf", "sign": "ember_vm_signf"}
# The VECTOR_FLOAT32 functions vec_math.h approximates (its own polynomials, not libm's bits).
VECTOR_APPROXIMATED = frozenset({"exp", "exp2", "expm1", "log", "log1p", "tanh", "erf"})
# Defined for every loop dtype: aten/native/cpu/scalar_ops.pxd (Cython, `sm.<name>`) and
# torchgen/templates/cuda_scalar_ops.cuh (CUDA, `ember_<name>`).
HELPERS = frozenset({"truncdiv", "floordiv", "remainder", "fmod", "pow", "abs", "sign", "floor", "ceil", "trunc",
                     "round", "round_decimals", "maximum", "minimum", "fmax", "fmin", "isnan", "isinf", "isfinite",
                     "lshift", "rshift", "erfinv"})
# Complex loops (complex64, complex128): C99's complex functions (Cython: `cm.<name>` of
# aten/native/cpu/complex_ops.pxd, which declares them), float and double spellings, and the ones
# C99 lacks, defined there once for both dtypes; CUDA: `ember_c<name>` of
# aten/native/cuda/kernels/complex.cuh, overloaded for both. A formula calling anything else has no complex
# loop: the op leaves `complex` out of its entry.
COMPLEX_FUNCTIONS: dict[str, tuple[str, str]] = {
    **{name: ("c" + name + "f", "c" + name)
       for name in ("exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                    "asinh", "acosh", "atanh", "pow", "abs")},
    **{name: ("c" + name, "c" + name) for name in ("log2", "log10", "isnan", "isinf", "isfinite", "sgn")},
    "conj": ("conjf", "conj"), "angle": ("cargf", "carg"), "real": ("crealf", "creal"), "imag": ("cimagf", "cimag"),
}

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?|\.\d+)|(?P<name>[A-Za-z_]\w*)"
                    r"|(?P<op>==|!=|<=|>=|&&|\|\||<<|>>|[-+*/()<>,!&|^~]))")
# Binary operators by precedence level, loosest first (C's order).
_LEVELS: tuple[tuple[str, ...], ...] = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
                                        ("<<", ">>"), ("+", "-"), ("*", "/"))
_CYTHON_OPS = {"||": "or", "&&": "and", "!": "not "}


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


@dataclass
class _Printer:
    """Recursive-descent parser that prints as it parses."""
    formula: str
    tokens: list[tuple[str, str]]
    names: dict[str, str]
    dtype: DType
    target: str
    pos: int = 0

    def error(self, message: str) -> SchemaError:
        return SchemaError(None, f"formula {self.formula!r}: {message}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, text: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (text is not None and tok[1] != text):
            raise self.error(f"expected {text or 'more'}, found {tok[1] if tok else 'the end'}")
        self.pos += 1
        return tok

    def expression(self, level: int = 0) -> str:
        if level == len(_LEVELS):
            return self.unary()
        left = self.expression(level + 1)
        while (tok := self.peek()) is not None and tok[0] == "op" and tok[1] in _LEVELS[level]:
            self.pos += 1
            right = self.expression(level + 1)
            op = _CYTHON_OPS.get(tok[1], tok[1]) if self.target == "cython" else tok[1]
            if op == "*" and self.dtype.is_complex and self.target == "cython":    # c10::complex's product
                left = f"cm.cmul{'f' if self.dtype.name == 'complex64' else ''}({left}, {right})"
            else:
                left = f"({left} {op} {right})"
        return left

    def unary(self) -> str:
        tok = self.peek()
        if tok is not None and tok[0] == "op" and tok[1] in ("-", "!", "~"):
            self.pos += 1
            op = _CYTHON_OPS.get(tok[1], tok[1]) if self.target == "cython" else tok[1]
            return f"({op}{self.unary()})"
        return self.primary()

    def primary(self) -> str:
        kind, text = self.take()
        if kind == "num":
            if self.target == "c":
                return f"(({self.dtype.ctype}){text})"
            if self.target == "cython":
                # a complex loop's literals are real numbers of its parts' type, which C99 promotes
                return f"(<{self.dtype.component.ctype}>{text})"
            return f"(({self.dtype.cuda_type}){text})"
        if kind == "op" and text == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if kind != "name":
            raise self.error(f"unexpected {text!r}")
        if (tok := self.peek()) is not None and tok[1] == "(":
            self.take("(")
            args = [self.expression()]
            while (tok := self.peek()) is not None and tok[1] == ",":
                self.take(",")
                args.append(self.expression())
            self.take(")")
            return self.call(text, args)
        if text not in self.names:
            raise self.error(f"unknown name {text!r}; arguments are {sorted(self.names)}")
        return self.names[text]

    def call(self, name: str, args: list[str]) -> str:
        if name == "where":
            if len(args) != 3:
                raise self.error("where() takes (condition, value if true, value if false)")
            c, a, b = args
            return f"({a} if {c} else {b})" if self.target == "cython" else f"(({c}) ? ({a}) : ({b}))"
        if self.dtype.is_complex:
            return self.complex_call(name, args)
        if name in HELPERS and self.target == "c":
            if name not in VECTOR_FLOAT32 or self.dtype.name != "float32":
                raise self.error(f"{name}() has no plain C definition (target c)")
            return f"{VECTOR_FLOAT32[name]}({', '.join(args)})"
        if name in HELPERS:
            return f"sm.{name}({', '.join(args)})" if self.target == "cython" else f"ember_{name}({', '.join(args)})"
        if name not in MATH_FUNCTIONS:
            if name in COMPLEX_FUNCTIONS:
                raise self.error(f"{name}() is a complex function, used in a {self.dtype.name} loop")
            known = ", ".join(sorted(set(MATH_FUNCTIONS) | HELPERS | {"where"}))
            raise self.error(f"unknown function {name}(); known: {known}")
        if not self.dtype.is_floating:
            raise self.error(f"{name}() is a floating-point function, used in a {self.dtype.name} loop; "
                             "use a helper or restrict `dtypes`")
        single, double = MATH_FUNCTIONS[name]
        spelt = single if self.dtype.name == "float32" else double
        if self.target == "c":
            if self.dtype.name != "float32" or name not in VECTOR_FLOAT32:
                raise self.error(f"{name}() has no vectorised {self.dtype.name} definition (target c)")
            spelt = VECTOR_FLOAT32[name]
        return f"libm.{spelt}({', '.join(args)})" if self.target == "cython" else f"{spelt}({', '.join(args)})"

    def complex_call(self, name: str, args: list[str]) -> str:
        if self.target == "c":
            raise self.error("complex loops have no plain C definition (target c)")
        if name not in COMPLEX_FUNCTIONS:
            raise self.error(f"{name}() has no complex definition; known: {', '.join(sorted(COMPLEX_FUNCTIONS))}")
        if self.target == "cuda":       # overloaded for both dtypes (aten/native/cuda/kernels/complex.cuh)
            return f"ember_c{name}({', '.join(args)})"
        single, double = COMPLEX_FUNCTIONS[name]
        return f"cm.{single if self.dtype.name == 'complex64' else double}({', '.join(args)})"


def render(formula: str, names: dict[str, str], dtype: DType, target: str) -> str:
    """The formula with arguments renamed per `names` and functions spelt for dtype and target.

    Targets: "cython" (libm), "cuda", and "c": plain C for a float32 CPU loop, only the
    functions of VECTOR_FLOAT32 and no helpers (anything else raises SchemaError).
    """
    printer = _Printer(formula, tokenize(formula), names, dtype, target)
    text = printer.expression()
    if printer.pos != len(printer.tokens):
        raise printer.error(f"unexpected {printer.tokens[printer.pos][1]!r} after a complete expression")
    return text
