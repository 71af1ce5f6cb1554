"""The named tuples ops with several named results return (values, indices), re-exported as
torch.return_types (as PyTorch's torch._C._return_types).

Like PyTorch's structseq types: a tuple subclass per op name (torch.return_types.max), fields
readable by name, PyTorch's repr, and pickling by name. Generated bindings make one per op
with `structseq`; every type made is also an attribute of this module and of torch.return_types.
"""
from __future__ import annotations

import sys
from typing import Any


class _StructSeq(tuple):  # type: ignore[type-arg]
    __slots__ = ()
    n_fields: int = 0
    n_sequence_fields: int = 0
    n_unnamed_fields: int = 0
    _field_names: tuple[str, ...] = ()

    def __new__(cls, values: Any) -> Any:
        values = tuple(values)
        if len(values) != cls.n_fields:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {cls.n_fields}-sequence "
                            f"({len(values)}-sequence given)")
        return super().__new__(cls, values)

    def __repr__(self) -> str:
        body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._field_names, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self) -> Any:
        return (type(self), (tuple(self),))


def _field(i: int, doc: str) -> property:
    def get(self: tuple[Any, ...]) -> Any:
        return tuple.__getitem__(self, i)
    return property(get, doc=doc)


def structseq(name: str, fields: list[str]) -> type:
    """The return type torch.return_types.<name> with these fields (made once per name)."""
    existing = globals().get(name)
    if isinstance(existing, type) and issubclass(existing, _StructSeq):
        if list(existing._field_names) != list(fields):
            raise RuntimeError(f"torch.return_types.{name} already has fields {existing._field_names}, not {fields}")
        return existing
    namespace: dict[str, Any] = {"__slots__": (), "__module__": "torch.return_types", "__qualname__": name,
                                 "n_fields": len(fields), "n_sequence_fields": len(fields),
                                 "_field_names": tuple(fields)}
    for i, field in enumerate(fields):
        namespace[field] = _field(i, f"field {i}: {field}")
    cls = type(name, (_StructSeq,), namespace)
    setattr(sys.modules[__name__], name, cls)
    return cls
