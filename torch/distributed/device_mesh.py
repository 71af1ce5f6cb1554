"""DeviceMesh: the ranks of the world arranged in an n-dimensional array, as PyTorch's. Each dimension has, for
this rank, a process group of the ranks that share its coordinates on every other dimension (made by those
ranks alone, on Ember's engine); mesh["tp"] is the mesh of one named dimension with that same group."""
from __future__ import annotations

import math
from typing import Any, Sequence

import torch

__all__ = ["DeviceMesh", "init_device_mesh"]

_groups: dict[tuple[int, ...], Any] = {}     # one group per set of ranks, shared by every mesh that needs it


def _group_of(ranks: tuple[int, ...]) -> Any:
    """The whole world's ranks are the default group; others get one group each while the world lasts."""
    from torch.distributed import distributed_c10d as c10d
    world = c10d._get_default_group()
    if ranks == tuple(range(world.size())):
        return world
    group = _groups.get(ranks)
    if group is None or group not in c10d._world.groups:
        group = _groups[ranks] = c10d.new_group(list(ranks))
    return group


class DeviceMesh:
    """The global ranks in `mesh`'s shape (a tensor or nested list); device_type names where their tensors live."""

    __module__ = "torch.distributed.device_mesh"

    def __init__(self, device_type: str, mesh: Any, *, mesh_dim_names: Sequence[str] | None = None,
                 _init_backend: bool = True, _groups_of_dims: Sequence[Any] | None = None) -> None:
        import torch.distributed as dist
        self.device_type = device_type
        self.mesh = (mesh.detach().to("cpu") if isinstance(mesh, torch.Tensor) else torch.tensor(mesh)).to(torch.int32)
        if self.mesh.dim() == 0:
            raise ValueError("DeviceMesh: the mesh needs at least one dimension")
        ranks = self.mesh.flatten().tolist()
        if len(ranks) > dist.get_world_size():
            raise RuntimeError(f"Mesh should not be bigger than default world size {dist.get_world_size()}, but found "
                               f"{len(ranks)} ranks!")
        if len(set(ranks)) != len(ranks):
            raise RuntimeError(f"DeviceMesh cannot have duplicate values, but found {ranks}")
        self.mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names is not None else None
        if self.mesh_dim_names is not None and len(self.mesh_dim_names) != self.mesh.dim():
            raise RuntimeError(f"mesh_dim_names {self.mesh_dim_names} must have one name per mesh dimension "
                               f"({self.mesh.dim()})")
        self._rank = dist.get_rank()
        self._coordinate = _coordinate_of(self.mesh, self._rank)
        if _groups_of_dims is not None:
            self._dim_groups = list(_groups_of_dims)
        elif _init_backend and self._coordinate is not None:
            self._dim_groups = [_group_of(self._ranks_along(d)) for d in range(self.mesh.dim())]
        else:
            self._dim_groups = []

    def _ranks_along(self, dim: int) -> tuple[int, ...]:
        """The ranks that share this rank's coordinates on every dimension but dim."""
        assert self._coordinate is not None
        index: list[Any] = list(self._coordinate)
        index[dim] = slice(None)
        return tuple(self.mesh[tuple(index)].tolist())

    # -- what PyTorch's mesh answers ------------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return self.mesh.dim()

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.mesh.shape)

    def size(self, mesh_dim: int | None = None) -> int:
        return self.mesh.numel() if mesh_dim is None else self.mesh.size(mesh_dim)

    def get_rank(self) -> int:
        return self._rank

    def get_coordinate(self) -> tuple[int, ...] | None:
        """This rank's coordinates in the mesh, None when it is not in it."""
        return self._coordinate

    def _dim_index(self, mesh_dim: int | str | None) -> int:
        if mesh_dim is None:
            if self.ndim != 1:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions. Optional kwarg `mesh_dim` "
                                   "needs to be specified when device_mesh.ndim > 1.")
            return 0
        if isinstance(mesh_dim, str):
            if self.mesh_dim_names is None or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available mesh dimensions are: "
                               f"mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        if not -self.ndim <= mesh_dim < self.ndim:
            raise IndexError(f"mesh_dim {mesh_dim} is out of range for a mesh of {self.ndim} dimensions")
        return mesh_dim % self.ndim

    def get_group(self, mesh_dim: int | str | None = None) -> Any:
        """The process group of this rank's ranks along mesh_dim."""
        if self._coordinate is None:
            raise RuntimeError(f"Rank {self._rank} is not in {self!r}")
        return self._dim_groups[self._dim_index(mesh_dim)]

    def get_all_groups(self) -> list[Any]:
        return [self.get_group(d) for d in range(self.ndim)]

    def get_local_rank(self, mesh_dim: int | str | None = None) -> int:
        """This rank's rank in its group along mesh_dim (its coordinate, where that dimension's ranks ascend)."""
        import torch.distributed as dist
        return dist.get_rank(self.get_group(mesh_dim))

    def __getitem__(self, names: str | Sequence[str]) -> DeviceMesh:
        """The mesh of these named dimensions through this rank (in the parent's order), with their groups."""
        wanted = (names,) if isinstance(names, str) else tuple(names)
        if self.mesh_dim_names is None:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names")
        dims = [self._dim_index(name) for name in wanted]
        if dims != sorted(dims) or len(set(dims)) != len(dims):
            raise KeyError(f"Invalid mesh_dim_names {wanted} specified. The mesh_dim_names must be in the order of "
                           f"the mesh's: {self.mesh_dim_names}")
        if self._coordinate is None:
            raise RuntimeError(f"Rank {self._rank} is not in {self!r}")
        if wanted == self.mesh_dim_names:
            return self
        index = tuple(slice(None) if d in dims else c for d, c in enumerate(self._coordinate))
        groups = [self._dim_groups[d] for d in dims] if self._dim_groups else None
        return DeviceMesh(self.device_type, self.mesh[index], mesh_dim_names=wanted, _groups_of_dims=groups)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DeviceMesh) and other.device_type == self.device_type
                and other.mesh_dim_names == self.mesh_dim_names and torch.equal(other.mesh, self.mesh))

    def __hash__(self) -> int:
        return hash((self.device_type, tuple(self.mesh.flatten().tolist()), self.shape, self.mesh_dim_names))

    def __repr__(self) -> str:
        """As PyTorch prints a mesh: its sizes (named), device type and the rank stride of each dimension."""
        sizes = f"({', '.join(f'{k}={v}' for k, v in zip(self.mesh_dim_names, self.shape))})" \
            if self.mesh_dim_names else f"{self.shape}"
        strides: list[Any] = []
        for d in range(self.ndim):
            if self.shape[d] == 1:
                strides.append(())
            else:
                first = [0] * self.ndim
                second = first[:d] + [1] + first[d + 1:]
                strides.append(int(self.mesh[tuple(second)] - self.mesh[tuple(first)]))
        return f"DeviceMesh({sizes}, '{self.device_type}', stride={tuple(strides)})"


def _coordinate_of(mesh: torch.Tensor, rank: int) -> tuple[int, ...] | None:
    found = (mesh == rank).nonzero()
    return tuple(found[0].tolist()) if found.size(0) else None


def init_device_mesh(device_type: str, mesh_shape: Sequence[int], *,
                     mesh_dim_names: Sequence[str] | None = None, backend_override: Any = None) -> DeviceMesh:
    """A mesh of the whole world in mesh_shape, ranks in order; starts the default group from the environment
    (as torchrun sets it) when none is."""
    import torch.distributed as dist
    shape = tuple(int(s) for s in mesh_shape)
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated mesh_dim_name in mesh_dim_names "
                               f"{tuple(mesh_dim_names)}")
        if len(mesh_dim_names) != len(shape):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                               f"{len(mesh_dim_names)} and len(mesh_shape):{len(shape)}.")
    if device_type and not device_type.isalpha():
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. If you maintained a "
                           "'torch.device' object, it's recommended to pass in 'device.type'.")
    if not dist.is_initialized():
        dist.init_process_group()
    return DeviceMesh(device_type, torch.arange(math.prod(shape)).view(shape), mesh_dim_names=mesh_dim_names)
