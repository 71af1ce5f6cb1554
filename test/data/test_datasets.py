"""torch.utils.data datasets: TensorDataset, Subset, ConcatDataset, ChainDataset, StackDataset, random_split.

Expected orders and messages are literal PyTorch 2.13 output (generated once with the reference
torch and pasted here).
"""
import warnings

import pytest

import torch
from torch.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * i


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_dataset_base_getitem_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]


def test_tensor_dataset_indexes_every_tensor_along_the_first_dimension():
    x = torch.arange(6.0).reshape(3, 2)
    y = torch.tensor([7, 8, 9])
    ds = TensorDataset(x, y)
    assert len(ds) == 3
    first, label = ds[1]
    assert first.tolist() == [2.0, 3.0] and label.item() == 8
    assert [t.tolist() for t in ds[[0, 2]]] == [[[0.0, 1.0], [4.0, 5.0]], [7, 9]]


def test_tensor_dataset_size_mismatch_raises_assertion_error():
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        TensorDataset(torch.zeros(2), torch.zeros(3))


def test_subset_maps_indices_and_lists_of_indices():
    sub = Subset(Squares(10), [9, 2, 5])
    assert len(sub) == 3
    assert [sub[i] for i in range(3)] == [81, 4, 25]
    assert sub.__getitems__([2, 0]) == [25, 81]


def test_subset_subclass_overriding_only_getitem_is_refused():
    class Bad(Subset):
        def __getitem__(self, idx):
            return 0

    with pytest.raises(NotImplementedError, match="Bad overrides __getitem__ but not __getitems__"):
        Bad(Squares(3), [0])


def test_adding_datasets_concatenates_them():
    both = Squares(3) + Squares(2)
    assert isinstance(both, ConcatDataset)
    assert both.cumulative_sizes == [3, 5]
    assert [both[i] for i in range(5)] == [0, 1, 4, 0, 1]
    assert both[-1] == 1 and both[-5] == 0


def test_concat_dataset_rejects_empty_iterables_and_iterable_datasets():
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Count(2)])
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ConcatDataset([Squares(2)])[-3]


def test_adding_iterable_datasets_chains_them():
    chained = Count(2) + Count(3)
    assert isinstance(chained, ChainDataset)
    assert list(chained) == [0, 1, 0, 1, 2]
    assert len(chained) == 5


def test_stack_dataset_gives_tuples_or_dicts():
    assert StackDataset(Squares(3), Squares(3))[2] == (4, 4)
    assert StackDataset(a=Squares(2), b=Squares(2))[1] == {"a": 1, "b": 1}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Squares(2), Squares(3))
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()


def test_random_split_with_a_generator_matches_pytorch():
    # PyTorch 2.13: random_split(range(10), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(42))
    parts = random_split(range(10), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(42))
    assert [p.indices for p in parts] == [[2, 6, 1], [8, 4, 5], [0, 9, 3, 7]]
    parts = random_split(range(11), [0.5, 0.5], generator=torch.Generator().manual_seed(42))
    assert [p.indices for p in parts] == [[6, 8, 9, 2, 1, 10], [0, 7, 3, 5, 4]]


def test_random_split_spreads_the_remainder_round_robin_from_the_first_split():
    parts = random_split(range(7), [0.25, 0.25, 0.25, 0.25], generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [2, 2, 2, 1]


def test_random_split_with_integer_lengths_covers_the_dataset_once():
    parts = random_split(Squares(6), [4, 2], generator=torch.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [4, 2]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(6))


def test_random_split_uses_the_default_generator_without_one():
    torch.manual_seed(5)
    a = [p.indices for p in random_split(range(8), [3, 5])]
    torch.manual_seed(5)
    b = [p.indices for p in random_split(range(8), [3, 5])]
    assert a == b


def test_random_split_errors_and_empty_split_warning():
    with pytest.raises(ValueError, match="^Sum of input lengths does not equal the length of the input dataset!$"):
        random_split(range(5), [2, 2])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(5), [1.5, -0.5])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        random_split(range(2), [0.0, 1.0])
    assert any("Length of split at index 0 is 0. This might result in an empty dataset." in str(w.message)
               for w in caught)
