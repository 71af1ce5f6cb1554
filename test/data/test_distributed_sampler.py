"""DistributedSampler against PyTorch 2.13's recorded shares (tools/record_distributed_sampler_reference.py):
each rank's indices over two epochs, padding, drop_last, seeds, and its errors; without num_replicas
and rank it needs torch.distributed, which Ember does not provide yet."""
import json
from pathlib import Path

import pytest

import torch
from tools.record_distributed_sampler_reference import record
from torch.utils.data import DataLoader, DistributedSampler

REFERENCE = json.loads((Path(__file__).resolve().parent / "samplers" / "distributed_sampler.json").read_text())


def test_every_rank_gets_pytorchs_share_in_every_epoch():
    assert record(torch) == REFERENCE["configs"]


def test_the_ranks_together_cover_the_dataset_padded_to_an_even_split():
    shares = [list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=True)) for r in range(3)]
    everything = [i for share in shares for i in share]
    assert set(everything) == set(range(10)) and len(everything) == 12 and all(len(s) == 4 for s in shares)


def test_without_replicas_and_rank_it_needs_a_process_group():
    assert torch.distributed.is_available() and not torch.distributed.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))


def test_a_dataloader_reads_its_rank_share():
    loader = DataLoader(list(range(8)), batch_size=2, sampler=DistributedSampler(range(8), 2, 1, shuffle=False))
    assert [batch.tolist() for batch in loader] == [[1, 3], [5, 7]]
