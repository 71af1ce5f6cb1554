"""PowerSGD (Vogels et al., 2019) as DistributedDataParallel communication hooks, as PyTorch's: after
start_powerSGD_iter plain all-reduces, each gradient matrix M of a bucket worth compressing is sent as two thin
factors: P = M Q all-reduced and orthogonalised, then Q = M^T P all-reduced, and M becomes P Q^T / world size.
Vectors and matrices too small to gain travel uncompressed. With error feedback, what the approximation lost is
added to the next step's gradient; with warm start, each step's Q starts from the last. The random Q of a first
step is drawn from a seed every rank draws alike (state.rng), so the ranks agree without a message."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.distributed.c10d_types import GradBucket
from torch.futures import Future

__all__ = ["PowerSGDState", "batched_powerSGD_hook", "powerSGD_hook"]


def _orthogonalize(matrices: torch.Tensor, epsilon: float = 0.0) -> None:
    """Orthonormal columns for each matrix of a batch (batch, rows, rank), in place: Gram-Schmidt for a rank of
    one or two (or 16-bit floats), a QR factorisation above."""
    if matrices.dim() == 2:
        matrices = matrices.unsqueeze(0)
    if matrices.shape[2] <= 2 or matrices.dtype in (torch.float16, torch.bfloat16):
        for i in range(matrices.shape[2]):
            col = matrices[:, :, i:i + 1]
            col /= torch.linalg.vector_norm(col, dim=1, keepdim=True) + epsilon
            if i + 1 < matrices.shape[2]:
                rest = matrices[:, :, i + 1:]
                rest -= (col * rest).sum(dim=1, keepdim=True) * col
    else:
        matrices.copy_(torch.linalg.qr(matrices)[0])


def _should_compress(rows: int, cols: int, rank: int, min_compression_rate: float) -> tuple[bool, int, int]:
    """(worth compressing, elements before, elements after): worth it when before > after * the rate."""
    before, after = rows * cols, (rows + cols) * rank
    return after * min_compression_rate < before, before, after


class PowerSGDState:
    """The hyperparameters (matrix_approximation_rank and start_powerSGD_iter above all) and, per bucket, the
    local error and the factors kept between steps."""

    __slots__ = ["process_group", "matrix_approximation_rank", "start_powerSGD_iter", "min_compression_rate",
                 "orthogonalization_epsilon", "use_error_feedback", "warm_start", "batch_tensors_with_same_shape",
                 "rng", "error_dict", "p_memory_dict", "q_memory_dict", "iter", "total_numel_before_compression",
                 "total_numel_after_compression", "compression_stats_logging_frequency", "next_stats_report"]

    def __init__(self, process_group: Any, matrix_approximation_rank: int = 1, start_powerSGD_iter: int = 1_000,
                 min_compression_rate: float = 2, use_error_feedback: bool = True, warm_start: bool = True,
                 orthogonalization_epsilon: float = 0, random_seed: int = 0,
                 compression_stats_logging_frequency: int = 10_000,
                 batch_tensors_with_same_shape: bool = False) -> None:
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError("Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or `warm_start` is enabled, "
                             "because PowerSGD can only be applied after the first two iterations in DDP.")
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape
        self.rng = np.random.RandomState(random_seed)
        self.error_dict: dict[int, torch.Tensor] = {}
        self.p_memory_dict: dict[int, torch.Tensor] = {}
        self.q_memory_dict: dict[int, torch.Tensor] = {}
        self.iter = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0

    def maybe_increase_iter(self, bucket: GradBucket) -> None:
        """One more step once the last bucket of a step is handled."""
        if bucket.is_last():
            self.iter += 1

    def compression_stats(self) -> tuple[float, int, int]:
        """(elements before / after compression, before, after), over every step compressed so far."""
        after = self.total_numel_after_compression
        return (self.total_numel_before_compression / after if after else 0,
                self.total_numel_before_compression, after)


def _group(state: PowerSGDState) -> Any:
    return state.process_group if state.process_group is not None else dist.group.WORLD


def _with_error(state: PowerSGDState, index: int, flat: torch.Tensor) -> torch.Tensor | None:
    """Add the bucket's remembered error to its gradients; the sum's copy, to measure the next error."""
    if not state.use_error_feedback:
        return None
    if index in state.error_dict:
        flat.add_(state.error_dict[index])
    else:
        state.error_dict[index] = torch.zeros_like(flat)
    return flat.clone()


def _random_qs(state: PowerSGDState, qs: list[torch.Tensor]) -> None:
    """Fill the Qs from a seed every rank draws alike, without moving the program's own generator."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(state.rng.randint(1_000_000_000))
        for q in qs:
            q.copy_(torch.randn(*q.shape, dtype=q.dtype))
            _orthogonalize(q, state.orthogonalization_epsilon)


def _plain_until_started(state: PowerSGDState, bucket: GradBucket) -> Future[torch.Tensor] | None:
    """Before start_powerSGD_iter, the bucket averaged plainly (a step counted at each last bucket); None after."""
    if state.iter >= state.start_powerSGD_iter:
        return None
    state.maybe_increase_iter(bucket)
    return default_hooks._allreduce_fut(_group(state), bucket.buffer())


def _all_reduce_now(tensor: torch.Tensor, group: Any) -> torch.Tensor:
    dist.all_reduce(tensor, group=group)
    return tensor


def powerSGD_hook(state: PowerSGDState, bucket: GradBucket) -> Future[torch.Tensor]:  # noqa: N802 - PyTorch's name
    """The bucket's gradients averaged over the ranks, each matrix worth it through rank-r factors (vectors as
    one-column matrices). Matrices of one shape are handled together, in the order their shapes first appear
    (with batch_tensors_with_same_shape, as one batch): the random Qs are drawn in that order, as PyTorch's."""
    plain_step = _plain_until_started(state, bucket)
    if plain_step is not None:
        return plain_step
    group = _group(state)
    world_size = group.size()
    flat = bucket.buffer()
    index = bucket.index()
    before = _with_error(state, index, flat)
    matrices, uncompressed = [], []
    for gradient in bucket.gradients():
        matrix = gradient.view(gradient.shape[0], -1)
        rank = min(matrix.shape[0], matrix.shape[1], state.matrix_approximation_rank)
        worth, numel, compressed = _should_compress(matrix.shape[0], matrix.shape[1], rank, state.min_compression_rate)
        state.total_numel_before_compression += numel
        if worth:
            matrices.append(matrix)
            state.total_numel_after_compression += compressed
        else:
            uncompressed.append(gradient)
            state.total_numel_after_compression += numel
    plain = torch.cat([g.reshape(-1) for g in uncompressed]) if uncompressed else flat.new_zeros(0)
    grouped = _batches(matrices, state.batch_tensors_with_same_shape)
    batches = [batch for batch, _ in grouped]
    shapes = [(b.shape[0], b.shape[1], b.shape[2], min(b.shape[1], b.shape[2], state.matrix_approximation_rank))
              for b in batches]
    fresh = not state.warm_start or index not in state.p_memory_dict
    if fresh:
        state.p_memory_dict[index] = flat.new_empty(sum(k * n * r for k, n, _, r in shapes))
        state.q_memory_dict[index] = flat.new_empty(sum(k * m * r for k, _, m, r in shapes))
    ps = _factors(state.p_memory_dict[index], [(k, n, r) for k, n, _, r in shapes])
    qs = _factors(state.q_memory_dict[index], [(k, m, r) for k, _, m, r in shapes])
    if fresh:
        _random_qs(state, qs)
    else:
        for q in qs:
            _orthogonalize(q, state.orthogonalization_epsilon)
    for batch, q, p in zip(batches, qs, ps):
        torch.bmm(batch, q, out=p)

    def uncompressed_back_then_ps(fut: Future[list[torch.Tensor]]) -> torch.Tensor:
        reduced = fut.value()[0].div_(world_size)
        offset = 0
        for gradient in uncompressed:
            gradient.copy_(reduced[offset:offset + gradient.numel()].view_as(gradient))
            offset += gradient.numel()
        return _all_reduce_now(state.p_memory_dict[index], group)     # Ps are orthogonalised: no division

    def qs_from_ps(fut: Future[torch.Tensor]) -> torch.Tensor:
        for p in ps:
            _orthogonalize(p, state.orthogonalization_epsilon)
        for batch, p, q in zip(batches, ps, qs):
            torch.bmm(batch.transpose(1, 2), p, out=q)
        return _all_reduce_now(state.q_memory_dict[index], group)

    def decompress(fut: Future[torch.Tensor]) -> torch.Tensor:
        state.q_memory_dict[index].div_(world_size)
        for batch, p, q in zip(batches, ps, qs):
            torch.bmm(p, q.transpose(1, 2), out=batch)
        for batch, members in grouped:
            if len(members) > 1:        # a stacked copy: written back
                for i, matrix in enumerate(members):
                    matrix.copy_(batch[i])
        _remember(state, index, before, flat)
        state.maybe_increase_iter(bucket)
        return flat
    return dist.all_reduce(plain, group=group, async_op=True).get_future() \
        .then(uncompressed_back_then_ps).then(qs_from_ps).then(decompress)


def _batches(matrices: list[torch.Tensor], together: bool) -> list[tuple[torch.Tensor, list[torch.Tensor]]]:
    """(batch, the matrices it holds), grouped by shape in the order shapes first appear: each matrix a batch of
    one (a view of the gradient), or, together, one stacked batch per shape (a copy when it holds several)."""
    by_shape: dict[tuple[int, ...], list[torch.Tensor]] = {}
    for matrix in matrices:
        by_shape.setdefault(tuple(matrix.shape), []).append(matrix)
    if together:
        return [(group[0].unsqueeze(0) if len(group) == 1 else torch.stack(group), group)
                for group in by_shape.values()]
    return [(matrix.unsqueeze(0), [matrix]) for group in by_shape.values() for matrix in group]


def _factors(memory: torch.Tensor, shapes: list[tuple[int, int, int]]) -> list[torch.Tensor]:
    """Views of one flat buffer as batches of factors, (batch, rows, rank) each."""
    views, offset = [], 0
    for batch, rows, rank in shapes:
        views.append(memory[offset:offset + batch * rows * rank].view(batch, rows, rank))
        offset += batch * rows * rank
    return views


def _remember(state: PowerSGDState, index: int, before: torch.Tensor | None, after: torch.Tensor) -> None:
    """Keep what compression lost (error feedback); forget the factors without warm start."""
    if before is not None:
        state.error_dict[index] = before - after
    if not state.warm_start:
        state.p_memory_dict.clear()
        state.q_memory_dict.clear()


def batched_powerSGD_hook(state: PowerSGDState, bucket: GradBucket) -> Future[torch.Tensor]:  # noqa: N802
    """PowerSGD on the whole bucket at once, as one square matrix padded with zeros (faster, coarser)."""
    plain_step = _plain_until_started(state, bucket)
    if plain_step is not None:
        return plain_step
    group = _group(state)
    world_size = group.size()
    flat = bucket.buffer()
    index = bucket.index()
    side = math.ceil(math.sqrt(flat.numel()))
    state.total_numel_before_compression += flat.numel()
    state.total_numel_after_compression += side * state.matrix_approximation_rank * 2
    padded = flat.new_zeros(side * side)
    padded[:flat.numel()] = flat
    before = _with_error(state, index, padded)
    matrix = padded.view(side, side)
    if not state.warm_start or index not in state.p_memory_dict:
        state.p_memory_dict[index] = flat.new_empty(side, state.matrix_approximation_rank)
        state.q_memory_dict[index] = flat.new_empty(side, state.matrix_approximation_rank)
        _random_qs(state, [state.q_memory_dict[index]])
    p, q = state.p_memory_dict[index], state.q_memory_dict[index]
    torch.matmul(matrix, q, out=p)

    def qs_from_p(fut: Future[list[torch.Tensor]]) -> torch.Tensor:
        _orthogonalize(p, state.orthogonalization_epsilon)
        torch.matmul(matrix.t(), p, out=q)
        return _all_reduce_now(q, group)

    def decompress(fut: Future[torch.Tensor]) -> torch.Tensor:
        q.div_(world_size)
        torch.matmul(p, q.t(), out=matrix)
        _remember(state, index, before, padded)
        flat.copy_(padded[:flat.numel()])
        state.maybe_increase_iter(bucket)
        return flat
    return dist.all_reduce(p, group=group, async_op=True).get_future().then(qs_from_p).then(decompress)
