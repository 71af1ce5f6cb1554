"""vmap's batching rules, registered at the FuncTorchBatched key on vmap's first call (importing torch stays
fast): pointwise (generated from the schema's tags), shape and indexing, reductions, matrix products and
convolutions, nn operators, and random operators (FuncTorchVmapMode)."""
from __future__ import annotations

_registered = False


def register_all() -> None:
    global _registered
    if _registered:
        return
    from torch._functorch.batch_rules import linalg, nn, pointwise, random, reduce, shape
    for module in (pointwise, shape, reduce, linalg, nn, random):
        module.register()
    _registered = True
