"""torch._dynamo.guard_checks: a guard set (torch._dynamo.guards) compiled into one generated Python function, the
replay's fast path: each test an expression over constants bound in its namespace, as PyTorch compiles its
guards. It returns the inputs the replay reads from the program, or None at the first guard that fails
(GuardSet.check says which)."""
from __future__ import annotations

from typing import Any, Callable

import torch
from torch._dynamo.guards import (GuardSet, ReadGuard, TensorGuard, aliasing_of, global_state, holds_float,
                                  same_plain, same_value)
from torch.utils import hooks as _module_hooks

__all__ = ["compile_checks", "sources_if_holds"]

# The helpers of the reads of a module's hooks (torch._dynamo.observers), re-read only when
# torch.utils.hooks.hooks_registered moved.
_HOOK_HELPERS = frozenset({"HAS_HOOKS", "HOOK_SET"})


def sources_if_holds(guards: GuardSet, flat: list[Any], structure: Any) -> tuple[Any, ...] | None:
    """The inputs read from the program (sources), as the check read them, when every guard holds; else None."""
    if guards.fast is None:
        guards.fast = compile_checks(guards)
    try:
        return guards.fast(flat, structure)
    except Exception:       # a reader whose owner was freed, a value that cannot be compared
        return None


def compile_checks(guards: GuardSet) -> Callable[[list[Any], Any], tuple[Any, ...] | None]:
    """guards as one Python function of (flat inputs, structure) -> the sources it read (a tuple) when every
    guard holds, else None; each test an expression over constants bound in its namespace: the replay's fast
    path (PyTorch compiles its guards likewise)."""
    env: dict[str, Any] = {"Tensor": torch.Tensor, "global_state": global_state, "STRUCTURE": guards.structure,
                           "STATE": guards.state}
    lines = ["def holds(flat, structure):",
             "    if (structure is not STRUCTURE and structure != STRUCTURE) or global_state() != STATE:",
             "        return None"]

    def tensor_test(k: str, value: str, guard: TensorGuard) -> None:
        env.update({f"D{k}": guard.dtype, f"V{k}": guard.device, f"S{k}": guard.shape, f"T{k}": guard.stride,
                    f"K{k}": guard.kind})
        leaf = "" if guard.leaf is None else f" and (t.grad_fn is None) is {guard.leaf}"
        lines.append(f"    t = {value}")
        lines.append(f"    if not (type(t) is K{k} and t._layout_is(D{k}, V{k}, S{k}, T{k})"
                     f" and t.requires_grad is {guard.requires_grad}{leaf}):")
        lines.append("        return None")

    for i, (position, guard) in enumerate(guards.tensors):
        tensor_test(f"i{i}", f"flat[{position}]", guard)
    for i, (position, _, value) in enumerate(guards.values):
        env[f"E{i}"], env["same_value"] = value, same_value
        lines.append(f"    if not same_value(flat[{position}], E{i}):")
        lines.append("        return None")
    if guards.aliasing:
        env["aliasing_of"], env["ALIASING"] = aliasing_of, guards.aliasing
        env["POSITIONS"] = [p for p, _ in guards.tensors]
        lines.append("    if aliasing_of(flat, POSITIONS) != ALIASING:")
        lines.append("        return None")
    # the inputs read from the program before the reads of modules and configs and the walks of the library
    # arguments' structure: captures of one function that differ in sizes are told apart by these cheaply
    for i, (reader, guard) in enumerate(guards.sources):
        owner = guards.source_owners[i] if i < len(guards.source_owners) else None
        if owner is None:
            env[f"Q{i}"] = reader
            lines.append(f"    s{i} = Q{i}(flat)")
        else:                   # a leaf's .grad, as its property reads it (a leaf's own, no warning)
            env[f"WS{i}"] = owner
            lines += [f"    o = WS{i}()", "    if o is None:", "        return None",
                      f"    s{i} = o.__dict__.get('_grad')"]
        tensor_test(f"s{i}", f"s{i}", guard)
    # "module has no hooks" reads: only when a hook was registered since they last held (hooks_registered)
    # a read whose owner was freed (a module made inside the captured call) has nothing left to check
    dead = {i for i, read in enumerate(guards.reads) if read.owner is not None and read.owner() is None}
    hook_reads = {i for i, read in enumerate(guards.reads)
                  if not _HOOK_HELPERS.isdisjoint(read.helpers or {})} - dead
    owners: dict[int, str] = {}
    hook_owners: dict[int, str] = {}

    def emit_read(i: int, read: ReadGuard, indent: str, names: dict[int, str], prefix: str) -> None:
        env[f"R{i}"], env[f"X{i}"] = read.read, read.expected
        value = f"R{i}()"
        if read.path is not None:
            name = names.get(id(read.owner))
            if name is None:
                name = names[id(read.owner)] = f"{prefix}{len(names)}"
                env[f"W{name}"] = read.owner
                lines.extend([f"{indent}{name} = W{name}()", f"{indent}if {name} is None:", f"{indent}    return None"])
            env.update(read.helpers or {})
            value = read.path.replace("{}", name)
        if read.by_value:
            env[f"Z{i}"] = type(read.expected)
            lines.append(f"{indent}v = {value}")
            if holds_float(read.expected):      # -0.0 is not 0.0, a NaN is a NaN
                env["same_plain"] = same_plain
                lines.append(f"{indent}if not same_plain(v, X{i}):")
            else:
                lines.append(f"{indent}if type(v) is not Z{i} or v != X{i}:")
        else:
            lines.append(f"{indent}if {value} is not X{i}:")
        lines.append(f"{indent}    return None")

    for i, read in enumerate(guards.reads):
        if i not in hook_reads and i not in dead:
            emit_read(i, read, "    ", owners, "o")
    if hook_reads:
        env["HOOKS_REGISTERED"], env["HOOKS_SEEN"] = _module_hooks.hooks_registered, [-1]
        lines.append("    if HOOKS_SEEN[0] != HOOKS_REGISTERED[0]:")
        for i in sorted(hook_reads):
            emit_read(i, guards.reads[i], "        ", hook_owners, "h")
        lines.append("        HOOKS_SEEN[0] = HOOKS_REGISTERED[0]")
    if guards.constants:        # the tensors the graph holds (parameters, optimizer state): one Cython loop
        env["CONSTANTS"] = tuple(tensor for tensor, _ in guards.constants)
        env["LAYOUTS"] = tuple((g.dtype, g.device, g.shape, g.stride, g.requires_grad, id(t) in guards.hookless,
                                guards.attribute_keys.get(id(t))) for t, g in guards.constants)
        env["LAYOUTS_HOLD"] = torch.Tensor._layouts_hold
        lines.append("    if not LAYOUTS_HOLD(CONSTANTS, LAYOUTS):")
        lines.append("        return None")
    for position in guards.leaves:
        lines.append(f"    if flat[{position}].grad_fn is not None:")
        lines.append("        return None")
    for i, (_, reader) in enumerate(guards.nones):
        env[f"N{i}"] = reader
        lines.append(f"    if N{i}(flat) is not None:")
        lines.append("        return None")
    lines.append(f"    return ({''.join(f's{i}, ' for i in range(len(guards.sources)))})")
    exec(compile("\n".join(lines), "<guards>", "exec"), env)
    return env["holds"]
