"""DistributedDataParallel: the module replicated over a process group's ranks with its gradients
all-reduced. Ember has no distributed backend yet (torch.distributed.is_available() is False), so
no process group can exist, and construction raises PyTorch's error for a missing default group."""
from __future__ import annotations

from typing import Any

from torch.nn.modules.module import Module


class DistributedDataParallel(Module):
    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 broadcast_buffers: bool = True, init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: Any = None, find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params: Any = None, param_to_hook_all_reduce: Any = None,
                 mixed_precision: Any = None, device_mesh: Any = None,
                 skip_all_reduce_unused_params: bool = False) -> None:
        super().__init__()
        if process_group is None and device_mesh is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        raise RuntimeError("DistributedDataParallel: Ember has no torch.distributed backend yet, so it cannot "
                           "use the process group it was given")
