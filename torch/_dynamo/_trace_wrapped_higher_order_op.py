"""TransformGetItemToIndex: a TorchFunctionMode under which tensor[indices], with every index a
tensor, runs as aten::index (what transformers' vmap-built attention masks rely on)."""
from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_leaves

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func is torch.Tensor.__getitem__:
            indices = tree_leaves(args[1])
            if all(isinstance(i, torch.Tensor) for i in indices):
                return torch.ops.aten.index(args[0], indices)
        return func(*args, **(kwargs or {}))
