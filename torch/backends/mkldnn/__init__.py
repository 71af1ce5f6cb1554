"""torch.backends.mkldnn: oneDNN, which Ember is not built with; its flags are kept and readable."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator

from torch.backends import Flag, NoVerbose, PropModule, _allow_nonbracketed_mutation

__all__ = ["is_available", "is_acl_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON", "VERBOSE_ON_CREATION",
           "set_flags", "flags"]

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2

_enabled = Flag("set_enabled_mkldnn", True)
_deterministic = Flag("set_deterministic_mkldnn", False)
_allow_tf32 = Flag("set_allow_tf32_mkldnn", False)
_fp32_precision = Flag("set_fp32_precision_mkldnn", "none", str)


def is_available() -> bool:
    return False


def is_acl_available() -> bool:
    return False


class verbose(NoVerbose):
    """oneDNN's verbose mode for a block: nothing to report without oneDNN."""


def set_flags(_enabled_: Any = None, _deterministic_: Any = None, _allow_tf32_: Any = None,
              _fp32_precision_: Any = "none") -> tuple[Any, ...]:
    previous = (_enabled.value, _deterministic.value, _allow_tf32.value, _fp32_precision.value)
    for flag, value in ((_enabled, _enabled_), (_deterministic, _deterministic_), (_allow_tf32, _allow_tf32_),
                        (_fp32_precision, _fp32_precision_)):
        if value is not None:
            flag.set(value)
    return previous


@contextmanager
def flags(enabled: bool = False, deterministic: bool = False, allow_tf32: bool = True,
          fp32_precision: str = "none") -> Iterator[None]:
    with _allow_nonbracketed_mutation():
        previous = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        with _allow_nonbracketed_mutation():
            set_flags(*previous)


class MkldnnModule(PropModule):
    enabled = _enabled.prop()
    deterministic = _deterministic.prop()
    allow_tf32 = _allow_tf32.prop()
    fp32_precision = _fp32_precision.prop()


sys.modules[__name__] = MkldnnModule(sys.modules[__name__], __name__)

enabled: bool
deterministic: bool
allow_tf32: bool
fp32_precision: str
