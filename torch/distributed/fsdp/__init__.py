"""torch.distributed.fsdp: the configuration types work as PyTorch's; FSDP itself is not in Ember
(fully_shard.py says why and raises)."""
from torch.distributed.fsdp.api import (BackwardPrefetch, CPUOffload, CPUOffloadPolicy, FullOptimStateDictConfig,
                                        FullStateDictConfig, MixedPrecision, MixedPrecisionPolicy, OffloadPolicy,
                                        ShardingStrategy, StateDictType)
from torch.distributed.fsdp.fully_shard import FSDPModule, FullyShardedDataParallel, fully_shard

__all__ = ["BackwardPrefetch", "CPUOffload", "CPUOffloadPolicy", "FSDPModule", "FullOptimStateDictConfig",
           "FullStateDictConfig", "FullyShardedDataParallel", "MixedPrecision", "MixedPrecisionPolicy",
           "OffloadPolicy", "ShardingStrategy", "StateDictType", "fully_shard"]
