"""FSDP's configuration types, as PyTorch names them (the enums and dataclasses programs pass to
FullyShardedDataParallel and fully_shard). Ember has no FSDP to pass them to: see fully_shard.py."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["BackwardPrefetch", "CPUOffload", "CPUOffloadPolicy", "FullOptimStateDictConfig", "FullStateDictConfig",
           "MixedPrecision", "MixedPrecisionPolicy", "OffloadPolicy", "ShardingStrategy", "StateDictType"]


class ShardingStrategy(enum.Enum):
    FULL_SHARD = enum.auto()
    SHARD_GRAD_OP = enum.auto()
    NO_SHARD = enum.auto()
    HYBRID_SHARD = enum.auto()
    _HYBRID_SHARD_ZERO2 = enum.auto()


class BackwardPrefetch(enum.Enum):
    BACKWARD_PRE = enum.auto()
    BACKWARD_POST = enum.auto()


class StateDictType(enum.Enum):
    FULL_STATE_DICT = enum.auto()
    LOCAL_STATE_DICT = enum.auto()
    SHARDED_STATE_DICT = enum.auto()


@dataclass
class CPUOffload:
    offload_params: bool = False


@dataclass
class MixedPrecision:
    param_dtype: torch.dtype | None = None
    reduce_dtype: torch.dtype | None = None
    buffer_dtype: torch.dtype | None = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: Any = ()


@dataclass
class FullStateDictConfig:
    offload_to_cpu: bool = False
    rank0_only: bool = False


@dataclass
class FullOptimStateDictConfig:
    offload_to_cpu: bool = False
    rank0_only: bool = False


@dataclass(frozen=True)
class MixedPrecisionPolicy:
    param_dtype: torch.dtype | None = None
    reduce_dtype: torch.dtype | None = None
    output_dtype: torch.dtype | None = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    """No offloading."""


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    pin_memory: bool = True
