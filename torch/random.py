"""torch.random: seeding and state of the default CPU generator (PyTorch's torch/random.py).

The generator itself is c10.generator.Generator (torch.Generator): PyTorch's mt19937, so
`torch.manual_seed(s)` followed by an operator gives PyTorch's numbers for that seed (see the
random section of aten/native/native_functions.yaml for which operators are bit-exact).
manual_seed seeds the default CUDA generator (Philox, torch.cuda.default_generators) too.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import c10.generator as _generators
from c10.generator import Generator, default_cuda_generator, default_generator

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator (an int in [-2**63, 2**64); negatives wrap modulo 2**64); returns it."""
    default_cuda_generator.manual_seed(int(seed))      # as PyTorch's: every device's default generator
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from a non-deterministic source, and the CUDA one with the same
    seed (as PyTorch's); returns the 64-bit seed."""
    value = int(default_generator.seed())
    default_cuda_generator.manual_seed(value)
    return value


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return int(default_generator.initial_seed())


def get_rng_state() -> Any:
    """The default generator's state: a uint8 tensor (PyTorch's 5056-byte CPU layout)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator's state from get_rng_state() (Ember's or PyTorch's)."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: Iterable[Any] | None = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Restore the CPU generator's state on exit, and the CUDA one's unless device_type names
    another device or devices is empty (Ember drives one CUDA device; its state needs no GPU)."""
    if not enabled or device_type == "meta":
        yield
        return
    fork_cuda = device_type in (None, "cuda") and (devices is None or len(list(devices)) > 0)
    state = get_rng_state()
    cuda_state = default_cuda_generator.get_state() if fork_cuda else None
    try:
        yield
    finally:
        set_rng_state(state)
        if cuda_state is not None:
            default_cuda_generator.set_state(cuda_state)


@contextlib.contextmanager
def _generator_state_watched(hook: Callable[[Generator, str], None]) -> Iterator[None]:
    """For the block, hook(generator, method) at each call of a generator's own methods that set or read its
    state (manual_seed, seed, set_state, get_state, initial_seed): torch.compile's capture, on every thread (the
    hook checks which)."""
    saved, _generators.state_hook = _generators.state_hook, hook
    try:
        yield
    finally:
        _generators.state_hook = saved
