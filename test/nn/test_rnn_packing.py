"""torch.nn.utils.rnn and packed input to nn.RNN/LSTM/GRU against PyTorch 2.13's results
(tools/record_rnn_packing_reference.py): packing, padding and their inverses with the gradients
through them, packed recurrent passes (outputs, final states, gradients) and errors; plus round
trips over random lengths."""
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from recorded import assert_matches
from torch.nn.utils import rnn as R
from tools import record_rnn_packing_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "rnn_packing" / "rnn_packing.json")
                       .read_text())["cases"]



@pytest.mark.parametrize("case", record.CASES)
def test_packing_and_packed_recurrences_do_what_they_do_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref:
        assert mine == ref
    else:
        assert_matches(mine, ref, case, 1e-5, 1e-6)


@settings(max_examples=25, deadline=None)
@given(lengths=st.lists(st.integers(1, 6), min_size=1, max_size=5), batch_first=st.booleans(),
       total_extra=st.integers(0, 2))
def test_pad_pack_round_trips_over_random_lengths(lengths, batch_first, total_extra):
    seqs = [torch.randn(n, 2) for n in lengths]
    padded = R.pad_sequence(seqs, batch_first=batch_first)
    packed = R.pack_padded_sequence(padded, lengths, batch_first=batch_first, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [sum(n > t for n in lengths) for t in range(max(lengths))]
    total = max(lengths) + total_extra
    back, back_lengths = R.pad_packed_sequence(packed, batch_first=batch_first, total_length=total)
    assert back_lengths.tolist() == lengths
    assert torch.equal(back.narrow(1 if batch_first else 0, 0, max(lengths)), padded)
    assert [torch.equal(a, b) for a, b in zip(R.unpack_sequence(R.pack_sequence(seqs, enforce_sorted=False)),
                                              seqs)] == [True] * len(seqs)


@settings(max_examples=10, deadline=None)
@given(lengths=st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_a_packed_lstm_ends_each_sequence_at_its_last_valid_step(lengths):
    lstm = torch.nn.LSTM(2, 3, bidirectional=True)
    seqs = [torch.randn(n, 2) for n in lengths]
    out, (h, c) = lstm(R.pack_sequence(seqs, enforce_sorted=False))
    padded, _ = R.pad_packed_sequence(out)
    for i, seq in enumerate(seqs):
        alone, (h_alone, c_alone) = lstm(seq.unsqueeze(1))
        assert torch.allclose(padded[:len(seq), i], alone[:, 0], atol=1e-6)
        assert torch.allclose(h[:, i], h_alone[:, 0], atol=1e-6)
        assert torch.allclose(c[:, i], c_alone[:, 0], atol=1e-6)


def test_packed_lstm_checks_its_state_sizes_where_pytorch_fails_inside_its_kernel():
    packed = R.pack_sequence([torch.ones(3, 2), torch.ones(2, 2)])
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 3\), got \[1, 2, 4\]"):
        torch.nn.LSTM(2, 3)(packed, (torch.zeros(1, 2, 3), torch.zeros(1, 2, 4)))


def test_non_tensor_input_fails_as_on_pytorch():
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dim'"):
        torch.nn.GRU(2, 3)([1, 2])


def test_a_packed_gru_output_repacks_with_the_input_permutations():
    packed = R.pack_sequence([torch.ones(1, 2), torch.ones(3, 2)], enforce_sorted=False)
    out, h = torch.nn.GRU(2, 3)(packed)
    assert isinstance(out, R.PackedSequence)
    assert out.batch_sizes is packed.batch_sizes
    assert out.sorted_indices.tolist() == [1, 0] and out.unsorted_indices.tolist() == [1, 0]
    assert h.shape == (1, 2, 3)
