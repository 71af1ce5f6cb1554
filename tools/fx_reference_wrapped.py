"""The torch.fx reference cases' module-level programs: torch.fx.wrap only accepts functions of a
module's global scope (it is called at the top level of a module and patches that module's globals
while tracing), so the functions it wraps, and the programs that call them, live here rather than
in the cases of tools/fx_reference_tracing.py.

Like the other recorders' cases this module takes the torch package as a parameter (tools/ never
imports it): `wrap_functions(torch)` runs the wrap() calls as top-level code of this module (what
wrap requires), and the classes built on torch come from functions of it. It is imported as
`tools.fx_reference_wrapped` by the tests and by tools/record_fx_reference.py alike, so the names
that printed graphs and generated code give its functions are the same under PyTorch and Ember.

The programs are written as the tests wrote them, without annotations (they would show in printed
graphs and generated code). The builtin `len` is wrapped here: a function of this module that calls
len() on a traced value records a call_function node (the other cases' programs, elsewhere, get
PyTorch's error).
"""
import dataclasses
import enum
import math
from typing import Any

class Mode(enum.Enum):
    A = 1
    B = 2


class Level(enum.IntEnum):
    LOW = 1


@dataclasses.dataclass
class Cfg:
    scale: float
    bias: int = 0


@dataclasses.dataclass
class Pair:
    first: object
    second: object


@dataclasses.dataclass
class Lowered:
    value: int

    def __fx_create_arg__(self, tracer):
        return self.value * 100


def use_mode(x, mode):
    return x * (2 if mode is Mode.A else 3)


def use_cfg(x, cfg):
    return x * cfg.scale + cfg.bias


def passthrough(x, *extra, **options):
    return x


def fails_inside(x):
    raise ValueError("boom inside")


def sign_of_sum(x):
    # data-dependent control flow: only traceable as a leaf
    if x.sum() > 0:
        return x
    return -x


def scaled(x, factor):
    return x * factor


# What would be the module's top-level `torch.fx.wrap(...)` lines (scaled: the decorator form).
_WRAP_CALLS = """
_wrap("use_mode")
_wrap("use_cfg")
_wrap("passthrough")
_wrap("len")
_wrap("sign_of_sum")
scaled = _wrap(scaled)
"""


def wrap_functions(torch: Any) -> None:
    """torch.fx.wrap this module's wrapped functions (again: registering twice changes nothing)."""
    namespace = globals()
    namespace["_wrap"] = torch.fx.wrap
    try:
        exec(compile(_WRAP_CALLS, __file__, "exec"), namespace)  # noqa: S102 (module-level code, as wrap needs)
    finally:
        del namespace["_wrap"]


# -- programs that call the wrapped functions ------------------------------------------------------------------------

def mode_constant(x):
    return use_mode(x, Mode.A)


def modes_in_lists_and_keywords(x):
    return passthrough(x, [Mode.A, 2], mode=Mode.B)


def int_enum_member(x):
    return passthrough(x, Level.LOW)


def enum_class_argument(x):
    return passthrough(x, Mode)


def dataclass_argument(x):
    return use_cfg(x, Cfg(2.0, 1))


def nested_dataclasses(x):
    return passthrough(x, Pair((x, 2), Pair(Mode.B, [x])), c=Cfg(1.0))


def fx_create_arg_dataclass(x):
    return passthrough(x, Lowered(3))


def wrapped_len(x):
    return len(x) + 1


def wrapped_and_decorated(x):
    return sign_of_sum(x) + scaled(x, 3.0)


def inner_trace(y):
    return use_mode(y, Mode.B) + math.sqrt(y.size(0))


def modules(torch: Any) -> dict[str, Any]:
    """The programs built on the given torch that call the wrapped functions: Failing fails after recording
    wrapped calls, TracesInside traces inner_trace while being traced itself (the inner graphs land in its
    `inner_graphs`), Box is a ProxyableClassMeta class and boxed(x) passes a Box of x through."""

    class Failing(torch.nn.Module):
        def forward(self, x):
            passthrough(x, len(x), math.sqrt(x.size(0)))
            return fails_inside(x)

    class TracesInside(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner_graphs = []

        def forward(self, x):
            self.inner_graphs.append(torch.fx.symbolic_trace(inner_trace).graph)
            return use_mode(x, Mode.A)

    class Box(metaclass=torch.fx.ProxyableClassMeta):
        def __init__(self, content):
            self.content = content

    def boxed(x):
        return passthrough(Box(x))

    return {"Failing": Failing, "TracesInside": TracesInside, "Box": Box, "boxed": boxed}
