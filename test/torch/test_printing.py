"""repr(tensor) line layout as PyTorch 2.13's (strings recorded from it): elements per line from
the line width (80) and the widest element, and suffixes that would pass the width on a new line."""
from __future__ import annotations

import pytest

import torch

CASES = [
    (lambda: torch.arange(6, dtype=torch.float16).sin(),
     "tensor([ 0.0000,  0.8413,  0.9092,  0.1411, -0.7568, -0.9590],\n       dtype=torch.float16)"),
    (lambda: torch.arange(2000.),
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"),
    (lambda: torch.arange(40),
     "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
     "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
     "        36, 37, 38, 39])"),
    (lambda: torch.arange(25, dtype=torch.int16),
     "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
     "        18, 19, 20, 21, 22, 23, 24], dtype=torch.int16)"),
    (lambda: torch.arange(14, dtype=torch.float64) / 3,
     "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
     "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333], dtype=torch.float64)"),
    (lambda: torch.arange(12.).reshape(2, 6) * 1e5,
     "tensor([[      0.,  100000.,  200000.,  300000.,  400000.,  500000.],\n"
     "        [ 600000.,  700000.,  800000.,  900000., 1000000., 1100000.]])"),
]


@pytest.mark.parametrize("make, expected", CASES, ids=range(len(CASES)))
def test_repr_wraps_lines_as_pytorch(make, expected):
    assert repr(make()) == expected


def test_python_numbers_that_overflow_an_integer_dtype_raise_as_pytorch():
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
        torch.tensor([1, -2, 300], dtype=torch.int8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
        torch.tensor([300.5], dtype=torch.int8)
    assert torch.tensor([-1], dtype=torch.uint8).tolist() == [255]     # c10 lets negatives wrap
    assert torch.tensor([3.7], dtype=torch.int8).tolist() == [3]
    assert torch.tensor([2049.0000001], dtype=torch.float16).item() == 2048.0   # through float, as c10::Half
