"""Argument parsing of the generated bindings: overloads, keywords, varargs sizes, errors."""
import numpy as np
import pytest

import torch


def test_keywords_and_positionals_reach_the_kernel():
    x = torch.tensor([1.0, 2.0])
    assert torch.add(x, x, alpha=3).tolist() == [4.0, 8.0]
    assert torch.add(input=x, other=x).tolist() == [2.0, 4.0]
    assert x.add(other=1).tolist() == [2.0, 3.0]


def test_sum_picks_the_overload_that_matches():
    x = torch.tensor([[1, 2], [3, 4]])
    assert torch.sum(x).item() == 10
    assert torch.sum(x, 0).tolist() == [4, 6]
    assert x.sum(dim=(0, 1), keepdim=True).tolist() == [[10]]
    assert x.sum(dtype=torch.float64).dtype is torch.float64


def test_sizes_may_be_given_as_varargs_a_tuple_or_a_list():
    assert torch.zeros(2, 3).shape == torch.zeros((2, 3)).shape == torch.zeros([2, 3]).shape == (2, 3)
    assert torch.ones(3).shape == (3,)


def test_wrong_argument_type_names_argument_position_and_types():
    x = torch.ones(2)
    with pytest.raises(TypeError, match=r"add\(\): argument 'other' \(position 2\) must be Tensor, not str"):
        torch.add(x, "a")
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'dtype' must be torch.dtype, not str"):
        torch.zeros(2, dtype="x")


def test_unexpected_keyword_and_too_many_positionals_are_type_errors():
    x = torch.ones(2)
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'beta'"):
        torch.add(x, x, beta=2)
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        torch.neg(x, x)
    with pytest.raises(TypeError, match=r"received an invalid combination of arguments - got \(Tensor, str\)"):
        torch.sum(x, "a")


def test_numpy_spellings_of_dim_keepdim_input_and_other_are_taken_as_pytorch_takes_them():
    x = torch.tensor([[True, False], [True, True]])
    np.testing.assert_array_equal(torch.all(x, axis=-1, keepdims=True).numpy(), x.numpy().all(axis=-1, keepdims=True))
    np.testing.assert_array_equal(x.any(axis=0).numpy(), x.numpy().any(axis=0))
    y = torch.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(torch.sum(a=y, axis=1).numpy(), y.numpy().sum(axis=1))
    np.testing.assert_array_equal(torch.add(x1=y, x2=y).numpy(), y.numpy() * 2)
    np.testing.assert_array_equal(torch.cat([y, y], axis=0).numpy(), np.concatenate([y.numpy()] * 2, axis=0))
    with pytest.raises(TypeError):         # the parameter's own name wins; the alias is left over
        torch.sum(y, dim=0, axis=1)
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'axis'"):
        torch.neg(y, axis=0)


def test_alpha_is_keyword_only_as_in_pytorch():
    x = torch.ones(2)
    with pytest.raises(TypeError):
        torch.add(x, x, 2)


def test_functions_load_lazily_and_are_listed_in_dir():
    assert "add" in dir(torch) and "exp" in dir(torch)
    with pytest.raises(AttributeError, match="module 'torch' has no attribute 'frobnicate'"):
        torch.frobnicate


def test_torch_ops_reaches_every_overload_including_unbound_ones():
    x = torch.tensor([1, 2])
    assert torch.ops.aten.add.Scalar(x, 2).tolist() == [3, 4]
    assert torch.ops.aten.add.Tensor(x, x, alpha=2).tolist() == [3, 6]
    assert torch.ops.aten.neg.default(x).tolist() == [-1, -2]
    assert "Scalar" in torch.ops.aten.add.overloads()
    with pytest.raises(AttributeError, match="no overload name 'Nope'"):
        torch.ops.aten.add.Nope


def test_cuda_request_without_cuda_is_pytorchs_error_naming_what_is_missing():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    from c10 import cuda as c10_cuda
    # PyTorch's AssertionError for a build without CUDA (no PyCUDA), its RuntimeError without a driver
    expected = c10_cuda._init().error_type
    with pytest.raises(expected, match="Torch not compiled with CUDA enabled: PyCUDA|NVIDIA driver|no CUDA device"):
        torch.zeros(2, device="cuda")
    with pytest.raises(expected):
        torch.zeros(2).cuda()
    assert torch.cuda.device_count() == 0


def test_a_zero_dim_tensor_is_a_scalar_argument_as_in_pytorch():
    a = torch.ones(2)
    assert a.add(a, alpha=torch.tensor(2.0)).tolist() == [3.0, 3.0]
    assert torch.full((2,), torch.tensor(3)).dtype == torch.int64
    assert torch.clamp(a, min=torch.tensor(1.5)).tolist() == [1.5, 1.5]
    with pytest.raises(TypeError, match="argument 'alpha' must be Number, not Tensor"):
        a.add(a, alpha=torch.tensor([2.0]))
    with pytest.raises(TypeError, match="argument 'alpha' must be Number, not Tensor"):
        a.add(a, alpha=torch.tensor(2.0, requires_grad=True))     # its gradient would be lost
    assert torch.nn.functional.dropout(a, torch.tensor(0.0)).tolist() == [1.0, 1.0]
    assert torch.ones(torch.tensor(2)).shape == (2,) and torch.ones([torch.tensor(2), 3]).shape == (2, 3)
    with pytest.raises(TypeError, match="must be tuple of ints, not Tensor"):
        torch.ones(torch.tensor(2.0))


@pytest.mark.parametrize("python_type, expected", [(float, torch.float64), (int, torch.int64), (bool, torch.bool),
                                                   (complex, torch.complex128)])
def test_pythons_number_types_name_dtypes_as_in_pytorch(python_type, expected):
    assert torch.zeros(2, dtype=python_type).dtype is expected
    assert torch.tensor(0, dtype=python_type).dtype is expected
    assert torch.full((2,), 1, dtype=python_type).dtype is expected
    assert torch.ones(2).to(python_type).dtype is expected
    assert torch.ones(2).to(dtype=python_type).dtype is expected
    assert torch.ones(2).to("cpu", python_type).dtype is expected
    with pytest.raises(ValueError, match=f"invalid type: '{python_type.__name__}'"):     # PyTorch's type() refuses
        torch.ones(2).type(python_type)
    with pytest.raises(TypeError, match="must be torch.dtype, not type"):
        torch.zeros(2, dtype=str)
