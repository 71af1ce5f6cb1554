"""In-place and out= variants of a functional op, and the kernels generated for them.

An in-place (`add_.Tensor`) or out= (`add.out`) entry without `dispatch:` is a variant of the
functional entry with the same arguments (upstream pairs them the same way, by signature,
into a NativeFunctionsGroup). Pointwise ops get real in-place and out= loops (cpu_loops.py);
any other op gets a generic kernel: run the functional op, then write its result into `self`
or `out` with PyTorch's dtype, shape and resize rules (aten/native/composite/wrappers.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.model import Argument, SchemaError, SchemaKind
from torchgen.native_yaml import NativeFunction


@dataclass(frozen=True, slots=True)
class Variants:
    functional: NativeFunction
    inplace: NativeFunction | None
    out: NativeFunction | None


def _plain(args: tuple[Argument, ...]) -> list[tuple[str, str, str | None]]:
    return [(a.name, str(a.type), a.default) for a in args]


def _covers(functional: NativeFunction, args: list[tuple[str, str, str | None]]) -> bool:
    """The functional takes exactly these arguments, in order, plus only defaulted ones (a
    factory's TensorOptions: arange.out has none, and takes its dtype from `out`)."""
    theirs = _plain(functional.func.arguments.flat_all)
    return [a for a in theirs if a in args] == args and all(a in args or a[2] is not None or "?" in a[1]
                                                             for a in theirs)


def needs_generated_kernel(fn: NativeFunction) -> bool:
    """An in-place or out= entry without `dispatch:` (upstream would give it the implicit
    CompositeImplicitAutograd kernel; Ember generates it from the functional sibling instead)."""
    return (not fn.has_explicit_dispatch and not fn.structured and fn.structured_delegate is None
            and fn.func.kind() in (SchemaKind.inplace, SchemaKind.out))


def functional_of(fn: NativeFunction, group: list[NativeFunction]) -> NativeFunction:
    """The functional entry an in-place or out= entry (of the same base name) is a variant of."""
    mine = _plain(fn.func.arguments.flat_non_out)
    matches = [c for c in group if c.func.kind() is SchemaKind.functional and _covers(c, mine)]
    # Same arguments decide; the overload name breaks ties (floor_divide_.Tensor pairs with floor_divide).
    for cand in sorted(matches, key=lambda c: c.func.name.overload_name != fn.func.name.overload_name):
        return cand
    raise SchemaError(fn.loc, f"{fn.func.name} has no dispatch and no functional overload of "
                              f"{fn.func.name.name.base} with the same arguments to be generated from; "
                              "give it a `dispatch:`")


def variants_of(functional: NativeFunction, group: list[NativeFunction]) -> Variants:
    """The functional entry with its dispatch-less in-place and out= variants."""
    inplace = out = None
    for fn in group:
        if needs_generated_kernel(fn) and functional_of(fn, group) is functional:
            if fn.func.kind() is SchemaKind.inplace:
                inplace = fn
            else:
                out = fn
    return Variants(functional, inplace, out)


def wrapper_lines(fns: list[NativeFunction], group: list[NativeFunction]) -> list[tuple[str, str, str]]:
    """(kernel name, wrapper call, op name) for each dispatch-less variant in fns."""
    lines = []
    for fn in fns:
        functional = functional_of(fn, group)
        kernel = fn.func.name.unambiguous_name().replace(".", "_")
        if fn.func.kind() is SchemaKind.inplace:
            call = f'inplace_wrapper("{functional.func.name}")'
        else:
            outs = tuple(a.name for a in fn.func.arguments.out)
            names = [a.name for a in functional.func.arguments.flat_all]
            dtype_index = names.index("dtype") if "dtype" in names else -1
            call = (f'out_wrapper("{functional.func.name}", {len(fn.func.arguments.flat_non_out)}, {outs!r}, '
                    f'dtype_index={dtype_index})')
        lines.append((kernel, call, str(fn.func.name)))
    return lines
