"""torch.multiprocessing: Python's multiprocessing, with tensors that cross process boundaries
through shared memory (reductions.py: a CPU tensor put on a queue moves to shared memory and the
receiver maps the same bytes), and spawn / start_processes (spawn.py)."""
from multiprocessing import *  # noqa: F403
import multiprocessing as _multiprocessing

from torch.multiprocessing.reductions import init_reductions
from torch.multiprocessing.spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException, spawn,
                                         start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
           "ProcessContext", "ProcessRaisedException", "ProcessExitedException", *_multiprocessing.__all__]

init_reductions()

_sharing_strategy = "file_descriptor"
_ALL_STRATEGIES = {"file_descriptor"}


def set_sharing_strategy(new_strategy: str) -> None:
    """How tensors are shared: "file_descriptor" (the memory file's descriptor travels with the
    tensor), the one strategy Ember has; "file_system" (named files) is refused, saying so."""
    global _sharing_strategy
    if new_strategy not in _ALL_STRATEGIES:
        if new_strategy == "file_system":
            raise RuntimeError("Ember shares tensors by file descriptor only; the file_system strategy is not "
                               "provided")
        raise RuntimeError(f"invalid sharing strategy {new_strategy!r}; choose from {sorted(_ALL_STRATEGIES)}")
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    return _sharing_strategy


def get_all_sharing_strategies() -> set[str]:
    return set(_ALL_STRATEGIES)
