"""Fetchers: turn one index (or one list of indices) from the sampler into a collated batch.

_DatasetKind, which picks the fetcher, lives here rather than in dataloader.py (where PyTorch has it,
and which re-exports it) so that the worker process and the iterators can use it without importing
the DataLoader."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _BaseDatasetFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any], drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index: Any) -> Any:
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """Pulls the next sample (or the next batch_size samples) from the dataset's iterator."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any], drop_last: bool) -> None:
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    """Indexes the dataset; a whole batch goes through __getitems__ when the dataset has one."""

    def fetch(self, possibly_batched_index: Any) -> Any:
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


class _DatasetKind:
    """The two kinds of dataset (PyTorch's names), and the fetcher each is read with."""

    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(
        kind: int, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any], drop_last: bool
    ) -> _BaseDatasetFetcher:
        if kind == _DatasetKind.Map:
            return _MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
