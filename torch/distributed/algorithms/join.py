"""The join context manager for uneven inputs, as PyTorch's: a rank that runs out of batches leaves the loop and
"joins"; until every rank has, it shadows the collectives the others still make each iteration (each joinable's
JoinHook.main_hook), so that no rank waits forever. The ranks count who has not joined with one all-reduce per
iteration: the others add 1 (notify_join_context, before their collectives), the joined add 0."""
from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, NamedTuple

import torch

__all__ = ["Join", "JoinHook", "Joinable"]

_SKEW_WARNING = 1000


class JoinHook:
    """What a joined rank does: main_hook once per iteration the others still run, post_hook once all joined."""

    def main_hook(self) -> None:
        """Shadow one iteration's collectives of the ranks that have not joined."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """After every rank joined; is_last_joiner: this rank was among the last to."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config() -> _JoinConfig:
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class whose per-iteration collectives a joined rank can shadow. A class with join_hook, join_device and
    join_process_group is one without naming this base (DistributedDataParallel, which torch.nn cannot import
    torch.distributed to name)."""

    @classmethod
    def __subclasshook__(cls, other: type) -> Any:
        if cls is Joinable and all(any(name in vars(k) for k in other.__mro__)
                                   for name in ("join_hook", "join_device", "join_process_group")):
            return True
        return NotImplemented

    @abstractmethod
    def __init__(self) -> None:
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs: Any) -> JoinHook:
        """The hook that shadows this joinable's collectives."""

    @property
    @abstractmethod
    def join_device(self) -> torch.device:
        """Where the join's own counting tensors live."""

    @property
    @abstractmethod
    def join_process_group(self) -> Any:
        """The group the join counts over."""


class Join:
    """with Join([ddp_model, ...]): the loop inside may run a different number of iterations on each rank."""

    def __init__(self, joinables: list[Any], enable: bool = True, throw_on_early_termination: bool = False,
                 **kwargs: Any) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, joinable in enumerate(joinables):
            joinable._join_config = _JoinConfig(enable, throw_on_early_termination, is_first_joinable=i == 0)
        groups = {id(j.join_process_group) for j in joinables}
        if len(groups) > 1:
            raise ValueError("Using join context manager with multiple process groups")
        self._process_group = joinables[0].join_process_group
        self._device = joinables[0].join_device
        import torch.distributed as dist
        self._dist = dist
        self._rank = dist.get_rank(self._process_group)

    def __enter__(self) -> Join:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        try:
            if not self._enable or kind is not None:
                return      # an exception inside goes on as it is
            self._shadow_until_all_joined()
        finally:
            for joinable in self._joinables:
                joinable._join_config = _JoinConfig.construct_disabled_join_config()

    def _shadow_until_all_joined(self) -> None:
        is_last_joiner = True
        iterations = 0
        while self._count_not_joined() > 0:
            if iterations == _SKEW_WARNING:
                warnings.warn(f"Detected uneven input skew of greater than {_SKEW_WARNING}. This means that rank "
                              f"{self._rank} has at least {_SKEW_WARNING} fewer inputs than other currently-active "
                              "ranks. This level of skew could lead to performance degradation during training.",
                              stacklevel=3)
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            iterations += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    def _count_not_joined(self) -> int:
        """Shadows the others' notify_join_context all-reduce: they add 1, this rank 0."""
        count = torch.zeros(1, device=self._device)
        self._dist.all_reduce(count, group=self._process_group)
        return int(count.item())

    def _notify_procs_to_terminate(self) -> None:
        ones = torch.ones(1, device=self._device)
        self._dist.all_reduce(ones, group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable: Any) -> Any:
        """Called by a joinable before its collectives of an iteration: counts this rank as not joined (the first
        joinable of the context does; the Work of that all-reduce is returned, None for the others). With
        throw_on_early_termination, raises on every rank once one has joined."""
        config = getattr(joinable, "_join_config", None)
        if config is None:
            raise RuntimeError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor")
        if not config.is_first_joinable or not config.enable:
            return None
        import torch.distributed as dist
        device, group = joinable.join_device, joinable.join_process_group
        ones = torch.ones(1, device=device)
        work = dist.all_reduce(ones, group=group, async_op=True)     # result(): [ranks not joined]
        if config.throw_on_early_termination:
            zeros = torch.zeros(1, device=device)
            dist.all_reduce(zeros, group=group)
            if zeros.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work
