"""PyTorch's module path of FullyShardedDataParallel and its configuration types (see fully_shard.py)."""
from torch.distributed.fsdp.api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,
                                        MixedPrecision, ShardingStrategy, StateDictType)
from torch.distributed.fsdp.fully_shard import FullyShardedDataParallel

__all__ = ["BackwardPrefetch", "CPUOffload", "FullOptimStateDictConfig", "FullStateDictConfig",
           "FullyShardedDataParallel", "MixedPrecision", "ShardingStrategy", "StateDictType"]
