"""torch._dynamo.plain_values: the values a guard compares by equality (numbers, strings, None, dtypes, devices, and
tuples or lists of them) and how it compares them, and what a functools.partial or a function argument binds
(compared as PyTorch's guards compare them: the same objects, plain values equal)."""
from __future__ import annotations

import functools
import math
import sys
import types
from typing import Any

import torch

__all__ = ["binding", "holds_float", "is_plain_value", "same_binding", "same_plain"]

_PLAIN = (int, float, bool, str, bytes, type(None), torch.dtype, torch.device, complex)


def is_plain_value(value: Any) -> bool:
    """A value a guard compares by equality: numbers (NumPy's scalars too), strings, None, dtypes and devices,
    and tuples or lists of them."""
    if isinstance(value, _PLAIN) or _numpy_scalar(value):
        return True
    if isinstance(value, (tuple, list)) and len(value) <= 64:
        return all(isinstance(v, _PLAIN) or _numpy_scalar(v) for v in value)
    return False


def holds_float(value: Any) -> bool:
    """Whether a plain value is or holds a float or complex (compared by same_plain, not ==: -0.0, NaN)."""
    if isinstance(value, (float, complex)):
        return True
    return isinstance(value, (tuple, list)) and any(holds_float(v) for v in value)


def same_plain(a: Any, b: Any) -> bool:
    """Whether two plain values are the same to a graph that holds one of them: of one type and equal, a float's
    sign too (-0.0 is not 0.0: x / -0.0 is -inf) and a NaN the same as a NaN; tuples and lists member by member."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_plain(x, y) for x, y in zip(a, b))
    if isinstance(a, complex):
        return same_plain(a.real, b.real) and same_plain(a.imag, b.imag)
    if isinstance(a, float):
        return (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)) or (a != a and b != b)
    try:
        return bool(a == b)
    except Exception:           # a value without a truth value for ==
        return False


def _numpy_scalar(value: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.generic) and value.dtype.kind in "biufc"


def binding(value: Any) -> tuple[tuple[Any, ...], ...] | None:
    """What a functools.partial or a Python function binds, as PyTorch guards an argument holding one, in groups
    compared member by member (same_binding): the function; a function's code, globals, names, defaults, keyword
    defaults, annotations and closure; a partial's arguments and keywords. None for any other object (guarded by
    identity)."""
    if type(value) is functools.partial:
        keywords = value.keywords
        return (value.func,), tuple(value.args), tuple(keywords), tuple(keywords.values())
    if type(value) is not types.FunctionType:
        return None
    try:
        cells = tuple(cell.cell_contents for cell in value.__closure__ or ())
    except ValueError:          # an empty cell
        return None
    kwdefaults, annotations = value.__kwdefaults__ or {}, value.__annotations__
    return ((value.__code__, value.__globals__),
            (value.__name__, value.__qualname__, value.__module__, value.__doc__), value.__defaults__ or (),
            tuple(kwdefaults), tuple(kwdefaults.values()), tuple(annotations), tuple(annotations.values()), cells)


def same_binding(now: Any, expected: tuple[tuple[Any, ...], ...]) -> bool:
    """Whether an object binds what a binding holds, group by group: the same objects, or equal immutable plain
    values (a list, which the call could hand back or change, the same object)."""
    found = binding(now)
    return found is not None and len(found) == len(expected) and all(
        len(group) == len(held) and all(a is b or (is_plain_value(b) and not isinstance(b, list) and same_plain(a, b))
                                         for a, b in zip(group, held))
        for group, held in zip(found, expected))
