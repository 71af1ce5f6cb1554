"""torch.utils.checkpoint: activation checkpointing. A checkpointed function's intermediate tensors
are not kept for backward; backward runs the function again (with the RNG state and autocast state
it first ran with) to get them back. Two variants, as PyTorch's:

- use_reentrant=True: an autograd Function whose forward runs under no_grad; its backward reruns
  the function with grad enabled and backpropagates through that new graph (parameters get .grad
  as a side effect, so torch.autograd.grad and backward(inputs=...) cannot see through it).
- use_reentrant=False: the function runs with autograd recording, under saved-tensor hooks that
  store a handle instead of each saved tensor; the first unpack in backward reruns the function,
  collecting the same saved tensors in the same order (stopping as soon as all are recomputed).
"""
from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Any, Callable, Iterable

import torch
from torch.autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "get_device_states", "set_device_states", "noop_context_fn",
           "set_checkpoint_early_stop", "DefaultDeviceType", "set_checkpoint_debug_enabled", "CheckpointPolicy"]


class CheckpointError(RuntimeError):
    """The recomputation did not reproduce the forward (a different number of saved tensors)."""


class CheckpointPolicy(enum.Enum):
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3


class DefaultDeviceType:
    """The device type whose RNG state checkpoint preserves besides the CPU's ("cuda" by default)."""

    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        return DefaultDeviceType._default_device_type


_early_stop = [True]
_debug = [False]


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Any:
    """Whether non-reentrant recomputation stops once it has every tensor backward needs."""
    previous, _early_stop[0] = _early_stop[0], enable
    try:
        yield
    finally:
        _early_stop[0] = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Any:
    previous = _debug[0]
    if enabled is not None:
        _debug[0] = enabled
    try:
        yield
    finally:
        _debug[0] = previous


def noop_context_fn() -> tuple[contextlib.AbstractContextManager[Any], contextlib.AbstractContextManager[Any]]:
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each tensor detached, keeping whether it requires grad; other values as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, torch.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(isinstance(inp, torch.Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                      stacklevel=3)


def _cuda_tensors(args: Iterable[Any]) -> bool:
    return any(isinstance(a, torch.Tensor) and a.is_cuda for a in args)


def get_device_states(*args: Any) -> tuple[list[int], list[Any]]:
    """The devices of the CUDA tensors among args, and their generators' states."""
    if not _cuda_tensors(args):
        return [], []
    return [0], [torch.cuda.get_rng_state()]


def set_device_states(devices: list[int], states: list[Any], *, device_type: str | None = None) -> None:
    for _, state in zip(devices, states):
        torch.cuda.set_rng_state(state)


class _ForwardState:
    """What a recomputation must run under to repeat the forward: RNG and autocast states."""

    def __init__(self, preserve_rng_state: bool, args: tuple[Any, ...]) -> None:
        self.preserve = preserve_rng_state
        if preserve_rng_state:
            self.cpu_state = torch.get_rng_state()
            self.devices, self.device_states = get_device_states(*args)
        self.autocast = {device: (torch.is_autocast_enabled(device), torch.get_autocast_dtype(device))
                         for device in ("cpu", "cuda")}
        self.autocast_cache = torch.is_autocast_cache_enabled()

    @contextlib.contextmanager
    def restored(self) -> Any:
        with contextlib.ExitStack() as stack:
            if self.preserve:
                stack.enter_context(torch.random.fork_rng(devices=self.devices, enabled=True))
                torch.set_rng_state(self.cpu_state)
                set_device_states(self.devices, self.device_states)
            for device, (enabled, dtype) in self.autocast.items():
                stack.enter_context(torch.autocast(device, dtype=dtype, enabled=enabled,
                                                   cache_enabled=self.autocast_cache))
            yield


class CheckpointFunction(torch.autograd.Function):
    """The reentrant variant: forward without a graph, backward by rerunning the function."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.state = _ForwardState(preserve_rng_state, args)
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        ctx.inputs = [None if isinstance(a, torch.Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, torch.Tensor)])
        with torch.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with ctx.state.restored(), torch.enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, torch.Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached)
        return (None, None) + grads


class _StopRecomputation(Exception):
    pass


class _Recomputation:
    """The saved tensors of one non-reentrant checkpoint: handles in forward, tensors on demand."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], state: _ForwardState,
                 recompute_context: Any, determinism_check: str) -> None:
        self.fn, self.args, self.kwargs, self.state = fn, args, kwargs, state
        self.recompute_context = recompute_context
        self.determinism_check = determinism_check
        self.count = 0                       # tensors saved by the forward
        self.recomputed: dict[int, Any] = {}
        self.metadata: list[tuple[Any, Any, Any]] = []

    def pack(self, tensor: Any) -> int:
        self.metadata.append((tuple(tensor.shape), tensor.dtype, tensor.device))
        self.count += 1
        return self.count - 1

    def unpack(self, handle: int) -> Any:
        if handle not in self.recomputed:
            self._recompute()
        return self.recomputed.pop(handle)

    def _recompute(self) -> None:
        found: list[Any] = []

        def collect(tensor: Any) -> None:
            found.append(tensor.detach())
            if _early_stop[0] and len(found) == self.count:
                raise _StopRecomputation

        with self.state.restored(), torch.enable_grad(), self.recompute_context, \
                saved_tensors_hooks(collect, lambda unused: None):
            try:
                self.fn(*self.args, **self.kwargs)
            except _StopRecomputation:
                pass
        if len(found) != self.count:
            raise CheckpointError(f"torch.utils.checkpoint: A different number of tensors was saved during the "
                                  f"original forward and recomputation.\nNumber of tensors saved during forward: "
                                  f"{self.count}\nNumber of tensors saved during recomputation: {len(found)}.")
        if self.determinism_check == "default":
            for i, (t, (shape, dtype, device)) in enumerate(zip(found, self.metadata)):
                if (tuple(t.shape), t.dtype, t.device) != (shape, dtype, device):
                    raise CheckpointError(
                        f"torch.utils.checkpoint: Recomputed values for the following tensors have different "
                        f"metadata than during the forward pass.\ntensor at position {i}:\nsaved metadata: "
                        f"{{'shape': torch.Size({list(shape)}), 'dtype': {dtype}, 'device': {device}}}\n"
                        f"recomputed metadata: {{'shape': {t.shape}, 'dtype': {t.dtype}, 'device': {t.device}}}\n")
        self.recomputed = dict(enumerate(found))


def _checkpoint_without_reentrant(fn: Callable[..., Any], preserve_rng_state: bool, context_fn: Callable[..., Any],
                                  determinism_check: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    frame = _Recomputation(fn, args, kwargs, _ForwardState(preserve_rng_state, args), recompute_context,
                           determinism_check)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return fn(*args, **kwargs)


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[..., Any] = noop_context_fn, determinism_check: str = "default",
               debug: bool = False, preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    """function(*args, **kwargs), its intermediate tensors recomputed in backward instead of kept."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check, args, kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """A Sequential (or list of modules) run in `segments` chunks, each but the last checkpointed."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint_sequential without use_reentrant "
                      "will raise an exception. use_reentrant=False is recommended, but if you need to preserve the "
                      "current default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
                      "the differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())

    def run(start: int, end: int, fns: Any) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = fns[j](x)
            return x
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1, functions)(input)
