"""Tensor.__getitem__ / __setitem__ (torch/_C/_indexing.pyx) as PyTorch's python_variable_indexing:
basic indices give views sharing storage and version counter, PyTorch's placement of advanced
index dims, its errors and warnings (messages recorded from PyTorch 2.13), and hypothesis
properties comparing getitem and setitem with NumPy over random shapes and index tuples."""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import torch


def base(shape: tuple[int, ...] = (3, 4), dtype: type = np.float64) -> tuple[torch.Tensor, np.ndarray]:
    """A tensor and the numpy array it shares memory with (distinct values)."""
    a = np.arange(math.prod(shape), dtype=dtype).reshape(shape)
    return torch.from_numpy(a), a


def address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def assert_view_of(view: torch.Tensor, expected: np.ndarray) -> None:
    """view is NumPy's view: same shape, values and first address."""
    assert tuple(view.shape) == expected.shape
    np.testing.assert_array_equal(view.numpy(), expected)
    if expected.size:
        assert view.data_ptr() == address(expected)


# -- basic indexing: views --------------------------------------------------------------------------

BASIC = [0, -1, 2, slice(None), slice(1, 3), slice(None, None, 2), slice(-3, None), slice(5, 1), None, Ellipsis,
         (1, 2), (slice(None), 1), (None, 0), (Ellipsis, 1), (1, Ellipsis), (slice(1, None), None, Ellipsis, 2),
         (), (0, None, 1, None), np.int64(1), (np.int32(-1), slice(None, None, 3)), (slice(10**20),)]


@pytest.mark.parametrize("index", BASIC, ids=repr)
def test_basic_index_is_numpys_view(index):
    t, a = base((3, 4, 5))
    assert_view_of(t[index], a[index])


def test_basic_index_views_share_storage_and_version():
    t, a = base((3, 4))
    for view in (t[1], t[:, 2], t[None], t[...], t[1:, None, ::2]):
        before = t._version
        assert view._untyped_storage is t._untyped_storage
        view.fill_(-1.0)
        assert t._version == before + 1 == view._version
    assert (a == -1).all()


def test_writes_through_base_show_in_view():
    t, a = base((3, 4))
    row = t[1]
    a[1, 2] = 99
    assert row[2].item() == 99


def test_zero_dim_tensor():
    z = torch.tensor(5.0)
    for index in (Ellipsis, (), None, (Ellipsis, None)):
        np.testing.assert_array_equal(z[index].numpy(), np.float32(5.0)[index])
        assert z[index]._untyped_storage is z._untyped_storage
    assert tuple(z[True].shape) == (1,) and tuple(z[False].shape) == (0,)
    with pytest.raises(IndexError, match=re.escape("invalid index of a 0-dim tensor. Use `tensor.item()` in Python")):
        z[0]
    with pytest.raises(IndexError, match="^slice\\(\\) cannot be applied to a 0-dim tensor.$"):
        z[:]
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 0$"):
        z[0, ]


def test_torch_size_and_numpy_ints_are_indices():
    t, a = base((3, 4))
    assert_view_of(t[torch.Size([1, 2])], a[1, 2, ...])
    assert_view_of(t[np.int64(2)], a[2])
    assert_view_of(t[np.uint8(1):np.int16(3)], a[1:3])
    assert_view_of(t[torch.tensor(1)], a[1])           # a 0-dim int tensor selects (a view)
    assert_view_of(t[:, torch.tensor(-1)], a[:, -1])


# -- advanced indexing: placement ---------------------------------------------------------------

def test_adjacent_advanced_indices_stay_in_place():
    t, a = base((3, 4, 5, 6))
    i, j = np.array([0, 2, 1]), np.array([1, 3, 0])
    for index in ((slice(None), i, j), (slice(None), i, j, slice(None)), (i, j), (Ellipsis, i, j)):
        got = t[index]
        np.testing.assert_array_equal(got.numpy(), a[index])


def test_separated_advanced_indices_go_first():
    t, a = base((2, 3, 4, 5))
    i, j = np.array([0, 1]), np.array([1, 3])
    for index in ((i, slice(None), j), (slice(None), i, slice(None), np.array([1, 4])), (i, None, np.array([0, 2])),
                  (i, Ellipsis, np.array([4, 0]))):
        got = t[index]
        np.testing.assert_array_equal(got.numpy(), a[index])
        assert got.shape[0] == 2


def test_integer_is_a_basic_index_unlike_numpy():
    # PyTorch selects with an int before the tensor indices are placed (NumPy treats the int as
    # one more advanced index): t[0, :, [0, 1]] keeps the slice's dim first.
    t, a = base((2, 3, 4))
    got = t[0, :, [0, 1]]
    np.testing.assert_array_equal(got.numpy(), a[0][:, [0, 1]])
    assert a[0, :, [0, 1]].shape == (2, 3) and tuple(got.shape) == (3, 2)


def test_masks_consume_their_dims():
    t, a = base((2, 3, 4))
    m2 = a[:, :, 0] > 6
    np.testing.assert_array_equal(t[torch.from_numpy(m2)].numpy(), a[m2])
    np.testing.assert_array_equal(t[torch.from_numpy(m2), 1].numpy(), a[m2, 1])
    np.testing.assert_array_equal(t[0, torch.from_numpy(a[0] > 5)].numpy(), a[0][a[0] > 5])
    np.testing.assert_array_equal(t[[True, False]].numpy(), a[[True, False]])
    np.testing.assert_array_equal(t[np.array([False, True])].numpy(), a[np.array([False, True])])


def test_bool_scalars_add_a_dim():
    t, a = base((3, 4))
    for index in (True, False, (True, 1), (0, True), (None, True, Ellipsis, False)):
        got = t[index]
        np.testing.assert_array_equal(got.numpy(), a[index])
        assert got._untyped_storage is not t._untyped_storage          # advanced: a copy


def test_index_tensor_forms():
    t, a = base((3, 4))
    rows = [0, 2, 2]
    expected = a[rows]
    for index in (rows, np.array(rows), torch.tensor(rows), torch.tensor(rows, dtype=torch.int32), range(0, 3, 2),
                  (rows,), [0.0, 2.0, 2.5]):
        np.testing.assert_array_equal(t[index].numpy(), a[np.asarray(list(index) if not isinstance(index, tuple)
                                                                         else index[0]).astype(np.int64)])
    np.testing.assert_array_equal(t[[[0, 1], [2, 2]], ].numpy(), a[[[0, 1], [2, 2]], ])
    np.testing.assert_array_equal(t[np.array([[0, 1], [2, 2]])].numpy(), a[np.array([[0, 1], [2, 2]])])
    assert t[[]].shape == (0, 4)
    assert len(expected) == 3


def test_uint8_mask_is_deprecated():
    t, a = base((3, 4))
    m = np.array([1, 0, 1], dtype=np.uint8)
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        got = t[torch.from_numpy(m)]
    np.testing.assert_array_equal(got.numpy(), a[m.astype(bool)])
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        t[m]


def test_non_tuple_sequence_is_a_tuple_with_a_warning():
    t, a = base((3, 4))
    with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing is deprecated"):
        got = t[[[0, 2], [1, 3]]]
    np.testing.assert_array_equal(got.numpy(), a[[0, 2], [1, 3]])
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        assert_view_of(t[[0, slice(None)]], a[0, :])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t[[0, 1]]                  # a flat list is one index tensor: no warning
        t[np.array([[0, 1]])]      # so is a numpy array


# -- errors ---------------------------------------------------------------------------------------

INVALID = "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})"

GET_ERRORS = [
    (5, IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    (-4, IndexError, "index -4 is out of bounds for dimension 0 with size 3"),
    ((None, 5), IndexError, "index 5 is out of bounds for dimension 1 with size 3"),
    ((Ellipsis, 7), IndexError, "index 7 is out of bounds for dimension 1 with size 4"),
    ((0, 5), IndexError, "index 5 is out of bounds for dimension 1 with size 4"),
    ((1, 2, 3), IndexError, "too many indices for tensor of dimension 2"),
    (slice(None, None, -1), ValueError, "step must be greater than zero"),
    (slice(None, None, 0), ValueError, "slice step cannot be zero"),
    (slice(1.0, 2), TypeError, "slice indices must be integers or None or have an __index__ method"),
    (1.0, IndexError, INVALID.format("float")),
    (object(), IndexError, INVALID.format("object")),
    ({0: 1}, IndexError, INVALID.format("dict")),
    (np.float64(1), IndexError, INVALID.format("numpy.float64")),
    (np.bool_(True), IndexError, INVALID.format("numpy.bool")),
    ("a", TypeError, "new(): invalid data type 'str'"),
    (10**20, ValueError, "Overflow when unpacking long long"),
    ([5], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    ((slice(None), [9]), IndexError, "index 9 is out of bounds for dimension 0 with size 4"),
    (([0, 1], [0, 1, 2]), IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes "
                                      "[2], [3]"),
    (torch.tensor(1.0), IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    (torch.tensor([1], dtype=torch.int16), IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    (torch.tensor([True, False]), IndexError, "The shape of the mask [2] at index 0 does not match the shape of the "
                                              "indexed tensor [3, 4] at index 0"),
]


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")       # "a" is a sequence of sequences
@pytest.mark.parametrize("index, exc, message", GET_ERRORS, ids=[case[-1][:40] for case in GET_ERRORS])
def test_getitem_errors(index, exc, message):
    t, _ = base((3, 4))
    with pytest.raises(exc, match="^" + re.escape(message) + "$"):
        t[index]


def test_huge_negative_slice_bound_is_truncated_with_a_warning():
    t, a = base((3, 4))
    with pytest.warns(UserWarning, match="Truncating the start/stop/step of slice"):
        got = t[-10**20:2]
    assert_view_of(got, a[:2])


# -- setitem ----------------------------------------------------------------------------------------

def test_setitem_scalar_fills_a_view_and_bumps_version():
    t, a = base((3, 4))
    before = t._version
    t[1] = 7
    t[:, 0] = -1.5
    t[..., 3] = True
    assert t._version == before + 3
    expected = np.arange(12.0).reshape(3, 4)
    expected[1] = 7
    expected[:, 0] = -1.5
    expected[..., 3] = 1
    np.testing.assert_array_equal(a, expected)


def test_setitem_converts_numbers_to_the_dtype():
    t, a = base((3, 4), np.int64)
    t[0] = 1.7                                           # truncates, as PyTorch
    assert (a[0] == 1).all()
    u = torch.from_numpy(np.zeros(3, np.uint8))
    u[0] = -1                                            # wraps, as PyTorch
    assert u[0].item() == 255
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        u[0] = 300
    f, _ = base((3,), np.float32)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without overflow$"):
        f[0] = 1e40
    f[1] = np.float64(2.5)
    f[2] = np.int64(4)
    assert f.tolist() == [0.0, 2.5, 4.0]


@pytest.mark.parametrize("value, name", [(np.float32(1), "numpy.float32"), (np.bool_(True), "numpy.bool"),
                                         (np.ones(4), "numpy.ndarray"), ([1, 2, 3, 4], "list"), (None, "NoneType"),
                                         ("a", "str")], ids=lambda v: type(v).__name__)
def test_setitem_value_types(value, name):
    t, _ = base((3, 4), np.float32)
    with pytest.raises(TypeError, match="^" + re.escape(f"can't assign a {name} to a torch.FloatTensor") + "$"):
        t[0] = value


def test_setitem_tensor_broadcasts_and_converts_with_copy():
    t, a = base((3, 4))
    t[0] = torch.tensor([1, 2, 3, 4])                   # int64 into float64: copy_ converts
    t[1] = torch.ones(1, 1, 4)                           # leading 1s dropped
    t[:, 3] = torch.tensor([7.0, 8.0, 9.0])
    t[2:, :2] = torch.tensor(-1.0)
    np.testing.assert_array_equal(a, [[1, 2, 3, 7], [1, 1, 1, 8], [-1, -1, 10, 9]])


SET_ERRORS = [
    (0, lambda: torch.ones(2, 4), RuntimeError, "expand(torch.FloatTensor{[2, 4]}, size=[4]): the number of sizes "
     "provided (1) must be greater or equal to the number of dimensions in the tensor (2)"),
    (0, lambda: torch.ones(3, dtype=torch.float64), RuntimeError, "The expanded size of the tensor (4) must match the "
     "existing size (3) at non-singleton dimension 0.  Target sizes: [4].  Tensor sizes: [3]"),
    ([0, 2], lambda: torch.tensor([1, 2, 3, 4]), RuntimeError, "Index put requires the source and destination dtypes "
     "match, got Double for the destination and Long for the source."),
    ([0, 2], lambda: torch.tensor([1, 2, 3], dtype=torch.int32), RuntimeError, "shape mismatch: value tensor of "
     "shape [3] cannot be broadcast to indexing result of shape [2, 4]"),      # the shape is checked first
    ([0, 2], lambda: torch.ones(3, 4, dtype=torch.float64), RuntimeError, "shape mismatch: value tensor of shape "
     "[3, 4] cannot be broadcast to indexing result of shape [2, 4]"),
    (torch.tensor([1, 0, 1], dtype=torch.uint8), lambda: 1.0, RuntimeError, "masked_fill_ only supports boolean "
     "masks, but got mask with dtype unsigned char"),
    (5, lambda: 1.0, IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    ((1, 2, 3), lambda: 1.0, IndexError, "too many indices for tensor of dimension 2"),
    (slice(None, None, -1), lambda: 1.0, ValueError, "step must be greater than zero"),
    (1.0, lambda: 1.0, IndexError, INVALID.format("float")),
]


@pytest.mark.parametrize("index, value, exc, message", SET_ERRORS, ids=[case[-1][:40] for case in SET_ERRORS])
def test_setitem_errors(index, value, exc, message):
    t, a = base((3, 4))
    before = a.copy()
    with pytest.raises(exc, match="^" + re.escape(message) + "$"):
        t[index] = value()
    np.testing.assert_array_equal(a, before)


def test_setitem_advanced():
    t, a = base((3, 4))
    before = t._version
    t[[0, 2]] = 1.0
    t[[0, 1], [1, 2]] = torch.tensor([50.0, 60.0], dtype=torch.float64)
    t[:, [3]] = torch.tensor([[7.0], [8.0], [9.0]], dtype=torch.float64)
    assert t._version == before + 3
    e = np.arange(12.0).reshape(3, 4)
    e[[0, 2]] = 1
    e[[0, 1], [1, 2]] = [50, 60]
    e[:, [3]] = [[7], [8], [9]]
    np.testing.assert_array_equal(a, e)


def test_setitem_mask_fills_with_any_dtype_of_one_element():
    t, a = base((3, 4))
    m = a > 5
    t[torch.from_numpy(m)] = torch.tensor(-1)            # int64 0-dim into float64: masked_fill_
    t[torch.from_numpy(a < 2)] = torch.tensor([-2])
    e = np.arange(12.0).reshape(3, 4)
    e[m] = -1
    e[e < 2] = -2
    np.testing.assert_array_equal(a, e)


def test_setitem_false_does_nothing():
    t, a = base((3, 4))
    before = t._version
    t[False] = torch.ones(7)
    assert t._version == before
    np.testing.assert_array_equal(a, np.arange(12.0).reshape(3, 4))
    t[True] = 3.0
    t[None] = 4.0
    assert (a == 4).all()


def test_delitem_is_a_type_error():
    t, _ = base((3, 4))
    with pytest.raises(TypeError, match="^Tensor does not support deleting items$"):
        del t[0]


# -- len and iteration ------------------------------------------------------------------------------

def test_iteration_yields_row_views():
    t, a = base((3, 4))
    rows = list(t)
    assert len(rows) == len(t) == 3
    for row, expected in zip(rows, a):
        assert_view_of(row, expected)
    assert [float(v) for v in t[0]] == [0.0, 1.0, 2.0, 3.0]


def test_zero_dim_iteration_and_len():
    z = torch.tensor(1.0)
    with pytest.raises(TypeError, match="^iteration over a 0-d tensor$"):
        iter(z)
    with pytest.raises(TypeError, match="^len\\(\\) of a 0-d tensor$"):
        len(z)


# -- properties: getitem and setitem against NumPy ----------------------------------------------------

@st.composite
def indexed(draw):
    """A shape and an index tuple over it: ints, slices (step > 0), None, at most one Ellipsis,
    int arrays (as numpy arrays, lists or tensors) and bool masks, all in range. The entries
    before the Ellipsis index the leading dims, those after it the trailing ones."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    nd = len(shape)
    use_ellipsis = draw(st.booleans())
    lead = draw(st.integers(0, nd))
    trail = draw(st.integers(0, nd - lead)) if use_ellipsis else 0

    def segment(dims):
        items, i = [], 0
        while i < len(dims):
            size = shape[dims[i]]
            kinds = ["slice", "array", "mask"] + (["int"] if size > 0 else [])
            kind = draw(st.sampled_from(kinds))
            if kind == "int":
                items.append(("int", draw(st.integers(-size, size - 1))))
            elif kind == "slice":
                bound = st.none() | st.integers(-6, 6)
                items.append(("slice", slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3)))))
            elif kind == "array":
                vals = draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3)) if size else []
                items.append(("array", np.array(vals, dtype=np.int64)))
            else:
                k = draw(st.integers(1, len(dims) - i))
                mshape = tuple(shape[d] for d in dims[i:i + k])
                bits = draw(st.lists(st.booleans(), min_size=math.prod(mshape), max_size=math.prod(mshape)))
                items.append(("mask", np.array(bits, dtype=bool).reshape(mshape)))
                i += k - 1
            i += 1
        return items

    items = segment(list(range(lead)))
    if use_ellipsis:
        items += [("ellipsis", Ellipsis)] + segment(list(range(nd - trail, nd)))
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), ("none", None))
    form = draw(st.sampled_from(["numpy", "list", "tensor"]))
    return shape, items, form


def _strip_ones(v):
    k = 0
    while k < v.ndim and v.shape[k] == 1:
        k += 1
    return v.reshape(v.shape[k:])


def torch_index(items, form):
    """The index as Ember is given it. A multi-dim mask that is not a tensor counts as ONE
    specified dim in PyTorch (count_specified_dimensions only looks inside tensors), so an
    Ellipsis then spans one dim too many and NumPy's answer does not apply: such masks are
    passed as tensors when the index has an Ellipsis."""
    has_ellipsis = any(kind == "ellipsis" for kind, _ in items)
    out = []
    for kind, v in items:
        if kind in ("array", "mask"):
            if form == "tensor" or (kind == "mask" and v.ndim > 1 and has_ellipsis):
                v = torch.from_numpy(v.copy())
            elif form == "list" and kind == "array":
                v = v.tolist()
        out.append(v)
    return tuple(out)


def apply_reference(a, items):
    """(target, index) such that target[index] is PyTorch's answer, in NumPy. PyTorch applies
    the basic indices first and places the advanced block by the dims of that view, where NumPy
    differs in two cases: it treats ints as advanced indices too when arrays are present, and an
    Ellipsis between arrays separates them (result dims first) even when it spans no dim. In
    those cases the basic indices (ints, slices, None, Ellipsis, full slices where the arrays and
    masks go) give a NumPy view, and the arrays and masks index that view's dims, full slices
    elsewhere: PyTorch's rule, with NumPy doing the indexing."""
    advanced = any(kind in ("array", "mask") for kind, _ in items)
    if not (advanced and any(kind in ("int", "ellipsis") for kind, _ in items)):
        return a, tuple(v for _, v in items)
    first, placed = [], []                        # placed: (position in first, array or mask)
    for kind, v in items:
        if kind in ("array", "mask"):
            placed.append((len(first), v))
            first.extend([slice(None)] * (v.ndim if kind == "mask" else 1))
        else:
            first.append(v)
    view = a[tuple(first)]
    n_specified = sum(1 for x in first if x is not None and x is not Ellipsis)
    view_dim, d = {}, 0                           # the view's dim for each entry of `first`
    for pos, x in enumerate(first):
        if x is Ellipsis:
            d += a.ndim - n_specified
        elif not isinstance(x, (int, np.integer)):
            view_dim[pos] = d
            d += 1
    second = [slice(None)] * view.ndim
    for pos, v in sorted(placed, reverse=True):
        d = view_dim[pos]
        second[d:d + (v.ndim if v.dtype == bool else 1)] = [v]
    return view, tuple(second)


@settings(max_examples=300, deadline=None)
@given(indexed())
def test_getitem_matches_numpy(case):
    shape, items, form = case
    t, a = base(shape)
    target, index = apply_reference(a, items)
    try:
        expected = target[index]
    except IndexError as exc:                    # the index arrays do not broadcast: both refuse
        assert "shape mismatch" in str(exc)
        with pytest.raises(IndexError, match="^shape mismatch: indexing tensors could not be broadcast together"):
            t[torch_index(items, form)]
        return
    got = t[torch_index(items, form)]
    assert tuple(got.shape) == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
    if not any(kind in ("array", "mask") for kind, _ in items):
        assert got._untyped_storage is t._untyped_storage   # basic indexing: a view


@settings(max_examples=300, deadline=None)
@given(indexed(), st.data())
def test_setitem_matches_numpy(case, data):
    shape, items, form = case
    t, a = base(shape)
    e = a.copy()
    target, index = apply_reference(e, items)
    try:
        result_shape = target[index].shape
    except IndexError:                           # the index arrays do not broadcast (see above)
        return
    # which elements the index reaches: with repeats, the written value would depend on order
    # (PyTorch leaves it unspecified), so a scalar is assigned then
    positions = apply_reference(np.arange(a.size).reshape(shape), items)
    reached = positions[0][positions[1]].ravel()
    if data.draw(st.booleans()) or len(set(reached.tolist())) != reached.size:
        value = data.draw(st.floats(-100, 100, allow_nan=False))
        tvalue = value
    else:
        # a value broadcastable to the result: a suffix of its shape, some dims 1, leading 1s
        k = data.draw(st.integers(0, len(result_shape)))
        vshape = [1 if data.draw(st.booleans()) else n for n in result_shape[k:]]
        vshape = [1] * data.draw(st.integers(0, 2)) + vshape
        value = np.asarray(np.random.default_rng(0).random(vshape) * 100)
        tvalue = torch.from_numpy(value.copy())
    before = t._version
    # both drop the value's leading 1s; NumPy refuses them when the target is a 0-d element
    target[index] = _strip_ones(np.asarray(value))
    t[torch_index(items, form)] = tvalue
    np.testing.assert_array_equal(a, e)
    assert t._version == before + 1
