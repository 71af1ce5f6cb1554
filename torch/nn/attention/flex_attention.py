"""torch.nn.attention.flex_attention: attention with a user's score_mod and a block-sparse mask (PyTorch's API).

PyTorch compiles score_mod and mask_mod into a fused kernel; uncompiled, it runs them as a dense
("math") reference, and that is what Ember runs: the scores of every (batch, head, query, key)
position are computed, score_mod and mask_mod are called once with broadcasting index tensors
(b of shape (B, 1, 1, 1), h (1, H, 1, 1), q_idx (1, 1, Q, 1), kv_idx (1, 1, 1, KV)) where PyTorch
vmaps them, so they must be written with tensor operations (comparisons, arithmetic, indexing a
tensor with an index tensor), as PyTorch also requires. A BlockMask keeps PyTorch's block-sparse
layout (kv_num_blocks, kv_indices, the full blocks and their transposes), so code that inspects
or builds one works unchanged; the attention itself reads the dense mask through it."""
from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, NamedTuple

import torch
from torch import Tensor

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions", "create_block_mask",
           "create_mask", "or_masks", "and_masks", "noop_mask"]

FlexKernelOptions = dict     # the compiled kernel's tuning knobs: accepted, and meaningless to the dense path
_DEFAULT_SPARSE_BLOCK_SIZE = 128


class AuxRequest(NamedTuple):
    """Which auxiliary outputs flex_attention should return."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """flex_attention's auxiliary outputs (None where not requested)."""
    lse: Tensor | None = None
    max_scores: Tensor | None = None


def noop_mask(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    """A mask_mod that keeps every position."""
    return batch.new_ones(size=(), dtype=torch.bool, device=batch.device)


def _noop_score(score: Tensor, batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    return score


def _combine(mask_mods: tuple[Callable[..., Tensor], ...], start: bool, name: str) -> Callable[..., Tensor]:
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def combined(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        result = b.new_ones((), dtype=torch.bool) if start else b.new_zeros((), dtype=torch.bool)
        for mask in mask_mods:
            result = (result & mask(b, h, q_idx, kv_idx)) if start else (result | mask(b, h, q_idx, kv_idx))
        return result

    combined.__name__ = name
    return combined


def and_masks(*mask_mods: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The mask_mod keeping the positions every one of mask_mods keeps."""
    return _combine(mask_mods, True, "and_mask")


def or_masks(*mask_mods: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The mask_mod keeping the positions any of mask_mods keeps."""
    return _combine(mask_mods, False, "or_mask")


def _grid(B: int, H: int, Q: int, KV: int, device: Any) -> tuple[Tensor, ...]:
    """Index tensors that broadcast to (B, H, Q, KV): what PyTorch's vmap feeds the mods one at a time."""
    def axis(n: int, dim: int) -> Tensor:
        shape = [1, 1, 1, 1]
        shape[dim] = n
        return torch.arange(n, dtype=torch.int64, device=device).reshape(shape)
    return axis(B, 0), axis(H, 1), axis(Q, 2), axis(KV, 3)


def create_mask(mod_fn: Callable[..., Tensor], B: int | None, H: int | None, Q_LEN: int, KV_LEN: int,
                device: Any = None) -> Tensor:
    """The dense (B, H, Q_LEN, KV_LEN) boolean mask of a mask_mod, or of a score_mod (applied to zero
    scores: kept where its result is not -inf), as PyTorch's."""
    B, H = B or 1, H or 1
    b, h, q, kv = _grid(B, H, Q_LEN, KV_LEN, device)
    if _arity(mod_fn) == 5:
        scores = torch.zeros((B, H, Q_LEN, KV_LEN), device=device)
        return torch.broadcast_to(mod_fn(scores, b, h, q, kv), (B, H, Q_LEN, KV_LEN)) != float("-inf")
    return torch.broadcast_to(mod_fn(b, h, q, kv), (B, H, Q_LEN, KV_LEN)).to(torch.bool)


def _arity(fn: Callable[..., Any]) -> int:
    import inspect
    return len([p for p in inspect.signature(fn).parameters.values()
                if p.default is inspect.Parameter.empty and p.kind != inspect.Parameter.VAR_KEYWORD])


def _block_lists(flags: Tensor) -> tuple[Tensor, Tensor]:
    """Per row of blocks: how many are flagged, and the block indices with the flagged ones first
    (each group in index order), as int32."""
    counts = flags.sum(-1).to(torch.int32)
    order = torch.argsort(flags.to(torch.int8), dim=-1, descending=True, stable=True).to(torch.int32)
    return counts, order


class BlockMask:
    """A block-sparse attention mask: for each (batch, head, block of queries), the blocks of keys
    that are partly masked (kv_num_blocks, kv_indices: mask_mod decides inside them) and those that
    are wholly kept (full_kv_*), and the same per block of keys (q_*, the backward's view)."""

    def __init__(self, seq_lengths: tuple[int, ...], kv_num_blocks: Tensor, kv_indices: Tensor,
                 full_kv_num_blocks: Tensor | None, full_kv_indices: Tensor | None, q_num_blocks: Tensor | None,
                 q_indices: Tensor | None, full_q_num_blocks: Tensor | None, full_q_indices: Tensor | None,
                 BLOCK_SIZE: tuple[int, ...] = (_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE),
                 mask_mod: Callable[..., Tensor] = noop_mask, **_: Any) -> None:
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.mask_mod = mask_mod

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks: Any, kv_indices: Any, full_kv_num_blocks: Tensor | None = None,
                       full_kv_indices: Tensor | None = None,
                       BLOCK_SIZE: int | tuple[int, ...] = _DEFAULT_SPARSE_BLOCK_SIZE,
                       mask_mod: Callable[..., Tensor] | None = None,
                       seq_lengths: tuple[int, ...] | None = None, compute_q_blocks: bool = True) -> BlockMask:
        """A BlockMask from its key-block lists (the query-block lists derived from them)."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise RuntimeError("full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * block[0], kv_indices.shape[-1] * block[1])
        partial = _flags(kv_num_blocks, kv_indices)
        full = _flags(full_kv_num_blocks, full_kv_indices) if full_kv_indices is not None else None
        q_lists: list[Any] = [None] * 4
        if compute_q_blocks:
            q_lists[0], q_lists[1] = _block_lists(partial.transpose(-2, -1))
            if full is not None:
                q_lists[2], q_lists[3] = _block_lists(full.transpose(-2, -1))
        return cls(seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices, q_lists[0], q_lists[1],
                   q_lists[2], q_lists[3], BLOCK_SIZE=block, mask_mod=mask_mod if mask_mod is not None else noop_mask)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.kv_indices.shape[:-2]) + self.seq_lengths

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def as_tuple(self, flatten: bool = True) -> tuple[Any, ...]:
        """The fields in order (BLOCK_SIZE as two entries when flatten, one tuple otherwise)."""
        block = tuple(self.BLOCK_SIZE) if flatten else (self.BLOCK_SIZE,)
        return (*self.seq_lengths, self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks,
                self.full_kv_indices, self.q_num_blocks, self.q_indices, self.full_q_num_blocks,
                self.full_q_indices, *block, self.mask_mod)

    def to_dense(self) -> Tensor:
        """(..., query blocks, key blocks) int32: 1 where a block is computed (partly or wholly kept)."""
        dense = _flags(self.kv_num_blocks, self.kv_indices)
        if self.full_kv_num_blocks is not None:
            dense = dense | _flags(self.full_kv_num_blocks, self.full_kv_indices)
        return dense.to(torch.int32)

    def sparsity(self) -> float:
        """The percentage of the (padded) blocks' area that is not computed."""
        computed = int(self.kv_num_blocks.sum().item())
        if self.full_kv_num_blocks is not None:
            computed += int(self.full_kv_num_blocks.sum().item())
        return 100 * (1 - computed * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1] / self.numel())

    def to(self, device: Any) -> BlockMask:
        moved: list[Any] = [t.to(device) if isinstance(t, Tensor) else t for t in
                            (self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks, self.full_kv_indices,
                             self.q_num_blocks, self.q_indices, self.full_q_num_blocks, self.full_q_indices)]
        return BlockMask(self.seq_lengths, moved[0], moved[1], moved[2], moved[3], moved[4], moved[5], moved[6],
                         moved[7], BLOCK_SIZE=self.BLOCK_SIZE, mask_mod=self.mask_mod)

    def __getitem__(self, index: Any) -> BlockMask:
        """The mask of some batches and heads (an index over the leading dims; integers keep their
        dim, as PyTorch's). Its mask_mod no longer knows which batch or head it sees, so using it
        raises."""
        keep = tuple(slice(i, i + 1) if isinstance(i, int) else i
                     for i in (index if isinstance(index, tuple) else (index,)))
        pick: list[Any] = [t[keep] if isinstance(t, Tensor) else None for t in
                           (self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks, self.full_kv_indices)]
        return BlockMask.from_kv_blocks(pick[0], pick[1], pick[2], pick[3], BLOCK_SIZE=self.BLOCK_SIZE,
                                        mask_mod=_sliced_mask_mod, seq_lengths=self.seq_lengths)

    def to_string(self, grid_size: int | tuple[int, int] = (20, 20), limit: int = 4) -> str:
        """A drawing of the computed blocks per (batch, head): full cells kept, light cells partly."""
        dense = self.to_dense()
        *lead, rows, cols = dense.shape
        if grid_size == -1:
            max_rows, max_cols = rows, cols
        elif isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        else:
            max_rows, max_cols = grid_size
        row_step, col_step = max(1, -(-rows // max_rows)), max(1, -(-cols // max_cols))
        pictures = []
        for count, index in enumerate(itertools.product(*[range(n) for n in lead])):
            if count == limit:
                pictures += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                             "You can also index (BlockMask[batch, head]) to choose a specific batch or head"]
                break
            plane = dense[index] if index else dense
            text = f"{index}\n"
            for r in range(0, rows, row_step):
                for c in range(0, cols, col_step):
                    share = plane[r:r + row_step, c:c + col_step].float().mean().item()
                    text += ("█" if share == 1 else " " if share == 0 else "░") * 2
                text += "\n"
            pictures.append(text)
        return "\n".join(pictures)

    def __str__(self) -> str:
        return f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n{self.to_string().strip()}\n)"

    def __repr__(self) -> str:
        def shape(t: Tensor | None) -> Any:
            return None if t is None else t.shape
        name = getattr(self.mask_mod, "__name__", self.mask_mod)
        return (f"BlockMask(\n    kv_num_blocks={self.kv_num_blocks.shape},\n    kv_indices={self.kv_indices.shape},\n"
                f"    full_kv_num_blocks={shape(self.full_kv_num_blocks)},\n"
                f"    full_kv_indices={shape(self.full_kv_indices)},\n    q_num_blocks={shape(self.q_num_blocks)},\n"
                f"    q_indices={shape(self.q_indices)},\n    full_q_num_blocks={shape(self.full_q_num_blocks)},\n"
                f"    full_q_indices={shape(self.full_q_indices)},\n    BLOCK_SIZE={self.BLOCK_SIZE},\n"
                f"    shape={self.shape},\n    sparsity={self.sparsity():.2f}%,\n    mask_mod={name}\n)")


def _sliced_mask_mod(*args: Any) -> Tensor:
    raise RuntimeError("Cannot use mask_mod from a sliced BlockMask")


def _flags(num_blocks: Any, indices: Any) -> Tensor:
    """The boolean (..., rows, blocks) matrix of the first num_blocks[r] entries of each row's indices."""
    width = indices.shape[-1]
    taken = torch.arange(width, device=indices.device) < num_blocks.unsqueeze(-1)
    flags = torch.zeros(indices.shape, dtype=torch.bool, device=indices.device)
    return flags.scatter(-1, indices.to(torch.int64), taken)


def create_block_mask(mask_mod: Callable[..., Tensor], B: int | None, H: int | None, Q_LEN: int, KV_LEN: int,
                      device: Any = None, BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_SPARSE_BLOCK_SIZE,
                      _compile: bool = False,
                      separate_full_blocks: bool = True, compute_dq_write_order: bool = False,
                      dq_kv_order: bool = True) -> BlockMask:
    """The BlockMask of mask_mod over (B, H, Q_LEN, KV_LEN) (None for B or H: one, broadcast):
    mask_mod is evaluated at every position, padded with masked positions to whole blocks."""
    if device is None:
        device = torch.get_default_device()
    q_block, kv_block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    rows, cols = -(-Q_LEN // q_block), -(-KV_LEN // kv_block)
    padded = torch.nn.functional.pad(mask, (0, cols * kv_block - KV_LEN, 0, rows * q_block - Q_LEN))
    lead = tuple(padded.shape[:2])
    kept = padded.reshape(lead + (rows, q_block, cols, kv_block)).sum((-3, -1))
    full = kept == q_block * kv_block
    partial = (kept > 0) & ~full if separate_full_blocks else kept > 0
    kv_num, kv_idx = _block_lists(partial)
    full_lists: tuple[Any, Any] = _block_lists(full) if separate_full_blocks else (None, None)
    q_num, q_idx = _block_lists(partial.transpose(-2, -1))
    full_q: tuple[Any, Any] = _block_lists(full.transpose(-2, -1)) if separate_full_blocks else (None, None)
    return BlockMask((Q_LEN, KV_LEN), kv_num, kv_idx, *full_lists, q_num, q_idx, *full_q,
                     BLOCK_SIZE=(q_block, kv_block), mask_mod=mask_mod)


def _check_lengths(block_mask: BlockMask, Q: int, KV: int) -> None:
    q_len, kv_len = block_mask.seq_lengths
    if (Q, KV) == (q_len, kv_len):
        return
    if Q <= q_len and KV <= kv_len:
        advice = ("As the block mask was created for a larger length than you're using it for, you can either 1. "
                  "create a new block mask with the correct length, or 2. 'adjust' the existing block mask to the "
                  "correct length by calling block_mask._adjust(q_len, kv_len). This essentially 'crops' the block "
                  "mask to the upper left corner, which does not work for all mask_mods!")
    else:
        advice = ("As the block mask was created for a smaller length than you're using it for, you likely need to "
                  "create a new block mask.")
    raise ValueError(f"block_mask was created for block_mask.shape={block_mask.shape} but got q_len={Q} and "
                     f"kv_len={KV}. {advice}")


def _dense_mask(block_mask: BlockMask, B: int, H: int, Q: int, KV: int, device: Any) -> Tensor:
    """Where attention may look: where mask_mod keeps a position. Uncompiled, PyTorch attends by
    mask_mod alone (the block lists only let its kernels skip blocks), and so does Ember."""
    return create_mask(block_mask.mask_mod, B, H, Q, KV, device)


def flex_attention(query: Tensor, key: Tensor, value: Tensor, score_mod: Callable[..., Tensor] | None = None,
                   block_mask: BlockMask | None = None, scale: float | None = None, enable_gqa: bool = False,
                   return_lse: bool = False, kernel_options: Any = None, *,
                   return_aux: AuxRequest | None = None) -> Any:
    """softmax(score_mod(q @ k^T * scale) masked by block_mask) @ v over (B, H, L, E) tensors; rows
    with no kept position give zeros (and a logsumexp of -inf)."""
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if return_lse and return_aux is not None:
        raise ValueError("Cannot specify both return_lse and return_aux.")
    B, Hq, Q, E = query.shape
    Bkv, Hkv, KV = key.shape[0], key.shape[1], key.shape[2]
    if block_mask is None and B != Bkv:
        raise ValueError(f"Expect query and key/value to have the same batch size, or non-none block_mask, but got "
                         f"block_mask=None, Bq={B}, and Bkv={Bkv}.")
    if block_mask is not None:
        _check_lengths(block_mask, Q, KV)
    if Hq != Hkv:
        if not enable_gqa:
            raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={Hq} and "
                             f"Hkv={Hkv}. Try setting enable_gqa=True for GQA.")
        if Hq % Hkv != 0:
            raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA but got Hq={Hq} "
                             f"and Hkv={Hkv}.")
        key = key.repeat_interleave(Hq // Hkv, dim=1)
        value = value.repeat_interleave(Hq // Hkv, dim=1)
    scale = 1.0 / E ** 0.5 if scale is None else scale
    working = torch.float64 if query.dtype == torch.float64 else torch.float32
    scores = (query.to(working) @ key.to(working).transpose(-2, -1)) * scale
    b, h, q, kv = _grid(B, Hq, Q, KV, query.device)
    scores = (score_mod or _noop_score)(scores, b, h, q, kv)
    scores = torch.broadcast_to(scores, (B, Hq, Q, KV))
    if block_mask is not None:
        scores = scores.masked_fill(~_dense_mask(block_mask, B, Hq, Q, KV, query.device), float("-inf"))
    lse = scores.logsumexp(-1)
    max_scores = scores.amax(-1)
    live = (lse != float("-inf")).unsqueeze(-1)
    weights = torch.where(live, (scores - torch.where(live, lse.unsqueeze(-1), 0.0)).exp(), 0.0)
    out = weights.to(query.dtype) @ value
    if return_aux is not None:
        return out, AuxOutput(lse if return_aux.lse else None, max_scores if return_aux.max_scores else None)
    return (out, lse) if return_lse else out
