"""torch.distributed's small types, as PyTorch names them: ReduceOp, Backend, P2POp, the default timeout."""
from __future__ import annotations

import enum
from datetime import timedelta
from typing import Any

__all__ = ["Backend", "GradBucket", "P2POp", "ReduceOp", "default_pg_timeout"]

default_pg_timeout = timedelta(minutes=30)


class RedOpType(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


class ReduceOp:
    """How a reduction combines the ranks' values: ReduceOp.SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR."""

    __module__ = "torch.distributed"
    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM
    UNUSED = RedOpType.UNUSED


def op_name(op: Any) -> str:
    """A ReduceOp's name ("SUM"), checked."""
    name = _NAMES.get(op) if isinstance(op, int) else None
    if name is not None:
        return name
    try:
        kind = RedOpType(int(op))
    except (TypeError, ValueError):
        raise ValueError(f"Invalid reduce op {op!r}") from None
    if kind in (RedOpType.PREMUL_SUM, RedOpType.UNUSED):
        raise ValueError(f"ReduceOp.{kind.name} is not supported by Ember's MPI engine")
    return kind.name


class Backend(str):
    """A backend's name, lower case (Backend("GLOO") == "gloo"). Ember carries CPU tensors on MPI whichever of
    "gloo" and "mpi" a program names (torch/distributed/README.md); NCCL is not in this build."""

    __module__ = "torch.distributed"
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = [UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL}

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = name.lower()
        if value == "undefined":
            raise ValueError(f"Invalid backend: '{name}'")
        return super().__new__(cls, value)


class P2POp:
    """One send or receive of batch_isend_irecv: op is torch.distributed.isend or irecv."""

    __module__ = "torch.distributed"

    def __init__(self, op: Any, tensor: Any, peer: int | None = None, group: Any = None, tag: int = 0,
                 group_peer: int | None = None) -> None:
        if peer is None and group_peer is None:
            raise ValueError("P2POp: either peer or group_peer must be given")
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag
        self.group_peer = group_peer


_NAMES: dict[int, str] = {kind: kind.name for kind in RedOpType if kind not in (RedOpType.PREMUL_SUM, RedOpType.UNUSED)}


class GradBucket:
    """What a DistributedDataParallel communication hook is handed: one bucket of gradients, flattened in
    buffer() (the hook's Future must hold it reduced), with the parameters and gradient views it covers."""

    __module__ = "torch.distributed"

    def __init__(self, index: int, buffer: Any, gradients: list[Any], parameters: list[Any], is_last: bool) -> None:
        self._index, self._buffer, self._gradients = index, buffer, gradients
        self._parameters, self._is_last = parameters, is_last

    def index(self) -> int:
        return self._index

    def buffer(self) -> Any:
        return self._buffer

    def set_buffer(self, buffer: Any) -> None:
        self._buffer = buffer

    def gradients(self) -> list[Any]:
        return self._gradients

    def parameters(self) -> list[Any]:
        return self._parameters

    def is_last(self) -> bool:
        return self._is_last
