"""torch._dynamo.array_arguments: a NumPy array argument that the compiled function only converts whole into a
tensor sharing its memory (torch.from_numpy(a), torch.as_tensor(a), torch.asarray(a), and the parameter used
nowhere else in the function's code, nor its frame's locals read another way) is a graph input made from each
call's array, guarded on its type, on the tensor's layout (a new size joins the capture's family of sizes) and on
its memory staying apart from the other inputs', as Dynamo makes an ndarray argument a tensor input: a new array
each call replays. The inputs are the tensors whose storage borrows the array itself, not others over the same
memory (a global's). Any other use keeps the array guarded on its values (guards.array_state), since the program
may read them outside any operator; so do a converted tensor handed back or no operator reads, and an array
sharing memory with another input at the capture."""
from __future__ import annotations

import dis
import functools
import inspect
from typing import Any, Callable

import torch
from torch._dynamo.guards import Snapshot, is_array

__all__ = ["bind_converted", "converted_arrays"]

_CONVERTERS = ("from_numpy", "as_tensor", "asarray")
# Names through which code reads its own locals other than by LOAD_FAST.
_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec", "_getframe", "currentframe", "f_locals"})


def converted_arrays(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                     flat: list[Any]) -> dict[int, Snapshot]:
    """The array arguments fn's own code only converts, by flat position: their values before the call, guarded
    after it where a conversion cannot be an input."""
    code, namespace = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or namespace is None or not any(is_array(value) for value in flat):
        return {}
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return {}
    position = {id(value): i for i, value in enumerate(flat)}
    parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return {position[id(value)]: Snapshot(value) for name, value in bound.items()
            if id(value) in position and is_array(value) and name in parameters
            and name not in code.co_cellvars and _only_converted(code, name, namespace)}


def _only_converted(code: Any, name: str, namespace: dict[str, Any]) -> bool:
    """Whether every use of local `name` in code is as the one positional argument of a converter call (and the
    code names nothing that reads its frame's locals another way)."""
    if not _FRAME_READERS.isdisjoint(code.co_names):
        return False
    instructions = list(dis.get_instructions(code))
    loads = 0
    for k, ins in enumerate(instructions):
        if ins.argval != name or "FAST" not in ins.opname:
            continue
        if ins.opname != "LOAD_FAST" or not _converter_at(instructions, k - 1, namespace) or \
                k + 1 >= len(instructions) or instructions[k + 1].opname not in ("PRECALL", "CALL") or \
                instructions[k + 1].arg != 1:
            return False
        loads += 1
    return loads > 0


def _converter_at(instructions: list[Any], k: int, namespace: dict[str, Any]) -> bool:
    """Whether instruction k loads torch.from_numpy, torch.as_tensor or torch.asarray (through a global)."""
    if k < 0:
        return False
    ins = instructions[k]
    if ins.opname == "LOAD_GLOBAL":
        return any(namespace.get(ins.argval) is getattr(torch, converter) for converter in _CONVERTERS)
    return (ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and ins.argval in _CONVERTERS and k > 0
            and instructions[k - 1].opname == "LOAD_GLOBAL" and namespace.get(instructions[k - 1].argval) is torch)


def _converted(flat: list[Any], position: int) -> Any:
    """A source's reader: the call's array as a tensor sharing its memory (None, failing the guard, if it cannot
    be one)."""
    try:
        return torch.from_numpy(flat[position])
    except (TypeError, ValueError, RuntimeError):
        return None


def bind_converted(cap: Any, flat: list[Any], names: list[str], converted: dict[int, Snapshot],
                   leaves: list[Any]) -> None:
    """After the call: the tensors the graph holds as constants that are converted arrays made inputs read from
    each call's array (cap's sources); an array whose conversions cannot all be inputs (or any, after a graph
    break) guarded on its values instead of on its type."""
    kept = set(converted) if cap.break_reason is not None else _bind(cap, flat, names, converted, leaves)
    cap.guards.values = [(p, n, converted[p] if p in kept else v) for p, n, v in cap.guards.values]


def _bind(cap: Any, flat: list[Any], names: list[str], converted: dict[int, Snapshot], leaves: list[Any]) -> set[int]:
    """The converted arrays' tensors made sources; the positions kept on their values."""
    spans = {i: span for i, span in ((i, _span(v)) for i, v in enumerate(flat)
                                     if isinstance(v, torch.Tensor) or is_array(v)) if span is not None}
    returned = {id(leaf) for leaf in leaves}
    kept = set()
    for i in converted:
        if i not in spans:
            kept.add(i)
            continue
        start, end = spans[i]
        # the tensors the call made of this array (their storage borrows it), not others over its memory
        made = [t for t in cap.tracer.constant_tensors if t._untyped_storage.lender() is flat[i]]
        # a tensor of its memory the graph does not make (handed back as captured), or memory another input shares
        escaped = any(isinstance(t, torch.Tensor) and t.numel() and start <= t.data_ptr() < end
                      and not any(t is m for m in made) for t in leaves)
        shared = any(j != i and _overlap(span, spans[i]) for j, span in spans.items())
        if not made or escaped or shared or any(id(t) in returned for t in made):
            kept.add(i)
            continue
        for tensor in made:
            node = cap.tracer.nodes[id(tensor)][1]
            cap.constant_as_source(tensor, node, f"torch.from_numpy({names[i]})",
                                   lambda flat, i=i: _converted(flat, i))
    bound = [i for i in converted if i not in kept]
    if bound and len(spans) > 1:        # a replay's arrays as apart from the other inputs as these were
        cap.guards.add_none("the memory of the converted arrays", functools.partial(
            _apart, arrays=bound, others=sorted(spans)))
    return kept


def _span(value: Any) -> tuple[int, int] | None:
    """The bytes a tensor's storage or an array's elements take ([start, end)); None when empty."""
    if isinstance(value, torch.Tensor):
        storage = value.untyped_storage()
        return (storage.data_ptr(), storage.data_ptr() + storage.nbytes()) if storage.nbytes() else None
    if not value.size:
        return None
    start = value.__array_interface__["data"][0]
    low = start + sum((n - 1) * step for n, step in zip(value.shape, value.strides) if step < 0)
    high = start + sum((n - 1) * step for n, step in zip(value.shape, value.strides) if step > 0) + value.itemsize
    return low, high


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _apart(flat: list[Any], arrays: list[int], others: list[int]) -> str | None:
    """A nones reader: whether each converted array shares no memory with the other array and tensor inputs."""
    spans = {p: _span(flat[p]) if isinstance(flat[p], torch.Tensor) or is_array(flat[p]) else None for p in others}
    for a in arrays:
        mine = spans.get(a)
        if mine is not None and any(p != a and span is not None and _overlap(span, mine) for p, span in spans.items()):
            return f"converted array {a} shares memory with another input"
    return None
