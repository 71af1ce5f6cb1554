"""Fully sharded data parallelism (FSDP): not in Ember. Its two entry points, FullyShardedDataParallel and
fully_shard, raise an error that says so and what to use instead; FSDPModule is here for isinstance checks."""
from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["FSDPModule", "FullyShardedDataParallel", "fully_shard"]


def _missing(what: str) -> NoReturn:
    raise RuntimeError(f"{what}: fully sharded data parallelism is not in Ember (its parameters would be DTensors, "
                       "which Ember does not have); replicate the model with "
                       "torch.nn.parallel.DistributedDataParallel instead")


class FSDPModule:
    """A module fully_shard has sharded: none exists in Ember."""

    __module__ = "torch.distributed.fsdp"


class FullyShardedDataParallel:
    """A module wrapped by FSDP: none exists in Ember (named for the isinstance checks libraries make)."""

    __module__ = "torch.distributed.fsdp"

    def __init__(self, module: Any, *args: Any, **kwargs: Any) -> None:
        _missing("FullyShardedDataParallel")


def fully_shard(module: Any, *args: Any, **kwargs: Any) -> NoReturn:
    _missing("fully_shard")
