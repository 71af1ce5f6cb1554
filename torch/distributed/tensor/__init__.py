"""torch.distributed.tensor: the placements (Shard, Replicate, Partial) and device meshes work as PyTorch's; a
DTensor itself (a tensor whose operators run sharded over a mesh) does not exist in Ember: the class is here for
the isinstance checks libraries make on every parameter (accelerate, transformers), and making one, or
distributing a tensor or module, raises an error that says so."""
from __future__ import annotations

from typing import Any, NoReturn

from torch import Tensor
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.tensor.placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard", "distribute_module",
           "distribute_tensor", "init_device_mesh"]


def _missing(what: str) -> NoReturn:
    raise RuntimeError(f"{what}: Ember has no DTensor (a tensor whose operators run sharded over a device mesh); "
                       "shard the work with DistributedDataParallel or torch.distributed's collectives")


class DTensor(Tensor):
    """A tensor distributed over a DeviceMesh: not available in Ember."""

    __module__ = "torch.distributed.tensor"

    def __new__(cls, *args: Any, **kwargs: Any) -> DTensor:
        _missing("torch.distributed.tensor.DTensor")

    @staticmethod
    def from_local(*args: Any, **kwargs: Any) -> DTensor:
        _missing("DTensor.from_local")


def distribute_tensor(tensor: Tensor, device_mesh: DeviceMesh | None = None, placements: Any = None,
                      **kwargs: Any) -> DTensor:
    _missing("distribute_tensor")


def distribute_module(module: Any, device_mesh: DeviceMesh | None = None, partition_fn: Any = None,
                      **kwargs: Any) -> Any:
    _missing("distribute_module")
