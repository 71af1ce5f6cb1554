"""DataLoader in the main process: batching, shuffling, options, len() and PyTorch's option errors.

Expected orders and messages are literal PyTorch 2.13 output for the same seeds.
"""
import warnings

import numpy as np
import pytest

import torch
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
    get_worker_info,
)


class Count(IterableDataset):
    def __init__(self, n, reported=None):
        self.n, self.reported = n, reported

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.reported if self.reported is not None else self.n


def test_torch_utils_loads_data_lazily():
    import torch.utils

    assert torch.utils.data.DataLoader is DataLoader


def test_tensor_dataset_batches_with_the_last_one_short():
    x = torch.arange(10.0).reshape(5, 2)
    y = torch.arange(5)
    batches = list(DataLoader(TensorDataset(x, y), batch_size=2))
    assert [b[1].tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    np.testing.assert_array_equal(batches[0][0].numpy(), np.array([[0, 1], [2, 3]], dtype=np.float32))


def test_drop_last_and_len():
    assert len(DataLoader(range(5), batch_size=2)) == 3
    assert len(DataLoader(range(5), batch_size=2, drop_last=True)) == 2
    assert [b.tolist() for b in DataLoader(range(5), batch_size=2, drop_last=True)] == [[0, 1], [2, 3]]


def test_batch_size_none_converts_single_samples():
    assert list(DataLoader(range(3), batch_size=None)) == [0, 1, 2]
    out = list(DataLoader([np.array([1.0])], batch_size=None))
    assert isinstance(out[0], torch.Tensor) and out[0].dtype == torch.float64


def test_shuffle_with_a_generator_matches_pytorch_and_advances_per_epoch():
    g = torch.Generator().manual_seed(3)
    loader = DataLoader(range(10), batch_size=3, shuffle=True, generator=g)
    assert [b.tolist() for b in loader] == [[7, 4, 2], [9, 1, 5], [0, 8, 6], [3]]
    assert [b.tolist() for b in loader] == [[1, 2, 0], [5, 9, 4], [8, 3, 6], [7]]


def test_shuffle_without_a_generator_follows_torch_manual_seed_as_pytorch():
    ds = TensorDataset(torch.arange(10.0).reshape(5, 2), torch.arange(5))
    torch.manual_seed(0)
    assert [b[1].tolist() for b in DataLoader(ds, batch_size=2, shuffle=True)] == [[1, 4], [2, 3], [0]]


def test_sampler_batch_sampler_and_collate_fn_options():
    assert [b.tolist() for b in DataLoader(range(4), sampler=[3, 1, 2, 0], batch_size=2)] == [[3, 1], [2, 0]]
    batch_sampler = BatchSampler(SequentialSampler(range(5)), 3, False)
    assert [b.tolist() for b in DataLoader(range(5), batch_sampler=batch_sampler)] == [[0, 1, 2], [3, 4]]
    assert list(DataLoader(range(4), batch_size=2, collate_fn=sum)) == [1, 5]
    assert len(DataLoader(range(5), batch_sampler=batch_sampler)) == 2


def test_iterable_dataset_batches_and_len():
    assert [b.tolist() for b in DataLoader(Count(5), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in DataLoader(Count(5), batch_size=2, drop_last=True)] == [[0, 1], [2, 3]]
    assert len(DataLoader(Count(5), batch_size=2)) == 3


def test_iterable_dataset_yielding_more_than_its_len_warns():
    loader = DataLoader(Count(3, reported=2), batch_size=None)
    len(loader)
    with pytest.warns(UserWarning, match="was reported to be 2\\(when accessing len\\(dataloader\\)\\), but 3 samples"):
        list(loader)


def test_get_worker_info_is_none_in_the_main_process():
    assert get_worker_info() is None


def test_pin_memory_is_a_no_op_on_cpu_with_pytorchs_warning():
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        out = list(DataLoader(range(2), pin_memory=True))
    assert [b.tolist() for b in out] == [[0], [1]]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(batch_size=2, batch_sampler=[[0]]),
         "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
        (dict(sampler=[0], shuffle=True), "sampler option is mutually exclusive with shuffle"),
        (dict(batch_size=None, drop_last=True),
         "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
        (dict(num_workers=-1),
         "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
        (dict(prefetch_factor=2),
         "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
         "multiprocessing, otherwise set prefetch_factor to None."),
        (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
        (dict(timeout=-1), "timeout option should be non-negative"),
        (dict(multiprocessing_context="fork"),
         "multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
         "but got num_workers=0"),
    ],
)
def test_contradictory_options_raise_pytorchs_value_errors(kwargs, message):
    with pytest.raises(ValueError) as info:
        DataLoader(range(3), **kwargs)
    assert str(info.value) == message


def test_iterable_dataset_refuses_shuffle_and_samplers():
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(Count(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option, but got sampler=\\[0\\]"):
        DataLoader(Count(3), sampler=[0])


def test_loader_attributes_are_frozen_after_init():
    loader = DataLoader(range(5), batch_size=2)
    with pytest.raises(ValueError, match="^batch_size attribute should not be set after DataLoader is initialized$"):
        loader.batch_size = 3


def test_too_many_workers_warns_as_pytorch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DataLoader(range(3), num_workers=10_000)
    assert any("This DataLoader will create 10000 worker processes in total." in str(w.message) for w in caught)
