"""Target: the operator lists vmap's batching rules are generated from (torch/_functorch/_gen_batching.py).

Every op tagged `pointwise`, with its in-place and out= variants, gets the generic pointwise batching
rule; ops tagged `nondeterministic_seeded` follow vmap's `randomness`; ops tagged `dynamic_output_shape`
refuse batching with PyTorch's error."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from torchgen.model import SchemaError, SchemaKind
from torchgen.native_yaml import NativeFunction
from torchgen.targets import variants


@dataclass(frozen=True)
class BatchingLists:
    pointwise: list[str]
    random: list[str]
    dynamic_shape: list[str]


def _tagged_through_functional(fn: NativeFunction, group: list[NativeFunction], tag: str) -> bool:
    """fn carries tag, or is an in-place/out= variant of a functional entry that does."""
    if tag in fn.tags:
        return True
    if fn.func.kind() not in (SchemaKind.inplace, SchemaKind.out):
        return False
    try:
        return tag in variants.functional_of(fn, group).tags
    except SchemaError:
        return False


def batching_lists(fns: list[NativeFunction]) -> BatchingLists:
    groups: dict[str, list[NativeFunction]] = defaultdict(list)
    for fn in fns:
        groups[fn.func.name.name.base].append(fn)

    def names(tag: str) -> list[str]:
        return sorted(str(fn.func.name) for fn in fns
                      if _tagged_through_functional(fn, groups[fn.func.name.name.base], tag))

    return BatchingLists(names("pointwise"), names("nondeterministic_seeded"), names("dynamic_output_shape"))
