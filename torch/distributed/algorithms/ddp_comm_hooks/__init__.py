"""DistributedDataParallel's communication hooks (default_hooks.py), registered with
DistributedDataParallel.register_comm_hook(state, hook)."""
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook

__all__ = ["default_hooks", "powerSGD_hook"]
