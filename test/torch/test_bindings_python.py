"""Python-level behaviour of the bindings checked against PyTorch 2.13: requires_grad on factories
and tensors, optional arguments without defaults, Scalar overloads, empty tensor lists, the
torch.functional wrappers (norm, unique, nonzero(as_tuple), einsum, broadcast_tensors) and the
Tensor operators. Expected messages and values were taken from the reference torch."""
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import torch
from torch._C import _gen_norm


# ---- requires_grad ------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda **kw: torch.zeros(2, **kw), lambda **kw: torch.ones(2, 3, **kw), lambda **kw: torch.empty(2, **kw),
    lambda **kw: torch.full((2,), 1.5, **kw), lambda **kw: torch.rand(2, **kw), lambda **kw: torch.randn(2, **kw),
    lambda **kw: torch.arange(3.0, **kw), lambda **kw: torch.linspace(0, 1, 5, **kw),
    lambda **kw: torch.eye(2, **kw), lambda **kw: torch.zeros_like(torch.ones(2), **kw),
    lambda **kw: torch.ones_like(torch.ones(2), **kw), lambda **kw: torch.tensor([1.0, 2.0], **kw),
    lambda **kw: torch.scalar_tensor(1, **kw),
])
def test_factories_take_requires_grad(make):
    assert make(requires_grad=True).requires_grad is True
    assert make(requires_grad=False).requires_grad is False
    assert make().requires_grad is False
    assert make(requires_grad=None).requires_grad is False   # PyTorch's `bool? requires_grad`


@pytest.mark.parametrize("make", [
    lambda: torch.zeros(2, dtype=torch.int64, requires_grad=True), lambda: torch.randperm(3, requires_grad=True),
    lambda: torch.full((2,), 1, requires_grad=True), lambda: torch.randint(3, (2,), requires_grad=True),
    lambda: torch.tensor([1, 2], requires_grad=True), lambda: torch.arange(3, requires_grad=True),
])
def test_factory_requires_grad_on_integer_dtypes_is_pytorchs_error(make):
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        make()


def test_integer_factory_without_requires_grad_is_fine():
    assert torch.zeros(2, dtype=torch.int64, requires_grad=False).requires_grad is False


def test_requires_grad_must_be_a_bool_in_factories():
    with pytest.raises(TypeError, match="argument 'requires_grad' must be bool, not int"):
        torch.zeros(2, requires_grad=1)


def test_requires_grad_property_and_setter():
    x = torch.ones(2)
    assert x.requires_grad is False and x.is_leaf
    x.requires_grad = True
    assert x.requires_grad is True and x.is_leaf
    x.requires_grad = False
    assert x.requires_grad is False
    with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
        x.requires_grad = 1
    y = torch.ones(2, dtype=torch.int32)
    y.requires_grad = False
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        y.requires_grad = True


def test_requires_grad_underscore_returns_self_and_checks_its_argument():
    x = torch.ones(2)
    assert x.requires_grad_() is x and x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    with pytest.raises(TypeError, match=r"requires_grad_\(\): argument 'requires_grad' \(position 1\) must be bool, "
                                        "not int"):
        x.requires_grad_(1)
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        torch.ones(2, dtype=torch.int64).requires_grad_()
    assert torch.ones(2, dtype=torch.int64).requires_grad_(False).requires_grad is False


def test_repr_shows_requires_grad():
    assert repr(torch.ones(2, requires_grad=True)) == "tensor([1., 1.], requires_grad=True)"
    assert repr(torch.tensor(1.0, requires_grad=True)) == "tensor(1., requires_grad=True)"
    assert repr(torch.ones(2)) == "tensor([1., 1.])"


# ---- optional arguments without a default; norm overloads ---------------------------------------

X = [[1.0, 2.0], [3.0, 4.0]]


def test_optional_argument_without_default_is_required():
    x = torch.tensor(X)
    # PyTorch's _VariableFunctions.norm: `Scalar? p` has no default, so p must be given (None is fine).
    with pytest.raises(TypeError):
        _gen_norm.norm(x, dim=[1])
    with pytest.raises(TypeError):
        _gen_norm.norm(x, dtype=torch.float64)
    assert _gen_norm.norm(x, None, [1]).tolist() == pytest.approx([math.sqrt(5), 5.0])
    assert _gen_norm.norm(x, None, dtype=torch.float64).dtype is torch.float64


def test_norm_dim_dtype_overload_is_bound_and_dispatched():
    x = torch.tensor(X)
    r = _gen_norm.norm(x, 2, [1], False, dtype=torch.float64)
    assert r.dtype is torch.float64 and r.tolist() == pytest.approx([math.sqrt(5), 5.0])
    with pytest.raises(TypeError):
        _gen_norm.norm(x, 2, [1], dtype=torch.float64)   # keepdim has no default in this overload
    r = torch.ops.aten.norm.ScalarOpt_dim_dtype(x, 2, [0], True, dtype=torch.float64)
    assert r.shape == (1, 2) and r.dtype is torch.float64


def test_batch_norm_weight_is_required_like_pytorch():
    with pytest.raises(TypeError, match="missing required argument 'weight'"):
        torch.batch_norm(torch.ones(2, 2))


# ---- reduction=Mean ----------------------------------------------------------------------------

def test_bare_loss_bindings_do_not_reduce_as_pytorchs_parser_reads_reduction_mean_as_zero():
    a, b = torch.tensor([1.0, 2.0, 4.0]), torch.tensor([0.0, 0.0, 0.0])
    assert torch._C._nn.mse_loss(a, b).tolist() == [1.0, 4.0, 16.0]
    assert torch.hinge_embedding_loss(a, b).tolist() == [1.0, 2.0, 4.0]
    assert torch.ops.aten.mse_loss(a, b).item() == pytest.approx(7.0)      # the schema's default: Mean
    assert torch._C._nn.mse_loss(a, b, 1).item() == pytest.approx(7.0)
    assert torch._C._nn.mse_loss(a, b, 2).item() == pytest.approx(21.0)
    assert torch._C._nn.mse_loss(a, b, 0).tolist() == [1.0, 4.0, 16.0]


# ---- Scalar overloads --------------------------------------------------------------------------

def test_a_number_runs_the_scalar_overload_and_a_tensor_the_tensor_one():
    code = ("import torch; x = torch.tensor([1.]); y = torch.tensor([3.]); torch.lerp(x, y, 0.5); "
            "torch.lerp(x, y, torch.tensor(0.5)); torch.masked_fill(x, x > 0, 2); "
            "torch.masked_fill(x, x > 0, torch.tensor(2.))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "TORCH_SHOW_DISPATCH_TRACE": "1"})
    ops = [line.split("op=[aten::")[1].split("]")[0] for line in result.stderr.splitlines() if "op=[aten::" in line]
    picked = [op for op in ops if op.startswith(("lerp", "masked_fill"))]
    assert picked == ["lerp.Scalar", "lerp.Tensor", "masked_fill.Scalar", "masked_fill.Tensor"]


@pytest.mark.parametrize("call, expected", [
    (lambda x: torch.add(x, 2), [3.0, 4.0, 5.0]),
    (lambda x: torch.add(x, 2, alpha=3), [7.0, 8.0, 9.0]),
    (lambda x: torch.eq(x, 1), [True, False, False]),
    (lambda x: torch.clamp(x, min=torch.tensor(2.0)), [2.0, 2.0, 3.0]),
    (lambda x: torch.clamp(x, 2), [2.0, 2.0, 3.0]),
    (lambda x: torch.clamp(x, torch.tensor(2.0), 3), [2.0, 2.0, 3.0]),
])
def test_numbers_in_tensor_places_work_as_in_pytorch(call, expected):
    assert call(torch.tensor([1.0, 2.0, 3.0])).tolist() == expected


def test_number_first_overloads():
    assert torch.pow(2, torch.tensor([1, 2])).tolist() == [2, 4]
    assert torch.pow(2, torch.tensor([1, 2])).dtype is torch.int64
    assert torch.pow(2.5, torch.tensor([1, 2])).tolist() == [2.5, 6.25]
    assert torch.pow(2.5, torch.tensor([1, 2])).dtype is torch.float32
    assert torch.remainder(2, torch.tensor([3, 4])).tolist() == [2, 2]


def test_no_match_lists_every_overload():
    x = torch.tensor([1.0])
    with pytest.raises(TypeError, match=r"masked_fill\(\) received an invalid combination of arguments - got "
                                        r"\(Tensor, Tensor, str\)"):
        torch.masked_fill(x, x > 0, "a")


# ---- empty tensor lists ------------------------------------------------------------------------

def test_empty_tensor_lists_reach_the_kernel_and_its_error():
    with pytest.raises(ValueError, match=r"^torch.cat\(\): expected a non-empty list of Tensors$"):
        torch.cat([])
    with pytest.raises(ValueError, match=r"^torch.cat\(\): expected a non-empty list of Tensors$"):
        torch.cat((), dim=1)
    with pytest.raises(ValueError, match=r"^torch.cat\(\): expected a non-empty list of Tensors$"):
        torch.concat([])
    with pytest.raises(RuntimeError, match="^stack expects a non-empty TensorList$"):
        torch.stack([])
    with pytest.raises(RuntimeError, match="^hstack expects a non-empty TensorList$"):
        torch.hstack([])
    with pytest.raises(RuntimeError, match="^vstack expects a non-empty TensorList$"):
        torch.vstack([])
    assert torch.ops.aten.broadcast_tensors.default([]) == ()


# ---- broadcast_tensors, einsum -----------------------------------------------------------------

def test_broadcast_tensors_varargs():
    a, b = torch.broadcast_tensors(torch.arange(3).view(1, 3), torch.arange(2).view(2, 1))
    assert a.tolist() == [[0, 1, 2], [0, 1, 2]] and b.tolist() == [[0, 0, 0], [1, 1, 1]]
    assert torch.broadcast_tensors() == ()
    with pytest.raises(TypeError):
        torch.broadcast_tensors([torch.ones(2, 1), torch.ones(3)])
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        torch.broadcast_tensors(torch.ones(2), torch.ones(3))


def test_broadcast_tensors_are_views():
    base = torch.zeros(1, 3)
    a, _ = torch.broadcast_tensors(base, torch.ones(2, 1))
    base.fill_(5.0)
    assert a.tolist() == [[5.0] * 3] * 2


EINSUM_NEEDS = ("einsum(): must specify the equation string and at least one operand, or at least one operand and its "
                "subscripts list")


def test_einsum_varargs_list_and_sublist_forms():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    expected = [[7.0, 10.0], [15.0, 22.0]]
    assert torch.einsum("ij,jk", a, a).tolist() == expected
    assert torch.einsum("ij,jk->ik", [a, a]).tolist() == expected
    assert torch.einsum("ij,jk->ik", (a, a)).tolist() == expected
    assert torch.einsum(a, [0, 1], a, [1, 2], [0, 2]).tolist() == expected
    assert torch.einsum(torch.ones(2), [0], torch.ones(2), [0], []).item() == 2.0
    assert torch.einsum(a, [Ellipsis, 0], [Ellipsis]).tolist() == [3.0, 7.0]
    with pytest.raises(ValueError, match="subscript in subscript list is not within the valid range"):
        torch.einsum(a, [0, 60])


@pytest.mark.parametrize("args", [(), ("ij",), ("i", [])])
def test_einsum_without_operands_is_pytorchs_value_error(args):
    with pytest.raises(ValueError, match=f"^{re.escape(EINSUM_NEEDS)}$"):
        torch.einsum(*args)


def test_einsum_with_too_few_operands():
    with pytest.raises(RuntimeError, match="fewer operands were provided than specified in the equation"):
        torch.einsum("i,i->", torch.ones(2))


# ---- unique, nonzero ---------------------------------------------------------------------------

def test_unique_flags_and_dim():
    x = torch.tensor([3, 1, 3, 2])
    assert torch.unique(x).tolist() == [1, 2, 3]
    out, inverse = torch.unique(x, return_inverse=True)
    assert out.tolist() == [1, 2, 3] and inverse.tolist() == [2, 0, 2, 1]
    out, counts = torch.unique(x, return_counts=True)
    assert counts.tolist() == [1, 1, 2]
    out, inverse, counts = torch.unique(x, True, True, True)
    assert (out.tolist(), inverse.tolist(), counts.tolist()) == ([1, 2, 3], [2, 0, 2, 1], [1, 1, 2])
    m = torch.tensor([[1, 2], [1, 2], [0, 1]])
    assert torch.unique(m, dim=0).tolist() == [[0, 1], [1, 2]]
    out, inverse, counts = m.unique(dim=0, return_inverse=True, return_counts=True)
    assert inverse.tolist() == [1, 1, 0] and counts.tolist() == [1, 2]
    assert x.unique(sorted=True).tolist() == [1, 2, 3]
    assert np.array_equal(torch.unique(torch.tensor([2.0, 2.0, -1.0])).numpy(), np.array([-1.0, 2.0], np.float32))


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize("method", [False, True])
def test_unique_consecutive_gives_what_was_asked_for(inverse, counts, method):
    values = np.array([1, 1, 2, 2, 3, 1])
    x = torch.from_numpy(values)
    got = x.unique_consecutive(inverse, counts) if method else \
        torch.unique_consecutive(x, return_inverse=inverse, return_counts=counts)
    starts = np.concatenate([[True], values[1:] != values[:-1]])
    expected = [values[starts]] + ([np.cumsum(starts) - 1] if inverse else []) + \
        ([np.diff(np.append(np.flatnonzero(starts), values.size))] if counts else [])
    got = list(got) if isinstance(got, tuple) else [got]
    assert len(got) == len(expected) and all(np.array_equal(g.numpy(), e) for g, e in zip(got, expected))


def test_nonzero_as_tuple():
    x = torch.tensor([[0, 1], [2, 0]])
    rows, cols = torch.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert torch.nonzero(x, as_tuple=False).tolist() == [[0, 1], [1, 0]]
    assert x.nonzero().tolist() == [[0, 1], [1, 0]]
    (only,) = torch.nonzero(torch.tensor(5), as_tuple=True)
    assert only.tolist() == [0]
    (none,) = torch.nonzero(torch.tensor(0), as_tuple=True)
    assert none.tolist() == [] and none.dtype is torch.int64
    assert torch.nonzero(torch.tensor(5)).shape == (1, 0)
    empty = torch.nonzero(torch.zeros(0, 3), as_tuple=True)
    assert len(empty) == 2 and all(t.shape == (0,) for t in empty)
    with pytest.raises(RuntimeError, match="^nonzero does not support the out kwarg when as_tuple is True$"):
        torch.nonzero(x, as_tuple=True, out=torch.empty(0, dtype=torch.int64))


# ---- torch.norm ------------------------------------------------------------------------------

@pytest.mark.parametrize("call, expected", [
    (lambda x: torch.norm(x, 2, dim=1, dtype=torch.float64), [math.sqrt(5), 5.0]),
    (lambda x: torch.norm(x, 2, 1, True, dtype=torch.float64), [[math.sqrt(5)], [5.0]]),
    (lambda x: torch.norm(x, dtype=torch.float64), math.sqrt(30)),
    (lambda x: torch.norm(x), math.sqrt(30)),
    (lambda x: torch.norm(x, "fro"), math.sqrt(30)),
    (lambda x: torch.norm(x, "fro", dim=1), [math.sqrt(5), 5.0]),
    (lambda x: torch.norm(x, "fro", dim=(0, 1), keepdim=True), [[math.sqrt(30)]]),
    (lambda x: torch.norm(x, float("inf")), 4.0),
    (lambda x: torch.norm(x, float("inf"), dim=0), [3.0, 4.0]),
    (lambda x: torch.norm(x, dim=1), [math.sqrt(5), 5.0]),
    (lambda x: torch.norm(x, None, 1), [math.sqrt(5), 5.0]),
    (lambda x: torch.norm(x, 2, [-1, 0]), math.sqrt(30)),
    (lambda x: x.norm(2, 1, dtype=torch.float64), [math.sqrt(5), 5.0]),
    (lambda x: x.norm("fro"), math.sqrt(30)),
    (lambda x: x.norm(), math.sqrt(30)),
    (lambda x: torch.norm(torch.ones(2, 2, 2), "fro"), math.sqrt(8)),
    (lambda x: torch.norm(torch.ones(2, 2, 2), 3), 2.0),
])
def test_norm(call, expected):
    result = call(torch.tensor(X))
    np.testing.assert_allclose(result.numpy(), np.array(expected), rtol=1e-6)


def test_norm_dtype_and_out():
    x = torch.tensor(X)
    assert torch.norm(x, 2, dim=1, dtype=torch.float64).dtype is torch.float64
    out = torch.empty(2)
    assert torch.norm(x, 2, 1, out=out) is out and out.tolist() == pytest.approx([math.sqrt(5), 5.0])


def test_norm_errors():
    x = torch.tensor(X)
    with pytest.raises(RuntimeError, match="^linalg.vector_norm: Expected a floating point or complex tensor as input. "
                                           "Got Long$"):
        torch.norm(torch.tensor([3, 4]))
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order abc not supported.$"):
        torch.norm(x, "abc")
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order abc not supported.$"):
        torch.norm(torch.ones(2), "abc")
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2$"):
        torch.norm(torch.ones(2, 2, 2), "fro", dim=(0, 1, 2))



def test_nuclear_norm_is_the_sum_of_singular_values():
    x = torch.tensor([[3.0, 0.0], [4.0, 5.0]], dtype=torch.float64)
    assert torch.norm(x, "nuc").item() == pytest.approx(float(torch.linalg.svdvals(x).sum()))
    assert x.norm(p="nuc").item() == pytest.approx(float(torch.linalg.svdvals(x).sum()))


# ---- Tensor operators -----------------------------------------------------------------------

def test_comparison_operators():
    x = torch.tensor([1.0, 2.0, 3.0])
    assert (x > 1).tolist() == [False, True, True]
    assert (x >= 2).tolist() == [False, True, True]
    assert (x < 2).tolist() == [True, False, False]
    assert (x <= 2).tolist() == [True, True, False]
    assert (x == 2).tolist() == [False, True, False]
    assert (x != 2).tolist() == [True, False, True]
    assert (1 < x).tolist() == [False, True, True]   # reflected through __gt__
    assert (x == None) is False and (x != None) is True   # noqa: E711 (PyTorch's answer)


def test_arithmetic_operators_and_reflections():
    i = torch.tensor([1, 2])
    assert (2 ** i).tolist() == [2, 4] and (2.5 ** i).tolist() == [2.5, 6.25]
    assert (torch.tensor([2]) ** 0.5).tolist() == pytest.approx([math.sqrt(2)])
    assert (7 // torch.tensor([2, 3])).tolist() == [3, 2] and (torch.tensor([7, 8]) // 3).tolist() == [2, 2]
    assert (7 % torch.tensor([2, 3])).tolist() == [1, 1] and (torch.tensor([7, 8]) % 3).tolist() == [1, 2]
    assert (1 << i).tolist() == [2, 4] and (8 >> i).tolist() == [4, 2] and (i << 1).tolist() == [2, 4]
    assert (3 & i).tolist() == [1, 2] and (3 | torch.tensor([4])).tolist() == [7]
    assert (3 ^ torch.tensor([1])).tolist() == [2]
    assert (i & 1).tolist() == [1, 0] and (i | 4).tolist() == [5, 6] and (i ^ 3).tolist() == [2, 1]
    assert (~i).tolist() == [-2, -3] and (~torch.tensor([True])).tolist() == [False]
    x = torch.tensor([1.0, -2.0])
    assert abs(x).tolist() == [1.0, 2.0] and (-x).tolist() == [-1.0, 2.0] and (+x).tolist() == [1.0, -2.0]
    with pytest.raises(RuntimeError, match="^The `\\+` operator, on a bool tensor is not supported.$"):
        +torch.tensor([True])
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and 'str'"):
        x + "a"


def test_matmul_operators():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    expected = [[7.0, 10.0], [15.0, 22.0]]
    assert (a @ a).tolist() == expected
    assert a.__rmatmul__(a).tolist() == expected
    b = a.clone()
    alias = b
    b @= a   # no __imatmul__ in PyTorch either: a new tensor is bound to b
    assert b.tolist() == expected and b is not alias and alias.tolist() == a.tolist()


def test_in_place_operators_keep_the_object():
    t = torch.tensor([1.0, 2.0])
    alias = t
    t += 1
    t *= 2
    t -= 1
    t /= 2
    assert t is alias and t.tolist() == [1.5, 2.5]
    a = torch.tensor([5, 6])
    alias = a
    a //= 2
    a %= 2
    a **= 2
    a <<= 1
    a >>= 1
    a &= 3
    a |= 4
    a ^= 1
    assert a is alias and a.tolist() == [5, 4]
    with pytest.raises(RuntimeError):
        a += 1.5   # result type Float can't be cast to Long


def test_container_and_conversion_dunders():
    x = torch.tensor([1.0, -2.0])
    assert 2.0 not in x and torch.tensor(1.0) in x and -2 in x
    with pytest.raises(RuntimeError, match="^Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                                           "<class 'str'>.$"):
        "a" in x
    assert reversed(x).tolist() == [-2.0, 1.0]
    assert reversed(torch.tensor(3.0)).item() == 3.0
    assert [t.item() for t in x] == [1.0, -2.0]
    with pytest.raises(TypeError, match="^iteration over a 0-d tensor$"):
        iter(torch.tensor(1.0))
    assert f"{torch.tensor(2.5):.2f}" == "2.50"
    assert complex(torch.tensor(2.0)) == 2 + 0j
    assert np.asarray(x).tolist() == [1.0, -2.0] and np.asarray(x, dtype=np.float64).dtype == np.float64
    assert torch.Tensor.__array_priority__ == 1000


def test_tensor_has_pytorchs_python2_operator_names():
    x = torch.tensor([2.0, 4.0])
    assert x.__div__(2).tolist() == [1.0, 2.0] and x.__rdiv__(8).tolist() == [4.0, 2.0]
    assert x.clone().__idiv__(2).tolist() == [1.0, 2.0]
    assert torch.tensor(3).__long__() == 3 and torch.tensor(1).__nonzero__() is True


def test_torch_split_takes_pytorchs_keyword_name():
    a = torch.arange(10)
    assert [t.tolist() for t in torch.split(a, split_size_or_sections=[3, 7])] == [[0, 1, 2], list(range(3, 10))]
    assert [t.tolist() for t in torch.split(a, 4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [t.tolist() for t in a.split(split_size=4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_none_for_an_int_list_with_a_default_is_the_default_as_in_pytorch():
    x = torch.arange(6.0).reshape(2, 3)
    assert torch.equal(torch.roll(x, 1, None), torch.roll(x, 1))
    assert torch.equal(x.roll(1, dims=None), torch.roll(x, 1))
    with pytest.raises(TypeError, match="flip\\(\\): argument 'dims' \\(position 2\\) must be tuple of ints, not "
                                        "NoneType"):
        torch.flip(x, None)
    with pytest.raises(TypeError, match="must be tuple of ints, not NoneType"):
        torch.rot90(x, 1, dims=None)           # a default other than [] takes no None


def test_einsum_sums_an_ellipsis_the_output_leaves_out_as_pytorch():
    x = torch.arange(6.0).reshape(2, 3)
    assert torch.einsum("...i->i", x).tolist() == [3.0, 5.0, 7.0]
    assert torch.einsum("...i,...i->i", x, x).tolist() == [9.0, 17.0, 29.0]
    assert torch.einsum("b...i->b", torch.ones(2, 3, 4)).tolist() == [12.0, 12.0]
