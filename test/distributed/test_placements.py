"""The placements' shard arithmetic against NumPy slicing: Shard cuts as torch.chunk does (pieces of
ceil(n / k) rows, the last ones shorter or empty), _StridedShard gives rank r pieces r, r + k, ... of n * sf."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from torch.distributed.tensor import Partial, Replicate, Shard
from torch.distributed.tensor.placement_types import _StridedShard


def _numpy_pieces(a: np.ndarray, k: int, axis: int) -> list[np.ndarray]:
    rows = -(-a.shape[axis] // k)
    return [np.take(a, np.arange(a.shape[axis])[r * rows:(r + 1) * rows], axis=axis) for r in range(k)]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 40), k=st.integers(1, 9))
def test_a_shard_holds_the_rows_numpy_slicing_gives_it(n, k):
    rows = -(-n // k)
    for rank in range(k):
        size, offset = Shard.local_shard_size_and_offset(n, k, rank)
        want = np.arange(n)[rank * rows:(rank + 1) * rows]
        assert size == len(want)
        assert offset == (want[0] if len(want) else n)
        assert Shard(0)._local_shard_size_and_offset(n, k, rank) == (size, offset)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=3), k=st.integers(1, 5), data=st.data())
def test_split_tensor_gives_numpy_pieces_and_pads_them_with_zeros(shape, k, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 1
    want = _numpy_pieces(a, k, dim % len(shape))
    pieces, pads = Shard(dim)._split_tensor(torch.from_numpy(a), k, with_padding=False)
    assert [p.numpy().tolist() for p in pieces] == [w.tolist() for w in want] and pads == []
    padded, pads = Shard(dim)._split_tensor(torch.from_numpy(a), k)
    full = -(-shape[dim] // k)
    assert pads == [full - w.shape[dim] for w in want]
    for piece, w, pad in zip(padded, want, pads):
        widths = [(0, 0)] * a.ndim
        widths[dim % a.ndim] = (0, pad)
        assert piece.numpy().tolist() == np.pad(w, widths).tolist()


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 4), sf=st.integers(1, 4))
def test_a_strided_shard_holds_one_piece_of_every_group(n, k, sf):
    a = np.arange(n, dtype=np.float32)
    strided = _StridedShard(0, split_factor=sf)
    pieces, _ = strided._split_tensor(torch.from_numpy(a), k, with_padding=False)
    chunks = _numpy_pieces(a, k * sf, 0)
    want = [np.concatenate(chunks[r::k]) for r in range(k)]
    assert [p.numpy().tolist() for p in pieces] == [w.tolist() for w in want]
    for rank in range(k):
        assert strided.local_shard_size_and_offset(n, k, rank) == (len(want[rank]),
                                                                   int(want[rank][0]) if len(want[rank]) else n)


def test_placements_compare_hash_and_print_as_pytorchs():
    assert Shard(1) == Shard(1) and Shard(1) != Shard(0) and len({Shard(0), Shard(0), Replicate()}) == 2
    assert Shard(0).is_shard() and Shard(0).is_shard(0) and not Shard(0).is_shard(1) and not Shard(0).is_replicate()
    assert not _StridedShard(0, split_factor=2).is_shard() and not isinstance(_StridedShard(0), Shard)
    assert Replicate().is_replicate() and Partial().is_partial("sum") and not Partial("max").is_partial("sum")
    assert [repr(p) for p in (Shard(1), Replicate(), Partial(), _StridedShard(0, split_factor=2))] == \
        ["Shard(dim=1)", "Replicate()", "Partial(sum)", "_StridedShard(dim=0, sf=2)"]
    assert [str(p) for p in (Shard(1), Replicate(), Partial(), Partial("max"))] == ["S(1)", "R", "P(sum)", "P(max)"]
    assert _StridedShard(0, split_factor=2) != Shard(0)

