"""Datasets: the map-style and iterable bases, and the ways to combine and split them.

Behaviour follows PyTorch 2.13's torch/utils/data/dataset.py: the same classes, attributes,
exception types and messages (TensorDataset and ConcatDataset raise AssertionError, as
PyTorch does explicitly), and random_split's fraction handling and remainder distribution.
"""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar, cast

import torch

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "StackDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """A map from keys (usually integer indices) to samples; subclasses define __getitem__."""

    def __getitem__(self, index: Any) -> _T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    # NB: no default __len__, as in PyTorch: len() of a dataset without one raises TypeError.

    def __add__(self, other: Dataset[_T_co]) -> ConcatDataset[_T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """A stream of samples; subclasses define __iter__. Each DataLoader worker iterates its own copy."""

    def __iter__(self) -> Iterator[_T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset[_T_co]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[torch.Tensor, ...]]):
    """Samples are tuples of the tensors' rows: dataset[i] == (t[i] for t in tensors)."""

    tensors: tuple[torch.Tensor, ...]

    def __init__(self, *tensors: torch.Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[torch.Tensor, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].size(0))


class StackDataset(Dataset[Any]):
    """Datasets of equal length side by side: samples are tuples (positional) or dicts (keywords)."""

    datasets: tuple[Any, ...] | dict[str, Any]

    def __init__(self, *args: Dataset[Any], **kwargs: Dataset[Any]) -> None:
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or"
                    "``dict``- (via ``kwargs``) like input/output, but both types are given."
                )
            parts: list[Any] = list(args)
            self.datasets = args
        elif kwargs:
            parts = list(kwargs.values())
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(self._length != len(dataset) for dataset in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[_T_co]):
    """Map-style datasets one after another; index i finds its dataset by bisecting cumulative sizes."""

    datasets: list[Dataset[_T_co]]
    cumulative_sizes: list[int]

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        return list(itertools.accumulate(len(part) for part in sequence))

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> _T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset[Any]):
    """Iterable datasets chained one after another, lazily."""

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(dataset)  # type: ignore[arg-type]
        return total


class Subset(Dataset[_T_co]):
    """The samples of `dataset` at `indices`, in that order."""

    dataset: Dataset[_T_co]
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[_T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        # PyTorch 2.13: the DataLoader fetches batches through __getitems__, so a subclass that
        # changes __getitem__ alone would be silently bypassed.
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[_T_co]:
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return cast(list[_T_co], getitems([self.indices[i] for i in indices]))
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(total: int, fractions: Sequence[float]) -> list[int]:
    """floor(frac * total) each, then the remainder one by one, round robin from the first."""
    lengths: list[int] = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * fraction))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(
                f"Length of split at index {i} is 0. This might result in an empty dataset.",
                stacklevel=3,
            )
    return lengths


def random_split(
    dataset: Dataset[_T],
    lengths: Sequence[int | float],
    generator: torch.Generator | None = torch.default_generator,
) -> list[Subset[_T]]:
    """Split `dataset` into non-overlapping random subsets of the given lengths (or fractions summing to 1).

    Args:
        dataset: the dataset to split.
        lengths: lengths of the splits, or fractions of len(dataset) that sum to 1.
        generator: the generator of the permutation.

    Raises:
        ValueError: a fraction outside [0, 1], or lengths that do not sum to len(dataset).
    """
    total = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(total, lengths)
    if sum(lengths) != total:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    int_lengths = cast(Sequence[int], lengths)
    indices: list[int] = torch.randperm(sum(int_lengths), generator=generator).tolist()
    return [
        Subset(dataset, indices[end - length : end])
        for end, length in zip(itertools.accumulate(int_lengths), int_lengths)
    ]
