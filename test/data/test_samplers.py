"""torch.utils.data samplers; expected index orders are literal PyTorch 2.13 output for the same seeds."""
import pytest

import torch
from torch.utils.data import (
    BatchSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)


def test_sequential_sampler_counts_up():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert len(SequentialSampler(range(4))) == 4


def test_random_sampler_with_replacement_matches_pytorch():
    sampler = RandomSampler(range(5), replacement=True, num_samples=40, generator=torch.Generator().manual_seed(1))
    assert list(sampler) == [0, 4, 4, 3, 3, 3, 1, 1, 4, 2, 3, 4, 1, 3, 3, 0, 2, 1, 2, 1,
                             0, 3, 1, 4, 3, 1, 4, 2, 4, 4, 3, 1, 2, 3, 2, 3, 3, 1, 2, 0]
    assert len(sampler) == 40


def test_random_sampler_num_samples_beyond_length_takes_several_permutations():
    sampler = RandomSampler(range(4), num_samples=10, generator=torch.Generator().manual_seed(1))
    assert list(sampler) == [1, 3, 2, 0, 0, 2, 3, 1, 3, 0]


def test_random_sampler_without_generator_draws_its_seed_from_the_default_generator():
    torch.manual_seed(3)
    a = list(RandomSampler(range(6)))
    torch.manual_seed(3)
    assert list(RandomSampler(range(6))) == a
    assert sorted(a) == list(range(6))


def test_random_sampler_rejects_bad_options():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)


def test_subset_random_sampler_permutes_the_given_indices():
    assert list(SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(1))) == [20, 40, 30, 10]


def test_weighted_random_sampler_matches_pytorch():
    sampler = WeightedRandomSampler([0.1, 0.9, 0.4], 6, generator=torch.Generator().manual_seed(1))
    assert list(sampler) == [0, 1, 1, 1, 1, 1]
    assert sampler.weights.dtype == torch.float64 and len(sampler) == 6
    with pytest.raises(ValueError, match="weights should be a 1d sequence but given weights have shape \\(1, 2\\)"):
        WeightedRandomSampler([[0.1, 0.2]], 2)


def test_batch_sampler_groups_indices_and_drops_the_short_tail_on_request():
    assert list(BatchSampler(range(5), 2, False)) == [[0, 1], [2, 3], [4]]
    assert list(BatchSampler(range(5), 2, True)) == [[0, 1], [2, 3]]
    assert len(BatchSampler(range(5), 2, False)) == 3
    assert len(BatchSampler(range(5), 2, True)) == 2


def test_batch_sampler_rejects_bad_options():
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=True"):
        BatchSampler(range(3), True, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=0"):
        BatchSampler(range(3), 2, 0)
