"""Variable-length sequences for the recurrent layers (PyTorch's torch.nn.utils.rnn): PackedSequence,
packing, padding and their inverses.

A packed batch is sorted by decreasing length and stored time-major without its padding: block t
of `data` holds the batch_sizes[t] sequences still running at step t. Packing and padding are
index_select gathers and pad_sequence copies into slices, so autograd carries gradients through
all of them (PyTorch's _pack_padded_sequence has a hand-written backward for the same effect)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Self, TypeVar, cast

import torch
from torch import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_T = TypeVar("_T")
_R = TypeVar("_R")


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional: _T | None, fn: Callable[[_T], _R]) -> _R | None:
    """fn(optional), or None when optional is None."""
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """The data and batch_sizes of a packed batch, and the permutations between the caller's batch
    order and the sorted one (None when the batch came sorted). batch_sizes is always a CPU int64
    tensor; data and the indices share a device. Made by pack_padded_sequence / pack_sequence."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> Self:
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                unsorted_indices))

    def pin_memory(self) -> Self:
        # Ember's Tensor has no pin_memory yet, so until it does this raises its AttributeError.
        def pin(t: Tensor) -> Tensor:
            return cast(Tensor, cast(Any, t).pin_memory())

        return type(self)(pin(self.data), self.batch_sizes, bind(self.sorted_indices, pin),
                          bind(self.unsorted_indices, pin))

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """Tensor.to on data (the indices follow it to its device); self when data is unchanged."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = bool(kwargs.get("non_blocking", False))

        def follow(t: Tensor) -> Tensor:
            return t.to(data.device, non_blocking=non_blocking)

        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, follow),
                          bind(self.unsorted_indices, follow))

    def cuda(self, *args: Any, **kwargs: Any) -> Self:
        if _probe_to(self.data, args, kwargs).is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args: Any, **kwargs: Any) -> Self:
        if _probe_to(self.data, args, kwargs).device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self) -> Self:
        return self.to(dtype=torch.double)

    def float(self) -> Self:
        return self.to(dtype=torch.float)

    def half(self) -> Self:
        return self.to(dtype=torch.half)

    def long(self) -> Self:
        return self.to(dtype=torch.long)

    def int(self) -> Self:
        return self.to(dtype=torch.int)

    def short(self) -> Self:
        return self.to(dtype=torch.short)

    def char(self) -> Self:
        return self.to(dtype=torch.int8)

    def byte(self) -> Self:
        return self.to(dtype=torch.uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether data is on a GPU."""
        return bool(self.data.is_cuda)

    def is_pinned(self) -> bool:
        """Whether data is in pinned memory."""
        # Ember's Tensor has no is_pinned yet (nor pinned memory), so an Ember tensor is never pinned.
        probe = getattr(self.data, "is_pinned", None)
        return bool(probe()) if probe is not None else False


def _probe_to(data: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Tensor:
    """Where Tensor.to(*args, **kwargs) would put data, told by an empty tensor (cuda()/cpu() keep an
    explicit device of the caller's and supply their own only when the arguments name none)."""
    return torch.tensor((), dtype=data.dtype, device=data.device).to(*args, **kwargs)


def _packed_sequence_init_args(data: Any, batch_sizes: Tensor | None, sorted_indices: Tensor | None,
                               unsorted_indices: Tensor | None) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is None:
        # the (data, batch_sizes) pair the recurrent kernels return, passed as one argument
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise AssertionError("Expected data to be a list or tuple of length 2")
        return data[0], data[1], sorted_indices, unsorted_indices
    if batch_sizes.device.type != "cpu":
        raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                         "manually. They should be instantiated by functions like pack_sequence and "
                         "pack_padded_sequences in nn.utils.rnn. "
                         "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
    return data, batch_sizes, sorted_indices, unsorted_indices


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a 1-D permutation (None stays None): maps sorted and unsorted indices to each other."""
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


def _check_long_tensor(tensor: Tensor) -> None:
    # PyTorch's kernels check batch_sizes with this same message, 'lengths' and all.
    if tensor.dim() != 1 or tensor.device.type != "cpu" or tensor.dtype != torch.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {tensor.dim()}D "
                           f"{tensor.device} {tensor.dtype.type_name} tensor")


def _check_lengths(lengths: list[int], batch_size: int) -> None:
    if len(lengths) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch_size})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(shorter < longer for shorter, longer in zip(lengths, lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")


def _pack_sorted(input: Tensor, lengths: Tensor, batch_first: bool) -> tuple[Tensor, Tensor]:
    """(data, batch_sizes) of a padded batch already sorted by decreasing length."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    steps_first = input.transpose(0, 1) if batch_first else input
    _check_long_tensor(lengths)
    batch = steps_first.size(1)
    _check_lengths(lengths.tolist(), batch)
    # valid[t, b]: sequence b still runs at step t; its row-major nonzeros are the packed order
    valid = torch.arange(int(lengths[0])).unsqueeze(1) < lengths.unsqueeze(0)
    rows = valid.reshape(-1).nonzero().squeeze(1).to(input.device)
    flat = steps_first.reshape(steps_first.size(0) * batch, *steps_first.shape[2:])
    return flat.index_select(0, rows), valid.sum(1)


def pack_padded_sequence(input: Tensor, lengths: Tensor | list[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T x B x *, or B x T x * with batch_first) of sequences of the given
    lengths (a list, or a CPU tensor). enforce_sorted=False sorts the batch first and records the
    permutation in the result."""
    if isinstance(lengths, Tensor):
        lengths_t = lengths.to(dtype=torch.int64)
    else:
        lengths_t = torch.as_tensor(lengths, dtype=torch.int64, device="cpu")
    sorted_indices = None
    if not enforce_sorted:
        lengths_t, sorted_indices = torch.sort(lengths_t, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_sorted(input, lengths_t, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pad_sorted(data: Tensor, batch_sizes: Tensor, padding_value: float, total_length: int) -> tuple[Tensor, Tensor]:
    """(T x B x *) padded output and per-sequence lengths, still in the packed (sorted) batch order."""
    _check_long_tensor(batch_sizes)
    if batch_sizes.numel() == 0:
        raise RuntimeError("batch_sizes can not be empty")
    max_batch = int(batch_sizes[0])
    valid = torch.arange(max_batch).unsqueeze(0) < batch_sizes.unsqueeze(1)
    flat_valid = valid.reshape(-1)
    # each padded slot gathers its packed row, or the extra padding row appended after the data
    rows = torch.full(flat_valid.shape, data.size(0), dtype=torch.int64)
    rows[flat_valid] = torch.arange(data.size(0))
    missing = (total_length - batch_sizes.numel()) * max_batch
    rows = torch.cat([rows, torch.full((missing,), data.size(0), dtype=torch.int64)]).to(data.device)
    source = torch.cat([data, data.new_full((1, *data.shape[1:]), padding_value)])
    padded = source.index_select(0, rows).view(total_length, max_batch, *data.shape[1:])
    return padded, valid.sum(0)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Inverse of pack_padded_sequence: (padded T x B x * or B x T x *, lengths), in the batch order
    the sequences were packed from; total_length pads the time dimension further."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded, lengths = _pad_sorted(sequence.data, sequence.batch_sizes, padding_value, max_seq_length)
    if batch_first:
        padded = padded.transpose(0, 1)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is None:
        return padded, lengths
    return padded.index_select(0 if batch_first else 1, unsorted_indices), lengths[unsorted_indices.cpu()]


def pad_sequence(sequences: Tensor | list[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences (each L x *) into T x B x * (B x T x * with batch_first), padding each on
    padding_side ('right' or 'left') with padding_value; the result has the first sequence's dtype."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    seqs: tuple[Tensor, ...] = tuple(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(s.size(0) for s in seqs)
    lead = (len(seqs), max_len) if batch_first else (max_len, len(seqs))
    out = seqs[0].new_full((*lead, *seqs[0].shape[1:]), padding_value)
    for i, seq in enumerate(seqs):
        start = max_len - seq.size(0) if padding_side == "left" else 0
        # copy_ as PyTorch's kernel: it casts to the first dtype and broadcasts the trailing dims
        if batch_first:
            out.select(0, i).narrow(0, start, seq.size(0)).copy_(seq)
        else:
            out.narrow(0, start, seq.size(0)).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """Inverse of pad_sequence: the list of each sequence's first lengths[i] steps.

    As PyTorch's, it transposes padded_sequences in place when batch_first is False."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = torch.arange(padded_sequences.shape[1], device=lengths.device)
    return [seq[steps < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """pad_sequence then pack_padded_sequence: packs a list of L x * sequences."""
    lengths = torch.as_tensor([seq.size(0) for seq in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Inverse of pack_sequence: the list of sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
