"""torch.utils.flop_counter: FlopCounterMode counts the floating-point operations of the matrix
products and convolutions run inside it, per module, with PyTorch's formulas and keys.

PyTorch counts them in a TorchDispatchMode; Ember counts them at its dispatcher (the observer hook
the profiler uses, both can run together). PyTorch's composites (matmul, linear, attention's math
path) reach mm, addmm, bmm and baddbmm through Ember's dispatcher as they do through PyTorch's, so
those counts and keys agree; einsum, a single kernel on Ember's CPU, is counted as the bmm PyTorch
computes it with. Only the outermost counted operator of a nest counts. A convolution's backward
runs as convolutions here (its weight gradient, without create_graph, as one kernel counted as the
convolution it computes), so its FLOPs (the same number) are listed under aten.convolution where
PyTorch lists aten.convolution_backward. Modules are tracked by global forward hooks and, in the
backward, by hooks on their outputs' and inputs' gradients, as PyTorch's ModuleTracker does."""
from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import torch
from aten import dispatcher as _dispatcher

__all__ = ["FlopCounterMode", "register_flop_formula"]

_GLOBAL = "Global"


def _prod(values: Any) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def mm_flop(a_shape: Any, b_shape: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    """(m, k) @ (k, n): 2 m n k."""
    m, k = a_shape
    n = b_shape[1]
    return 2 * m * n * k


def addmm_flop(self_shape: Any, a_shape: Any, b_shape: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return mm_flop(a_shape, b_shape)


def bmm_flop(a_shape: Any, b_shape: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    """(b, m, k) @ (b, k, n): 2 b m n k."""
    b, m, k = a_shape
    n = b_shape[2]
    return 2 * b * m * n * k


def baddbmm_flop(self_shape: Any, a_shape: Any, b_shape: Any, *args: Any, out_shape: Any = None,
                 **kwargs: Any) -> int:
    return bmm_flop(a_shape, b_shape)


def conv_flop_count(x_shape: Any, w_shape: Any, out_shape: Any, transposed: bool = False) -> int:
    """2 x (output positions, or input ones when transposed) x batch x c_out x c_in x kernel size."""
    spatial = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *kernel = w_shape
    return 2 * x_shape[0] * _prod(spatial) * c_out * c_in * _prod(kernel)


def conv_flop(x_shape: Any, w_shape: Any, _bias: Any, _stride: Any, _padding: Any, _dilation: Any, transposed: bool,
              *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


def _conv_weight_grad_flop(grad_shape: Any, x_shape: Any, weight_sizes: Any, *args: Any, out_shape: Any = None,
                           **kwargs: Any) -> int:
    """The weight gradient's kernel (a backward without create_graph): the convolution's own count."""
    return conv_flop_count(x_shape, tuple(weight_sizes), grad_shape)


def _einsum_flop(equation: str, shapes: list[Any]) -> int:
    """The bmm FLOPs of PyTorch's einsum: operands contracted left to right, each pair as one bmm
    over the letters both keep (those used only by one operand and not later are summed first)."""
    lhs, _, out = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if "..." in equation or len(terms) != len(shapes):
        return 0
    if not _:
        out = "".join(sorted(c for c in set(lhs) - {","} if lhs.count(c) == 1))
    size: dict[str, int] = {}
    for term, shape in zip(terms, shapes):
        size.update(zip(term, shape))
    flops, current = 0, terms[0]
    for i, term in enumerate(terms[1:], 1):
        later = set("".join(terms[i + 1:])) | set(out)
        left = {c for c in current if c in term or c in later}
        right = {c for c in term if c in current or c in later}
        flops += 2 * _prod(size[c] for c in left | right)
        current = "".join(c for c in sorted(left | right) if c in later)
    return flops


# The formulas of the operators counted (by operator name), and the keys PyTorch lists them under.
flop_registry: dict[Any, Callable[..., int]] = {}
_KEYS: dict[str, str] = {}


def register_flop_formula(targets: Any, get_raw: bool = False) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Register formula(*shapes, out_shape=...) (get_raw: the arguments themselves) as the FLOP count
    of targets (operator overload packets or names)."""
    def register(formula: Callable[..., int]) -> Callable[..., int]:
        for target in targets if isinstance(targets, (list, tuple)) else (targets,):
            flop_registry[_target_name(target)] = formula if get_raw else _with_shapes(formula)
        return formula
    return register


def _target_name(target: Any) -> str:
    """An operator's name as the dispatcher hook sees it: aten's bare ("mm"), others' "ns::name"."""
    text = str(target)
    if text.startswith("aten."):
        return text.split(".")[1]
    if "." in text and "::" not in text:
        ns, name = text.split(".")[:2]
        return f"{ns}::{name}"
    return text.split(".")[0]


def _with_shapes(formula: Callable[..., int]) -> Callable[..., int]:
    def raw(*args: Any, out_shape: Any = None, **kwargs: Any) -> int:
        shapes = [tuple(a.shape) if isinstance(a, torch.Tensor) else a for a in args]
        return formula(*shapes, out_shape=out_shape, **kwargs)
    raw.__wrapped__ = formula  # type: ignore[attr-defined]
    return raw


for _name, _formula in (("mm", mm_flop), ("addmm", addmm_flop), ("bmm", bmm_flop), ("baddbmm", baddbmm_flop),
                        ("convolution", conv_flop), ("_convolution", conv_flop),
                        ("_ember_convolution_weight_grad", _conv_weight_grad_flop)):
    flop_registry[_name] = _with_shapes(_formula)
flop_registry["einsum"] = lambda equation, operands, *a, out_shape=None, **k: _einsum_flop(
    equation, [tuple(t.shape) for t in operands])
_KEYS.update(einsum="bmm", _ember_convolution_weight_grad="convolution")


class _Counting(threading.local):
    depth = 0


class FlopCounterMode:
    """`with FlopCounterMode() as counter:` counts the FLOPs of what runs inside, per module.

    Args:
        mods: ignored (as in PyTorch 2.13: modules are tracked globally).
        depth: the module depth the table shows. display: print the table on exit (needs tabulate).
        custom_mapping: {operator: formula} counted besides the built-in ones.
    """

    def __init__(self, mods: Any = None, depth: int = 2, display: bool = True,
                 custom_mapping: dict[Any, Any] | None = None) -> None:
        self.flop_counts: dict[str, dict[Any, int]] = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode: Any = None
        self._registry = dict(flop_registry)
        for target, formula in (custom_mapping or {}).items():
            self._registry[_target_name(target)] = _with_shapes(formula)
        self._parents: list[str] = [_GLOBAL]
        self._names: dict[int, str] = {}
        self._counting = _Counting()
        self._previous_hook: Any = None
        self._handles: list[Any] = []

    # -- results ------------------------------------------------------------------------------
    def get_total_flops(self) -> int:
        return sum(self.flop_counts[_GLOBAL].values())

    def get_flop_counts(self) -> dict[str, dict[Any, int]]:
        """{module name: {operator: FLOPs}}, "Global" for everything."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth: int | None = None) -> str:
        import tabulate  # type: ignore[import-untyped]   # as PyTorch, the table needs the tabulate package
        depth = self.depth if depth is None else depth
        total = self.get_total_flops() or 1
        rows = []
        for module, counts in self.flop_counts.items():
            level = 0 if module == _GLOBAL else module.count(".") + 1
            if level > depth:
                continue
            indent = " " * level
            rows.append([indent + module, _human(sum(counts.values())), f"{100 * sum(counts.values()) / total:.2f}%"])
            rows += [[indent + " - " + str(op), _human(n), f"{100 * n / total:.2f}%"] for op, n in counts.items()]
        return tabulate.tabulate(rows, headers=["Module", "FLOP", "% Total"])

    # -- the context --------------------------------------------------------------------------
    def __enter__(self) -> FlopCounterMode:
        if self._handles:
            # entered twice, the mode would wrap its own kernels and count (and recurse) forever
            raise RuntimeError("FlopCounterMode is already active; it cannot be entered again before it exits")
        self.flop_counts.clear()
        self._parents = [_GLOBAL]
        self._previous_hook = _dispatcher.get_profiler_hook()
        _dispatcher.set_profiler_hook(self)
        from torch.utils.hooks import register_module_forward_hook, register_module_forward_pre_hook
        # always_call, unlike PyTorch's registration: a module whose forward raises still leaves the
        # parent stack, so later counts are not charged to it
        self._handles = [register_module_forward_pre_hook(self._enter_module),
                         register_module_forward_hook(self._leave_module, always_call=True)]
        return self

    def __exit__(self, *exc: Any) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        _dispatcher.set_profiler_hook(self._previous_hook)
        if self.display:
            print(self.get_table(self.depth))

    # -- the dispatcher observer --------------------------------------------------------------
    def wrap(self, op_name: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
        """What the dispatcher calls instead of kernel: the call, counted if it is a counted
        operator outside another one (and passed on to the profiler, if one is active)."""
        if self._previous_hook is not None:
            kernel = self._previous_hook.wrap(op_name, kernel)
        base = op_name.split(".")[0]
        formula = self._registry.get(base)
        if formula is None:
            return kernel
        counting = self._counting

        def counted(*args: Any, **kwargs: Any) -> Any:
            counting.depth += 1
            try:
                out = kernel(*args, **kwargs)
            finally:
                counting.depth -= 1
            if counting.depth == 0:
                shape = tuple(out.shape) if isinstance(out, torch.Tensor) else None
                self._count(_KEYS.get(base, base), formula(*args, out_shape=shape, **kwargs))
            return out
        return counted

    def _count(self, op: str, flops: int) -> None:
        namespace, _, name = op.rpartition("::")
        key = getattr(getattr(torch.ops, namespace or "aten"), name)
        for parent in set(self._parents):
            self.flop_counts[parent][key] += flops

    # -- module tracking ----------------------------------------------------------------------
    def _name_of(self, module: Any) -> str:
        name = self._names.get(id(module))
        if name is None:
            name = self._names[id(module)] = type(module).__name__
        for child_name, child in module.named_children():
            self._names.setdefault(id(child), f"{name}.{child_name}")
        return name

    def _enter_module(self, module: Any, args: Any) -> None:
        name = self._name_of(module)
        self._parents.append(name)
        inputs = [a for a in _tensors(args) if a.requires_grad]
        if inputs:         # its backward ends when its inputs' gradients are computed
            _once_on_grad(inputs, lambda: self._remove_parent(name))

    def _leave_module(self, module: Any, args: Any, output: Any) -> None:
        name = self._name_of(module)
        self._remove_parent(name)
        outputs = [t for t in _tensors(output) if t.requires_grad]
        if outputs:        # its backward begins when its outputs' gradients arrive
            _once_on_grad(outputs, lambda: self._parents.append(name))

    def _remove_parent(self, name: str) -> None:
        if name in self._parents:
            del self._parents[len(self._parents) - 1 - self._parents[::-1].index(name)]


def _tensors(value: Any) -> list[Any]:
    from torch.utils._pytree import tree_leaves
    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _once_on_grad(tensors: list[Any], action: Callable[[], None]) -> None:
    """Run action when the first of tensors gets its gradient (once)."""
    done = [False]

    def hook(grad: Any) -> None:
        if not done[0]:
            done[0] = True
            action()
    for t in tensors:
        t.register_hook(hook)


def _human(number: int) -> str:
    for unit, scale in (("T", 10 ** 12), ("G", 10 ** 9), ("M", 10 ** 6), ("K", 10 ** 3)):
        if number >= scale:
            return f"{number / scale:.3f}{unit}"
    return str(number)
