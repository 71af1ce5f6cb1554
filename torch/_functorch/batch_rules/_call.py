"""An operator call as the handwritten batching rules rewrite it: arguments read and replaced by schema
name, dimension arguments moved past the batch dimension, the call run and its result batched."""
from __future__ import annotations

from typing import Any

from torch._functorch.batched import batch_size_at, facts_of, front, info, wrap_result
from torch._tensor import Tensor


def physical_dim(d: int, rank: int) -> int:
    """An example's dimension d (of an example of rank `rank`) in the value, whose dimension 0 is the batch."""
    r = max(rank, 1)
    if not -r <= d < r:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-r}, {r - 1}], but got {d})")
    return d % r + 1


class Call:
    def __init__(self, handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.handle = handle
        self.level = level
        self.facts = facts_of(handle)
        self.args = list(args)
        self.kwargs = dict(kwargs)
        self.original = (args, kwargs)

    def _position(self, name: str) -> int:
        return self.facts.names.index(name)

    def get(self, name: str, default: Any = None) -> Any:
        position = self._position(name)
        if position < len(self.args):
            return self.args[position]
        if name in self.kwargs:
            return self.kwargs[name]
        return self.facts.defaults.get(name, default)

    def set(self, name: str, value: Any) -> None:
        position = self._position(name)
        if position < len(self.args):
            self.args[position] = value
        else:
            self.kwargs[name] = value

    def first(self) -> Any:
        return self.args[0] if self.args else self.kwargs[self.facts.names[0]]

    def batched(self, t: Any) -> bool:
        found = info(t)
        return found is not None and found[2] == self.level

    def size(self) -> int:
        return batch_size_at(*self.original, self.level)

    def value(self, name: str) -> Any:
        """The named tensor's value at this level (batch in front), or the tensor itself when not batched here."""
        t = self.get(name)
        v = front(t, self.level)
        return t if v is None else v

    def expanded(self, name: str) -> Any:
        """The named tensor's value at this level, an unbatched one expanded over the batch."""
        t = self.get(name)
        v = front(t, self.level)
        if v is not None:
            return v
        return t.unsqueeze(0).expand((self.size(),) + tuple(t.shape))

    def tensors_batched(self) -> list[str]:
        """Names of the arguments batched at this level (Tensor[] arguments count when any element is)."""
        found = []
        for name in self.facts.names:
            v = self.get(name)
            if isinstance(v, (list, tuple)):
                if any(self.batched(e) for e in v):
                    found.append(name)
            elif self.batched(v):
                found.append(name)
        return found

    def run(self) -> Any:
        return self.handle(*self.args, **self.kwargs)

    def finish(self, result: Any) -> Any:
        """result batched at this level; an in-place or out= call returns the tensor it wrote."""
        if self.facts.written:
            name = self.facts.written[0]
            position = self._position(name)
            args, kwargs = self.original
            return args[position] if position < len(args) else kwargs[name]
        if self.facts.view and _is_view(result):     # (reshape may copy: then not a view)
            first = self.original[0][0] if self.original[0] else None
            return wrap_result(result, self.level, first if self.batched(first) else None)
        return wrap_result(result, self.level)


def on_value(name: str | None = None, batched_result: bool = True) -> Any:
    """The rule of an operator that takes the batch in its stride when only argument `name` is batched: the
    operator once on that argument's value (batch in front), its result batched (*_like factories, embedding's
    indices, layer norm's input) or, for factories that only read dtype and device from it (new_zeros), not.
    name None: the first argument."""

    def rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        c = Call(handle, level, args, kwargs)
        target = name or c.facts.names[0]
        if c.tensors_batched() != [target]:
            from torch._functorch.batched import fallback
            return fallback(handle, args, kwargs)
        c.set(target, c.value(target))
        return c.finish(c.run()) if batched_result else c.run()

    return rule


def _is_view(result: Any) -> bool:
    first = result[0] if isinstance(result, (tuple, list)) and result else result
    return isinstance(first, Tensor) and bool(first._is_view())

