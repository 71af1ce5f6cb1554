"""torch.distributed.algorithms: the join context manager for uneven inputs (join.py)."""
from torch.distributed.algorithms.join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
