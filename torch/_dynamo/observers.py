"""torch._dynamo.observers: the patches through which a running capture (torch._dynamo.capture) sees what a
call does outside the dispatcher: module attribute reads and writes and calls (hooks), reads of tensor values,
.grad reads and writes, autograd calls, requires_grad changes, .data read and assigned, torch.tensor, the
generator's state set and read, the threads' count and grad-mode switches. They patch classes and modules every
thread uses, so each patch passes other threads' calls straight to what it replaced (a capture records only its
own thread)."""
from __future__ import annotations

import builtins
import contextlib
import functools
import logging
import os
import sys
import threading
import time
import types
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator

import torch
from torch._dynamo import function_applications, patches
from torch._dynamo.held_state import generator_state_read, generator_state_write
from torch._dynamo.patches import on_thread, original, patched
from torch._dynamo.program_state import is_program_file, is_self_contained
from torch.autograd import grad_mode as _grad_mode_module
from torch.autograd.function import Function
from torch.utils import hooks as _module_hooks

if TYPE_CHECKING:
    from torch._dynamo.capture import _Capture

__all__ = ["argument_hooks", "has_hooks", "hook_functions", "hook_set", "observed", "program_hooks"]

# The grad-mode switches torch.autograd.grad_mode calls (the capture stands in front of them).
_grad_switches = getattr(_grad_mode_module, "_mode")


class _GradModeRecorder:
    """Stands for c10.grad_mode in torch.autograd.grad_mode while capturing: a switch is done and recorded."""

    checks_thread = True        # (on_thread leaves it as it is)

    def __init__(self, capture: _Capture) -> None:
        self._capture = capture

    def __getattr__(self, name: str) -> Any:
        return getattr(_grad_switches, name)

    def set_grad_enabled(self, enabled: bool) -> None:
        _grad_switches.set_grad_enabled(enabled)
        tracer = self._capture.tracer
        if not tracer.broken and not tracer.opaque and threading.get_ident() == self._capture.thread:
            self._capture.graph.call_function(torch._C._set_grad_enabled, (bool(enabled),))

    def set_inference_mode(self, enabled: bool) -> None:
        if enabled and threading.get_ident() == self._capture.thread:
            self._capture.graph_break("inference_mode inside a compiled function")
        _grad_switches.set_inference_mode(enabled)


def argument_hooks(flat: list[Any], position: int) -> Any:
    """The gradient hooks of the argument at position, None when it has none (a guard's reader)."""
    return flat[position].__dict__.get("_leaf_hooks") or None


def _leaf_hooks(tensor: Any) -> bool:
    """Whether a leaf has gradient hooks (torch.csrc.autograd.graph.register_leaf_hook keeps them on it)."""
    return bool(tensor.__dict__.get("_leaf_hooks"))


def has_hooks(module: Any) -> bool:
    """Whether calling module runs hooks (its own or the global ones): their Python effects would not replay."""
    own = module.__dict__          # read at every replay (a guard): no generator, no loop
    return bool(own.get("_forward_pre_hooks") or own.get("_forward_hooks") or own.get("_backward_hooks")
                or own.get("_backward_pre_hooks") or _module_hooks._global_forward_pre_hooks
                or _module_hooks._global_forward_hooks)


_FORWARD_HOOKS = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks", "_forward_hooks_with_kwargs",
                  "_forward_hooks_always_called")
_GLOBAL_FORWARD_HOOKS = ("_global_forward_pre_hooks", "_global_forward_hooks", "_global_forward_hooks_with_kwargs",
                         "_global_forward_hooks_always_called")


def hook_set(module: Any) -> tuple[Any, ...]:
    """The forward hooks calling module runs (its own and the global ones) and how, comparable with == (a hook
    by identity): what a graph that ran them is guarded on."""
    own = module.__dict__
    return tuple(tuple(own.get(name, {}).items()) for name in _FORWARD_HOOKS) + \
        tuple(tuple(getattr(_module_hooks, name).items()) for name in _GLOBAL_FORWARD_HOOKS)


def program_hooks(module: Any) -> bool:
    """Whether the hooks calling module runs are forward hooks, each a function (or method) of the program's own,
    or a library's function that reads nothing but its arguments: the capture sees what they read and change as
    it sees the program's other functions. A backward hook would not run on a replay's backward, and a library's
    other hooks read state no guard covers."""
    own = module.__dict__
    if own.get("_backward_hooks") or own.get("_backward_pre_hooks"):
        return False
    return all(isinstance(hook, (types.FunctionType, types.MethodType)) and
               (is_program_file(getattr(hook, "__func__", hook).__code__.co_filename) or is_self_contained(hook))
               for hook in hook_functions(module))


def hook_functions(module: Any) -> list[Any]:
    """The forward hooks calling module runs, its own and the global ones."""
    own = module.__dict__
    return [*own.get("_forward_pre_hooks", {}).values(), *own.get("_forward_hooks", {}).values(),
            *_module_hooks._global_forward_pre_hooks.values(), *_module_hooks._global_forward_hooks.values()]


def _holds_tensor(data: Any) -> bool:
    """Whether torch.tensor's data is or holds a tensor (a 0-d one from a wrapped number aside)."""
    if isinstance(data, torch.Tensor):
        return not data._is_wrapped_number
    return isinstance(data, (list, tuple)) and any(_holds_tensor(item) for item in data)


# what a program's call passes through before an observer sees it: logging, os.environ's mapping methods, the
# observers themselves and the wrappers that put them in place
_PASSED_THROUGH = tuple(str(m.__file__).rpartition(".")[0] for m in (logging, os, sys.modules["_collections_abc"],
                                                                   patches)) + \
    (__file__.rpartition(".")[0], "<frozen ")        # (the standard library's frozen modules name no file)
_CLOCKS = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
           "process_time_ns")


def _environ_value(environ: Any, key: str) -> str | None:
    return environ.get(key)


def _program_caller() -> bool:
    """Whether the program's own code made the call the observer sees (not Ember's, a library's or logging's)."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PASSED_THROUGH):
        frame = frame.f_back
    return frame is not None and is_program_file(frame.f_code.co_filename)


def _observers(capture: _Capture) -> list[tuple[Any, str, Any]]:
    """The patches through which a capture sees module attribute reads and writes, reads of tensor values,
    autograd calls, hooks and grad-mode switches."""
    module_cls, tensor_cls, autograd, storage_cls = torch.nn.Module, torch.Tensor, torch.autograd, torch.UntypedStorage
    saved_getattr, saved_setattr = module_cls.__getattr__, module_cls.__setattr__
    saved_call, saved_register_hook = module_cls._call_impl, tensor_cls.register_hook
    saved_register_buffer, saved_init = module_cls.register_buffer, module_cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        """A module the call constructs: made anew by each call, nothing of it is guarded."""
        capture.module_constructed(self)
        saved_init(self, *args, **kwargs)

    def call_impl(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not has_hooks(self):
            capture.module_called(self)
        elif program_hooks(self):
            capture.module_hooks_called(self)
        else:
            capture.graph_break(f"module hooks on {type(self).__name__}: a backward hook or a library's (a replay "
                                "would not run them)")
        return saved_call(self, *args, **kwargs)

    def register_hook(self: Any, hook: Any) -> Any:
        capture.graph_break("Tensor.register_hook inside a compiled function")
        return saved_register_hook(self, hook)

    def getattribute(self: Any, name: str) -> Any:
        value = object.__getattribute__(self, name)
        capture.module_read(self, name, value)
        return value

    def getattr_(self: Any, name: str) -> Any:
        value = saved_getattr(self, name)
        capture.module_read(self, name, value)
        return value

    def setattr_(self: Any, name: str, value: Any) -> None:
        if isinstance(value, torch.nn.Parameter) and self.__dict__.get("_parameters", {}).get(name) is not value:
            capture.graph_break(f"a new nn.Parameter assigned to {type(self).__name__}.{name} inside a compiled "
                                "function (a replay would assign the same one again)")
        saved_setattr(self, name, value)
        capture.module_write(self, name, value)

    def register_buffer(self: Any, name: str, tensor: Any, persistent: bool = True) -> None:
        saved_register_buffer(self, name, tensor, persistent)
        capture.module_write(self, name, tensor)     # assigned again on replay, as the graph computes it

    def value_read(saved: Callable[..., Any], what: str) -> Callable[..., Any]:
        def read(self: Any, *args: Any, **kwargs: Any) -> Any:
            if capture.traced(self):
                capture.graph_break(f"{what}: reading a tensor's value in a compiled function (data-dependent)")
            return saved(self, *args, **kwargs)
        return read

    def storage_read(saved: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """A storage's bytes read by the program (storage.tolist(), storage[i], bytes(storage)): its values."""
        def read(self: Any) -> Any:
            if not capture.tracer.in_op and not capture.tracer.broken:
                capture.graph_break("UntypedStorage: reading a storage's bytes in a compiled function (data-dependent)")
            return saved(self)
        return read

    def offset_read(saved: Callable[[Any], int]) -> Callable[[Any], int]:
        """storage_offset() or data_ptr() read by the program: where its inputs start is guarded."""
        def read(self: Any) -> int:
            if _program_caller():
                capture.storage_offset_read()
            return saved(self)
        return read

    def autograd_call(saved: Callable[..., Any], what: str, create_graph_at: int) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            create_graph = kwargs.get("create_graph", args[create_graph_at] if len(args) > create_graph_at else False)
            if create_graph:
                capture.graph_break(f"{what}(create_graph=True) inside a compiled function (a differentiable "
                                    "backward would not be replayed)")
            elif any(t.grad_fn is not None for t in [*capture.input_tensors, *capture.tracer.constant_tensors]):
                capture.graph_break(f"{what} inside a compiled function reaching the autograd history of a tensor "
                                    "made outside it (the replay would run that history's backward as captured)")
            elif any(_leaf_hooks(t) for t in [*capture.input_tensors, *capture.tracer.constant_tensors]):
                capture.graph_break(f"{what} inside a compiled function with gradient hooks on a leaf (their "
                                    "Python effects would not be replayed)")
            elif capture.applications:
                capture.graph_break(f"{what} inside a compiled function through autograd.Function "
                                    f"{capture.applications[0]} (its graph node holds no backward operators)")
            elif not capture.tracer.broken:
                # the engine's operators are traced like the forward's: the graph holds the backward, and the
                # gradients it stores in .grad are assignments replayed after the graph
                capture.runs_backward = True
            return saved(*args, **kwargs)
        return call

    grad_property = tensor_cls.__dict__["grad"]

    def read_grad(self: Any) -> Any:
        grad = grad_property.fget(self)
        capture.grad_read(self, grad)
        return grad

    def write_grad(self: Any, value: Any) -> None:
        grad_property.fset(self, value)
        capture.module_write(self, "grad", value)

    def delete_grad(self: Any) -> None:
        grad_property.fdel(self)
        capture.module_write(self, "grad", None)

    function_apply = Function.__dict__["apply"].__func__
    requires_grad_property = tensor_cls.__dict__["requires_grad"]
    saved_requires_grad_, saved_data = tensor_cls.requires_grad_, tensor_cls._variable_data

    def apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            return function_applications.applied(capture, function_apply, cls, args, kwargs)
        return function_apply(cls, *args, **kwargs)

    def set_requires_grad(self: Any, value: Any) -> None:
        if bool(value) != self.requires_grad:       # zero_grad(set_to_none=False) sets False on gradients: no-op
            capture.graph_break("setting requires_grad inside a compiled function")
        requires_grad_property.fset(self, value)

    def requires_grad_(self: Any, requires_grad: Any = True) -> Any:
        if bool(requires_grad) != self.requires_grad:
            capture.graph_break("Tensor.requires_grad_ inside a compiled function")
        return saved_requires_grad_(self, requires_grad)

    data_property = tensor_cls.__dict__["data"]

    def set_data(self: Any, new: Any) -> None:
        """`.data = t` swaps the tensor's memory outside the dispatcher (module.to(), a parametrization, a
        program's own swap): a replay would not do it again."""
        capture.graph_break("assigning a tensor's .data inside a compiled function (a replay would not swap its "
                            "memory again)")
        data_property.fset(self, new)

    def variable_data(self: Any) -> Any:
        """`.data`: recorded as aten.detach of the tensor's node (it is read outside the dispatcher)."""
        result: Any = saved_data(self)
        known = capture.tracer.nodes.get(id(self))
        if known is not None and not capture.tracer.broken:
            capture.tracer.bind(result, capture.graph.create_node(
                "call_function", torch.ops.aten.detach.default, (known[1],), {}, name="detach"))
        return result

    saved_tensor = torch.tensor

    def tensor(*args: Any, **kwargs: Any) -> Any:
        if _holds_tensor(args[0] if args else kwargs.get("data")):
            capture.graph_break("torch.tensor of tensors (their values are read outside the dispatcher and would be "
                                "baked into the graph)")
        broken, capture.tracer.broken = capture.tracer.broken, True      # its own operators are not the program's
        try:
            made = saved_tensor(*args, **kwargs)
            pristine = made.detach().clone()
        finally:
            capture.tracer.broken = broken
        if capture.tracer.opaque:       # (inside an autograd.Function's forward: applied again by each replay)
            capture.tracer.made_inside[id(made)] = weakref.ref(made)
        else:
            capture.tracer.fresh[id(made)] = pristine
        return made

    def output(saved: Callable[..., Any], what: str, why: str) -> Callable[..., Any]:
        """print, a log record emitted or the clock read, by the program: a side effect a replay would not redo,
        or a value it would repeat (PyTorch's Dynamo breaks the graph there too)."""
        def emit(*args: Any, **kwargs: Any) -> Any:
            if _program_caller():
                capture.graph_break(f"{what} inside a compiled function ({why})")
            return saved(*args, **kwargs)
        return emit

    saved_environ_item = type(os.environ).__getitem__

    def environ_read(environ: Any, key: Any, value: str | None) -> None:
        if environ is os.environ and isinstance(key, str) and _program_caller():
            capture.guards.add_read(f"os.environ[{key!r}]", os.environ, functools.partial(_environ_value, key=key),
                                    value, by_value=True)

    def environ_item(self: Any, key: Any) -> Any:
        """os.environ read by the program: the value (or its absence) guarded, as a global's would be."""
        try:
            value = saved_environ_item(self, key)
        except KeyError:
            environ_read(self, key, None)
            raise
        environ_read(self, key, value)
        return value

    taken: list[Any] = []       # the generator states get_rng_state gave during the call
    rng_writes = [(owner, name, generator_state_write(capture, getattr(owner, name), name, taken))
                  for owner in (torch, torch.random) for name in ("set_rng_state", "manual_seed", "seed")]
    state_reads = [(owner, name, output(generator_state_read(getattr(owner, name), taken) if name == "get_rng_state"
                                        else getattr(owner, name), f"torch.{name}()",
                                        "a replay would repeat its value"))
                   for owner, names in ((torch, ("get_rng_state", "initial_seed", "get_num_threads")),
                                        (torch.random, ("get_rng_state", "initial_seed"))) for name in names]
    clocks = [(time, name, output(getattr(time, name), f"time.{name}()", "a replay would repeat its value"))
              for name in _CLOCKS]
    printed = output(builtins.print, "print", "a replay would not print")
    saved_urandom = os.urandom

    def urandom(size: int) -> bytes:
        """The operating system's randomness, drawn by the program or a library it calls (uuid.uuid4())."""
        capture.graph_break("os.urandom() inside a compiled function (a replay would repeat its bytes)")
        return saved_urandom(size)
    return [*rng_writes, *state_reads, *clocks, (builtins, "print", printed), (os, "urandom", urandom),
            (tensor_cls, "data", property(data_property.fget, set_data, data_property.fdel, data_property.__doc__)),
            (type(os.environ), "__getitem__", environ_item),
            (logging.Logger, "_log", output(logging.Logger._log, "a log record", "a replay would not emit it")),
            (tensor_cls, "grad", property(read_grad, write_grad, delete_grad, grad_property.__doc__)),
            (torch, "tensor", tensor),
            (Function, "apply", classmethod(apply)),
            (tensor_cls, "requires_grad", property(requires_grad_property.fget, set_requires_grad)),
            (tensor_cls, "requires_grad_", requires_grad_), (tensor_cls, "_variable_data", variable_data),
            (module_cls, "_call_impl", call_impl), (tensor_cls, "register_hook", register_hook),
            (module_cls, "__init__", init),
            (module_cls, "__getattribute__", getattribute), (module_cls, "__getattr__", getattr_),
            (module_cls, "__setattr__", setattr_), (module_cls, "register_buffer", register_buffer),
            (tensor_cls, "item", value_read(tensor_cls.item, "Tensor.item")),
            (tensor_cls, "storage_offset", offset_read(tensor_cls.storage_offset)),
            (tensor_cls, "data_ptr", offset_read(tensor_cls.data_ptr)),
            (tensor_cls, "tolist", value_read(tensor_cls.tolist, "Tensor.tolist")),
            (tensor_cls, "_numpy_view", value_read(tensor_cls._numpy_view, "Tensor.numpy")),
            (tensor_cls, "__dlpack__", value_read(tensor_cls.__dlpack__, "Tensor.__dlpack__ (np.from_dlpack)")),
            (storage_cls, "_bytes", storage_read(storage_cls._bytes)),
            (tensor_cls, "__reduce_ex__", value_read(tensor_cls.__reduce_ex__, "pickling a tensor (torch.save)")),
            (autograd, "backward", autograd_call(autograd.backward, "torch.autograd.backward", 3)),
            (autograd, "grad", autograd_call(autograd.grad, "torch.autograd.grad", 4)),
            (_grad_mode_module, "_mode", _GradModeRecorder(capture))]


@contextlib.contextmanager
def observed(capture: _Capture) -> Iterator[None]:
    """The capture's observers in place for the block (and its optimizer hook)."""
    # Optimizers are watched through torch.optim's global step hook when the program uses torch.optim (it is
    # imported then); the capture itself does not import it (torch.optim and torch.utils.data stay apart).
    optimizers = sys.modules.get("torch.optim.optimizer")
    hook = None if optimizers is None else optimizers.register_optimizer_step_pre_hook(
        lambda opt, args, kwargs: capture.optimizer_stepped(opt))
    try:
        with patched([(owner, name, on_thread(capture.thread, patch, original(owner, name)))
                       for owner, name, patch in _observers(capture)]), \
                torch.random._generator_state_watched(functools.partial(_generator_state, capture)):
            yield
    finally:
        if hook is not None:
            hook.remove()


def _generator_state(capture: _Capture, generator: Any, method: str) -> None:
    """A torch.Generator's state set or read by the program through the generator's own methods."""
    if threading.get_ident() == capture.thread and _program_caller():
        capture.graph_break(f"Generator.{method}() inside a compiled function " + (
            "(a replay would repeat its value)" if method in ("get_state", "initial_seed") else
            "(the generator's state set outside the dispatcher would not be replayed)"))
