"""torch._dynamo.eval_frame: a compiled function and its cache of graphs.

Each call looks for a cached graph whose guards hold for the call and replays it; without one, the call is captured
(torch._dynamo.capture: it runs for real and its result is returned), the graph is handed to the backend, and the
entry is cached. A function keeps at most config.recompile_limit entries; past that it runs eagerly for calls no
entry serves, after PyTorch's warning. A capture that hit a graph break caches an entry that runs the function
eagerly for those guards. OptimizedModule is what torch.compile returns for a module.

Sizes that vary (dynamic=True, mark_dynamic, PyTorch's automatic dynamic shapes): torch._dynamo.size_families; a new
size its family may not capture runs eagerly."""
from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import time
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch import _logging
from torch._dynamo import call_values, callables, capture, config, exc, size_families
from torch._dynamo.decorators import disable
from torch._dynamo.backends.registry import lookup_backend
from torch._dynamo.graph_passes import graph_table
from torch._dynamo.guard_checks import sources_if_holds
from torch._dynamo.guards import GuardSet, broke_again
from torch._functorch import batched as _batched
from torch.csrc.autograd import forward_grad as _forward_grad
from torch.nn import Module
from torch.utils._pytree import tree_flatten, tree_unflatten

__all__ = ["OptimizedModule", "compile_function", "disable", "optimize", "reset"]

log = logging.getLogger("torch._dynamo")

_frames: weakref.WeakSet[CompiledFunction] = weakref.WeakSet()
_frame_ids = itertools.count()
_compiled_graph_ids = itertools.count(1)
_accumulated = {"entries": 0}
# Everything compiled in this process, for explain() and the counters tests read.
stats = {"captures": 0, "graph_breaks": 0, "recompiles": 0, "replays": 0}


@dataclass
class CacheEntry:
    """One captured graph, compiled, with the guards it holds for (compiled is None: run eagerly)."""
    guards: GuardSet
    compiled: Callable[..., Any] | None
    captured: capture.Captured
    graph_module: Any
    compile_id: str
    # captured at sizes that vary (its graph compiled generic in them): the compile id of the first capture of the
    # calls that differ from it only in sizes (they count as one entry)
    family: str | None = None
    replays: int = 0
    built: bool = False         # its compile built kernels (a C library) rather than finding them compiled

    def run(self, fn: Callable[..., Any], flat: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any],
            sources: tuple[Any, ...] = ()) -> Any:
        """The graph replayed on the call's tensor inputs and the sources the guards read (a parameter's .grad)."""
        if self.compiled is None:
            return fn(*args, **kwargs)
        cap = self.captured
        inputs = [*[flat[i] for i in cap.tensor_positions], *sources]
        # a graph holding its backward: autograd records nothing of it again
        with torch.no_grad() if cap.runs_backward else contextlib.nullcontext():
            outputs = self.compiled(*inputs)
        if cap.made is not None:        # the objects the call made, made again holding this replay's tensors
            outputs = (*outputs, *cap.made(outputs))
        for write in cap.writes:
            if write.members is not None:
                value = write.value(outputs[i] for i in write.members)
            else:
                value = outputs[write.output] if write.output is not None else write.value
            write.assign(flat, value)
        if cap.single_output:
            return outputs[0]
        leaves = [leaf if out is None else outputs[out] for leaf, out in zip(cap.result_leaves, cap.result_outputs)]
        for k, position in cap.passed:      # a library argument handed back: this call's
            leaves[k] = flat[position]
        return call_values.with_kept(tree_unflatten(leaves, cap.result_spec), cap.kept, args, kwargs)


@functools.lru_cache(maxsize=None)
def _tensors_spec(count: int) -> Any:
    """The pytree structure of `count` tensors passed positionally (made once per count)."""
    return tree_flatten((tuple(torch.empty(0) for _ in range(count)), {}))[1]


def _where(fn: Callable[..., Any]) -> str:
    code = getattr(fn, "__code__", None)
    return "?" if code is None else f"{code.co_filename}:{code.co_firstlineno}"


def _failures(entries: list[Any], flat: list[Any], structure: Any) -> list[tuple[str, str]]:
    """Why each entry's guards fail for these inputs (a guard that raised fails too)."""
    return [(e.compile_id, e.guards.check(flat, structure) or "a guard could not be evaluated") for e in entries]


class CompiledFunction:
    """fn compiled: the cache of its graphs and the backend that compiles them."""

    def __init__(self, fn: Callable[..., Any], backend: Any, *, fullgraph: bool = False, dynamic: bool | None = None,
                 guard_target: Callable[..., Any] | None = None, backend_kwargs: dict[str, Any] | None = None) -> None:
        self.fn = fn
        self.backend = backend
        self.compiler = lookup_backend(backend)
        self.backend_kwargs = backend_kwargs or {}
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.guard_target = guard_target
        self.entries: list[CacheEntry] = []
        self.frame_id = next(_frame_ids)
        self.warned_limit = False
        self.warned_sizes: set[str] = set()
        self.attempts = itertools.count()
        self.last_capture: capture.Captured | None = None     # the latest capture (entries reorder by use)
        _frames.add(self)

    @property
    def name(self) -> str:
        return getattr(self.guard_target or self.fn, "__name__", type(self.fn).__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if capture.active() or _batched.active_levels() or _forward_grad.current_level() >= 0:
            # called from a function being captured (its operators join that graph), or under vmap or forward-mode
            # AD, whose wrapped tensors the capture cannot see through: as it is
            return self.fn(*args, **kwargs)
        if not kwargs and all(type(a) is torch.Tensor for a in args):     # the common call, flattened at once
            flat, structure = list(args), _tensors_spec(len(args))
        else:
            flat, structure = tree_flatten((args, kwargs))
        for i, entry in enumerate(self.entries):
            sources = sources_if_holds(entry.guards, flat, structure)
            if sources is not None:
                stats["replays"] += 1
                entry.replays += 1
                if i:       # the entry that served last is tried first (a step's first capture stays behind)
                    self.entries.insert(0, self.entries.pop(i))
                return entry.run(self.fn, flat, args, kwargs, sources)
        # a miss: why each entry failed (for the logs), each a slow check, worked out only where a log asks
        failures = functools.partial(_failures, list(self.entries), flat, structure)
        family, sizes_vary = size_families.family_of(self.dynamic, self.entries, flat, structure)
        return self._miss(args, kwargs, failures, family, sizes_vary)

    def _counted(self) -> int:
        return size_families.counted(self.entries)

    def _miss(self, args: tuple[Any, ...], kwargs: dict[str, Any], reasons: Callable[[], list[tuple[str, str]]],
              family: str | None, sizes_vary: bool) -> Any:
        """Capture the call (family: the cached captures it differs from only in sizes; sizes_vary: it is to be
        compiled generic in sizes)."""
        another_size = family is not None       # not a new entry: a new size
        if family is not None and not size_families.may_capture(self.entries, family):
            self._warn_sizes(family)
            return self.fn(*args, **kwargs)
        counts = family is None or size_families.unshared(self.entries, family)     # against the limits
        limit_hit = counts and self._counted() >= config.recompile_limit
        if limit_hit or (counts and _accumulated["entries"] >= config.accumulated_recompile_limit):
            self._warn_limit(reasons, "accumulated_recompile_limit" if not limit_hit else "recompile_limit")
            return self.fn(*args, **kwargs)
        failures = reasons() if self.entries else []
        compile_id = f"{self.frame_id}/{next(self.attempts)}"
        if sizes_vary and family is None:
            family = compile_id
        if another_size:
            _logging.log_artifact("dynamic", f"Capturing {self.name} in {_where(self.guard_target or self.fn)} at "
                                  f"new sizes ({failures[0][1] if failures else '?'}); its kernels are the generic "
                                  "ones compiled for the earlier sizes")
        elif failures:
            if config.error_on_recompile:
                raise exc.RecompileError(f"Recompiling function {self.name} in {_where(self.guard_target or self.fn)}"
                                         f"\n    triggered by the following guard failure(s):\n"
                                         + "\n".join(f"    - {cid}: {why}" for cid, why in reversed(failures)))
            stats["recompiles"] += 1
            _logging.log_artifact("recompiles", f"Recompiling function {self.name} in "
                                  f"{_where(self.guard_target or self.fn)}\n"
                                  "    triggered by the following guard failure(s):\n"
                                  + "\n".join(f"    - {cid}: {why}" for cid, why in reversed(failures)))
        try:
            captured = capture.capture(self.fn, args, kwargs, self.fullgraph, self.guard_target)
        except capture.Busy:        # another thread is capturing: this call runs as it is
            return self.fn(*args, **kwargs)
        stats["captures"] += 1
        previous, self.last_capture = self.last_capture, captured
        if _logging.artifact_enabled("guards"):
            lines = "\n".join(f"+- {line}" for line in captured.guards.describe())
            _logging.log_artifact("guards", f"GUARDS:\n{lines}")
        if captured.graph_module is None:
            if previous is not None and previous.graph_module is None:
                # the side effect or the break came again: from now on these calls run eagerly whatever the values
                # it reads and changes, or that kept changing (a counter: guarded, each call would capture again)
                broke_again(captured, previous)
            stats["graph_breaks"] += 1
            _logging.log_artifact("graph_breaks", f"Graph break in user code at {_where(self.guard_target or self.fn)}"
                                  f"\nGraph Break Reason: {captured.break_reason}\n"
                                  "Ember runs the whole function eagerly for these guards.")
            self._add(CacheEntry(captured.guards, None, captured, None, compile_id, family))
            return self._result(captured)
        graph_module = captured.graph_module
        if family is not None:
            graph_module.meta["dynamic_sizes"] = True
        graph_id = next(_compiled_graph_ids)
        if _logging.artifact_enabled("graph_code"):        # the graph's source is made only to be printed
            _logging.log_artifact("graph_code", f"TRACED GRAPH\n ===== __compiled_fn_{graph_id} =====\n"
                                  + graph_module.print_readable(print_output=False))
        if _logging.artifact_enabled("graph"):
            _logging.log_artifact("graph", f"TRACED GRAPH\n __compiled_fn_{graph_id}\n"
                                  + graph_table(graph_module.graph))
        from torch._inductor import codecache
        builds = codecache.builds["count"]
        with torch.no_grad() if captured.runs_backward else contextlib.nullcontext():
            compiled = self._compile(graph_module, captured.example_inputs)
        self._add(CacheEntry(captured.guards, compiled, captured, graph_module, compile_id, family,
                             built=codecache.builds["count"] > builds))
        return self._result(captured)

    def _warn_sizes(self, family: str) -> None:
        if family in self.warned_sizes:
            return
        self.warned_sizes.add(family)
        members = size_families.members(self.entries, family)
        log.warning("torch._dynamo: %s (%s) has been captured at %d sizes, served again %d times; calls at sizes "
                    "not seen yet run eagerly from now on, until its sizes are served again as often as they were "
                    "captured (never past config.dynamic_size_captures: %d)", self.name,
                    _where(self.guard_target or self.fn), len(members), sum(e.replays for e in members),
                    config.dynamic_size_captures)

    @staticmethod
    def _result(captured: capture.Captured) -> Any:
        """The captured call's result, which its cache entry no longer holds (nor the tensors of the call that
        captured it: a training step's inputs include the last step's gradients)."""
        result, captured.result = captured.result, None
        captured.example_inputs = []
        captured.result_leaves = [None if out is not None else leaf
                                  for leaf, out in zip(captured.result_leaves, captured.result_outputs)]
        return result

    def _compile(self, graph_module: Any, example_inputs: list[Any]) -> Callable[..., Any]:
        started = time.perf_counter()
        try:
            compiled = self.compiler(graph_module, example_inputs, **self.backend_kwargs)
        except Exception as error:
            if config.suppress_errors:
                log.warning("Backend compiler failed (%s); running the graph eagerly", error)
                return graph_module.forward
            raise exc.BackendCompilerFailed(self.compiler, error).with_traceback(error.__traceback__) from error
        if not callable(compiled):
            raise exc.BackendCompilerFailed(self.compiler, TypeError("the backend returned a non-callable"))
        self.compile_seconds = time.perf_counter() - started
        return compiled

    def _add(self, entry: CacheEntry) -> None:
        if entry.guards.structure == (spec := _tensors_spec(entry.guards.count)):     # (then compared by identity)
            entry.guards.structure = spec
        before = self._counted()
        self.entries.append(entry)
        _accumulated["entries"] += self._counted() - before

    def _warn_limit(self, reasons: Callable[[], list[tuple[str, str]]], which: str) -> None:
        if self.warned_limit:
            return
        self.warned_limit = True
        failures = reasons()
        last = f"{failures[-1][0]}: {failures[-1][1]}" if failures else "?"
        limit = config.recompile_limit if which == "recompile_limit" else config.accumulated_recompile_limit
        log.warning("torch._dynamo hit config.%s (%s)\n   function: %r (%s)\n   last reason: %s\n"
                    'To log all recompilation reasons, use TORCH_LOGS="recompiles".\n'
                    "To diagnose recompilation issues, see "
                    "https://docs.pytorch.org/docs/main/user_guide/torch_compiler/compile/"
                    "programming_model.recompilation.html", which, limit, self.name,
                    _where(self.guard_target or self.fn), last)

    def reset(self) -> None:
        _accumulated["entries"] -= self._counted()
        self.entries.clear()
        self.attempts = itertools.count()
        self.warned_limit = False
        self.warned_sizes.clear()
        self.last_capture = None


def compile_function(fn: Callable[..., Any], backend: Any, **options: Any) -> Callable[..., Any]:
    """fn compiled, as a function carrying fn's name and docstring (PyTorch's _TorchDynamoContext wrapper). A
    generator function runs as it is (Dynamo skips such frames; with fullgraph=True, Unsupported)."""
    receiver = callables.receiver(fn)
    if callables.runs_later(fn if receiver is None else receiver[0]):
        fullgraph = options.get("fullgraph")

        @functools.wraps(fn)
        def as_it_is(*args: Any, **kwargs: Any) -> Any:
            if fullgraph:
                raise exc.Unsupported(f"{getattr(fn, '__name__', fn)!r} is a generator or coroutine function: its "
                                      "body runs as the result is iterated, outside the compiled call")
            return fn(*args, **kwargs)
        setattr(as_it_is, "_torchdynamo_orig_callable", fn)
        return as_it_is
    if receiver is not None:
        function, owner = receiver
        compiled = CompiledFunction(function, backend, **options)

        def compiled_fn(*args: Any, **kwargs: Any) -> Any:
            return compiled(owner, *args, **kwargs)
        compiled_fn = functools.wraps(fn)(compiled_fn) if hasattr(fn, "__name__") else compiled_fn
    else:
        compiled = CompiledFunction(fn, backend, **options)

        @functools.wraps(fn)
        def compiled_fn(*args: Any, **kwargs: Any) -> Any:
            return compiled(*args, **kwargs)

    setattr(compiled_fn, "_torchdynamo_orig_callable", fn)
    setattr(compiled_fn, "_ember_compiled", compiled)
    return compiled_fn


class OptimizedModule(Module):
    """A module compiled by torch.compile: calls go through the compiled module's __call__ (hooks
    included); its parameters and state_dict are the original's under `_orig_mod.`, as PyTorch's."""

    _torchdynamo_orig_callable: Any

    def __init__(self, mod: Module, dynamo_ctx: Any = None) -> None:
        super().__init__()
        self._orig_mod = mod
        self.training = mod.training
        self.dynamo_ctx = options = dict(dynamo_ctx or {})
        # (DistributedDataParallel's own forward runs eagerly around its module, which compiles, as in Dynamo)
        self._runs_around = around = getattr(type(mod), "_runs_compiled_module", False)
        inner = mod.module if around else mod
        self._compiled = CompiledFunction(inner.__call__, options.pop("backend", "inductor"),
                                          guard_target=type(inner).forward, **options)
        object.__setattr__(self, "_torchdynamo_orig_callable", mod.__call__)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        if self._runs_around:
            return self._orig_mod._run_with(self._compiled, *args, **kwargs)
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        modules = self.__dict__.get("_modules", {})
        if "_orig_mod" not in modules:
            raise AttributeError(f"'OptimizedModule' object has no attribute '{name}'")
        return modules["_orig_mod"] if name == "_orig_mod" else getattr(modules["_orig_mod"], name)

    def _get_name(self) -> str:
        return "OptimizedModule"


_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def optimize(backend: Any = "inductor", *, nopython: bool = False, dynamic: bool | None = None,
             disable: bool = False, **backend_kwargs: Any) -> Callable[[Any], Any]:
    """A decorator compiling its function or module with backend (PyTorch's torch._dynamo.optimize)."""
    lookup_backend(backend)         # an unknown name fails here, as PyTorch's

    def decorate(target: Any) -> Any:
        if disable:
            return target
        options: dict[str, Any] = {"fullgraph": nopython, "dynamic": dynamic, "backend_kwargs": backend_kwargs}
        if isinstance(target, Module):
            return OptimizedModule(target, {"backend": backend, **options})
        if not callable(target):
            raise AssertionError(f"A callable function is expected, but {type(target)} is provided.")
        return compile_function(target, backend, **options)
    return decorate


def compile_model(model: Any, *, fullgraph: bool, dynamic: bool | None, backend: Any, mode: str | None,
                  options: dict[str, Any] | None) -> Any:
    """torch.compile's work once its arguments are checked."""
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    backend_kwargs: dict[str, Any] = {"mode": mode} if mode is not None else {}
    if options:
        backend_kwargs["options"] = dict(options) if backend == "inductor" else options
    if backend == "inductor":
        from torch._inductor import config as inductor_config
        inductor_config.check_options(options or {})
    return optimize(backend, nopython=fullgraph, dynamic=dynamic, **backend_kwargs)(model)


def reset() -> None:
    """Forget every compiled graph (each compiled function captures again on its next call)."""
    for frame in list(_frames):
        frame.reset()
    _accumulated["entries"] = 0
    stats.update(dict.fromkeys(stats, 0))


def innermost_fn(fn: Any) -> Any:
    """The function under torch.compile's (and disable's) wrappers."""
    while hasattr(fn, "_torchdynamo_orig_callable"):
        fn = fn._torchdynamo_orig_callable
    return fn
