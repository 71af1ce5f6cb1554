"""DistributedDataParallel's built-in communication hooks, as PyTorch's: each takes (process group or None,
GradBucket) and returns a Future of the bucket's reduced, averaged gradients. allreduce_hook is what DDP does
without a hook; the compress hooks send the bucket as float16 or bfloat16 (half the bytes) and write the result
back into the bucket's own dtype; the wrappers do the same around another hook."""
from __future__ import annotations

from typing import Any, Callable

import torch
import torch.distributed as dist
from torch.distributed.c10d_types import GradBucket
from torch.futures import Future

__all__ = ["allreduce_hook", "bf16_compress_hook", "bf16_compress_wrapper", "fp16_compress_hook",
           "fp16_compress_wrapper"]

Hook = Callable[[Any, GradBucket], Future[torch.Tensor]]


def _group(process_group: Any) -> Any:
    return process_group if process_group is not None else dist.group.WORLD


def _allreduce_fut(process_group: Any, tensor: torch.Tensor) -> Future[torch.Tensor]:
    """tensor divided by the group's size, then all-reduced in place: a Future of it."""
    group = _group(process_group)
    tensor.div_(group.size())
    return dist.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group: Any, bucket: GradBucket) -> Future[torch.Tensor]:
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype: torch.dtype, process_group: Any, bucket: GradBucket) -> Future[torch.Tensor]:
    group = _group(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(group.size())

    def decompress(fut: Future[list[torch.Tensor]]) -> torch.Tensor:
        buffer.copy_(fut.value()[0])
        return buffer
    return dist.all_reduce(compressed, group=group, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group: Any, bucket: GradBucket) -> Future[torch.Tensor]:
    """The bucket reduced as float16 (divided by the group's size first, against overflow)."""
    return _compress_hook(torch.float16, process_group, bucket)


def bf16_compress_hook(process_group: Any, bucket: GradBucket) -> Future[torch.Tensor]:
    """The bucket reduced as bfloat16."""
    return _compress_hook(torch.bfloat16, process_group, bucket)


def _compress_wrapper(dtype: torch.dtype, hook: Hook) -> Hook:
    def wrapped(state: Any, bucket: GradBucket) -> Future[torch.Tensor]:
        buffer = bucket.buffer()
        bucket.set_buffer(buffer.to(dtype))

        def decompress(fut: Future[torch.Tensor]) -> torch.Tensor:
            buffer.copy_(fut.value())
            return buffer
        return hook(state, bucket).then(decompress)
    return wrapped


def fp16_compress_wrapper(hook: Hook) -> Hook:
    """hook run on the bucket cast to float16, its result cast back into the bucket."""
    return _compress_wrapper(torch.float16, hook)


def bf16_compress_wrapper(hook: Hook) -> Hook:
    """hook run on the bucket cast to bfloat16, its result cast back into the bucket."""
    return _compress_wrapper(torch.bfloat16, hook)
