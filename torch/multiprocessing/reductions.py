"""How tensors pickle for multiprocessing queues and pipes (ForkingPickler): a CPU tensor's storage
moves to shared memory (Tensor.share_memory_) and the tensor travels as that memory file's
descriptor plus its geometry; the receiver maps the same bytes, so writes on either side are seen
by the other, as with PyTorch's file_descriptor strategy."""
from __future__ import annotations

from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

import torch
from c10.storage import SharedBlock
from c10.tensor_impl import over_shared_block

__all__ = ["init_reductions", "reduce_tensor", "rebuild_tensor"]


def rebuild_tensor(cls: Any, handle: Any, nbytes: int, dtype: Any, shape: tuple[int, ...], stride: tuple[int, ...],
                   offset: int, requires_grad: bool) -> Any:
    block = SharedBlock(nbytes, handle.detach())
    t = over_shared_block(block, dtype, shape, stride, offset)
    if cls is torch.nn.Parameter:
        return torch.nn.Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t if cls is torch.Tensor else t.as_subclass(cls)


def reduce_tensor(tensor: Any) -> tuple[Any, tuple[Any, ...]]:
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
                           "not support crossing process boundaries.  If you just want to transfer the data, call "
                           "detach() on the tensor before serializing (e.g., putting it on the queue).")
    if tensor.is_cuda:
        raise RuntimeError("Ember cannot share CUDA tensors between processes yet (no CUDA IPC); move the tensor to "
                           "the CPU first")
    tensor.share_memory_()
    block = tensor._untyped_storage.shared_block()
    return (rebuild_tensor, (type(tensor), DupFd(block.fd), block.nbytes, tensor.dtype, tuple(tensor.shape),
                             tuple(tensor.stride()), tensor.storage_offset(), tensor.requires_grad))


def init_reductions() -> None:
    """Register the reductions with multiprocessing's pickler (every start method uses it)."""
    ForkingPickler.register(torch.Tensor, reduce_tensor)
    ForkingPickler.register(torch.nn.Parameter, reduce_tensor)
