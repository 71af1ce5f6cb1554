"""default_collate / default_convert: batch structure and dtypes as PyTorch 2.13 (literal outputs)."""
import collections

import numpy as np
import pytest

import torch
from torch.utils.data import default_collate, default_convert
from torch.utils.data._utils.collate import collate, default_collate_fn_map

Point = collections.namedtuple("Point", "x y")


def test_tensors_are_stacked_on_a_new_first_dimension():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    batch = default_collate([a, b])
    assert batch.shape == (2, 2) and batch.dtype == torch.float32
    np.testing.assert_array_equal(batch.numpy(), np.array([[1, 2], [3, 4]], dtype=np.float32))


@pytest.mark.parametrize(
    "samples, dtype",
    [([1, 2], torch.int64), ([1.0, 2.5], torch.float64), ([True, False], torch.bool)],
)
def test_python_numbers_become_tensors_with_pytorchs_dtypes(samples, dtype):
    batch = default_collate(samples)
    assert batch.dtype == dtype and batch.tolist() == samples


def test_numpy_arrays_and_scalars_keep_their_dtypes():
    arrays = default_collate([np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)])
    assert arrays.dtype == torch.int16 and arrays.tolist() == [[1, 2], [3, 4]]
    scalars = default_collate([np.float32(1.5), np.float32(2.5)])
    assert scalars.dtype == torch.float32 and scalars.tolist() == [1.5, 2.5]


def test_tuples_are_transposed_and_strings_kept():
    # PyTorch 2.13: default_collate([('a', 1), ('b', 2)]) == [('a', 'b'), tensor([1, 2])]
    out = default_collate([("a", 1), ("b", 2)])
    assert isinstance(out, list) and out[0] == ("a", "b") and out[1].tolist() == [1, 2]
    assert default_collate(["a", "b"]) == ["a", "b"]


def test_lists_keep_their_type_and_dicts_collate_by_key():
    out = default_collate([[1, 2.0], [3, 4.0]])
    assert isinstance(out, list) and out[0].dtype == torch.int64 and out[1].dtype == torch.float64
    out = default_collate([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}])
    assert out["a"].tolist() == [1, 2] and out["b"] == ["x", "y"]


def test_namedtuples_collate_per_field():
    out = default_collate([Point("a", 1.0), Point("b", 2.0)])
    assert isinstance(out, Point)
    assert out.x == ("a", "b") and out.y.dtype == torch.float64 and out.y.tolist() == [1.0, 2.0]


def test_inconsistent_samples_raise_pytorchs_errors():
    with pytest.raises(RuntimeError, match="^each element in list of batch should be of equal size$"):
        default_collate([[1, 2], [1]])
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        default_collate([torch.zeros(2), torch.zeros(3)])
    with pytest.raises(TypeError, match="^default_collate: batch must contain tensors, numpy arrays, numbers, "
                                        "dicts or lists; found <class 'object'>$"):
        default_collate([object()])
    with pytest.raises(TypeError, match="found <U1$"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_convert_turns_numpy_into_tensors_inside_containers():
    # PyTorch 2.13: [tensor([1, 2]), [tensor(3., dtype=torch.float64)], 'a']
    out = default_convert((np.array([1, 2]), [np.float64(3)], "a"))
    assert isinstance(out, list) and out[2] == "a"
    assert out[0].tolist() == [1, 2] and out[0].dtype == torch.int64
    assert out[1][0].dtype == torch.float64 and out[1][0].item() == 3.0
    t = torch.ones(2)
    assert default_convert(t) is t
    strings = np.array(["x"])
    assert default_convert(strings) is strings


def test_collate_fn_map_is_extensible_per_type():
    class Box:
        def __init__(self, v):
            self.v = v

    def collate_box(batch, *, collate_fn_map=None):
        return sum(b.v for b in batch)

    out = collate([(Box(1), 2), (Box(3), 4)], collate_fn_map={**default_collate_fn_map, Box: collate_box})
    assert out[0] == 4 and out[1].tolist() == [2, 4]
