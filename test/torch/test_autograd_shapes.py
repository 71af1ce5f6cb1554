"""Derivatives of reductions, shape and view ops, indexing and linear algebra
(tools/autograd/derivatives.yaml, section "Reductions, shapes, views, indexing, linear
algebra"): gradcheck and gradgradcheck in float64, and PyTorch's gradients at the edges (ties,
zeros, NaN, duplicate indices), whose expected values were read off PyTorch 2.13."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from gradcheck_cases import gradcheck_tests


def rand(*shape, positive=False, seed=0):
    a = np.random.default_rng(seed + 7 * len(shape)).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    return torch.from_numpy(a).requires_grad_()


def noncontig(*shape, seed=0):
    """A float64 tensor that requires grad and is a transposed view of its storage."""
    return rand(*reversed(shape), seed=seed).detach().t().requires_grad_()


def const(values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


def idx(values):
    return torch.tensor(values, dtype=torch.int64)


MASK = torch.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])

CASES = {
    # reductions
    "prod": (torch.prod, lambda: (rand(2, 3),)),
    "prod_one_zero": (torch.prod, lambda: (const([[1.5, 0.0], [2.0, -1.0]]),)),
    "prod_two_zeros": (torch.prod, lambda: (const([1.5, 0.0, 2.0, 0.0]),)),
    "prod_dim": (lambda a: a.prod(1), lambda: (noncontig(3, 4),)),
    "prod_dim_zeros_keepdim": (lambda a: a.prod(0, keepdim=True), lambda: (const([[0.0, 2.0], [3.0, 0.0], [0.0, 1.5]]),)),
    "amax": (lambda a: a.amax(1), lambda: (rand(3, 4),)),
    "amin_dims": (lambda a: torch.amin(a, (0, 2), keepdim=True), lambda: (rand(2, 3, 2),)),
    "amax_all": (lambda a: a.amax(), lambda: (rand(3, 4),)),
    "aminmax": (lambda a: sum(torch.aminmax(a, dim=0)), lambda: (rand(3, 4),)),
    "max": (lambda a: a.max(), lambda: (rand(3, 4),)),
    "min": (lambda a: a.min(), lambda: (noncontig(3, 4),)),
    "max_dim": (lambda a: a.max(1)[0], lambda: (rand(3, 4),)),
    "min_dim_keepdim": (lambda a: a.min(0, keepdim=True).values, lambda: (noncontig(3, 4),)),
    "median": (torch.median, lambda: (rand(5),)),
    "median_dim": (lambda a: a.median(1).values, lambda: (rand(3, 5),)),
    "nanmedian": (torch.nanmedian, lambda: (rand(2, 3),)),
    "nanmedian_dim": (lambda a: a.nanmedian(0).values, lambda: (rand(3, 2),)),
    "kthvalue": (lambda a: a.kthvalue(2, 1).values, lambda: (rand(3, 4),)),
    "mode": (lambda a: a.mode(1).values, lambda: (rand(3, 4),)),
    "sort": (lambda a: a.sort(1, descending=True).values, lambda: (rand(3, 4),)),
    "sort_stable": (lambda a: torch.sort(a, stable=True, dim=0).values, lambda: (noncontig(3, 4),)),
    "topk": (lambda a: a.topk(2, 1).values, lambda: (rand(3, 4),)),
    "topk_smallest": (lambda a: a.topk(2, 0, largest=False).values, lambda: (rand(3, 4),)),
    "var": (lambda a: a.var(1), lambda: (rand(3, 4),)),
    "var_all": (torch.var, lambda: (rand(3, 4),)),
    "var_correction": (lambda a: torch.var(a, (0, 2), correction=0, keepdim=True), lambda: (rand(2, 3, 2),)),
    "std": (lambda a: a.std(0), lambda: (noncontig(3, 4),)),
    "std_unbiased_false": (lambda a: a.std(unbiased=False), lambda: (rand(3, 4),)),
    "var_mean": (lambda a: torch.var_mean(a, 1)[0] * 2 + torch.var_mean(a, 1)[1], lambda: (rand(3, 4),)),
    "var_mean_var_only": (lambda a: torch.var_mean(a, 1)[0], lambda: (rand(3, 4),)),
    "var_mean_mean_only": (lambda a: torch.var_mean(a)[1], lambda: (rand(3, 4),)),
    "std_mean": (lambda a: sum(torch.std_mean(a, 0, keepdim=True)), lambda: (rand(3, 4),)),
    "logsumexp": (lambda a: a.logsumexp(1), lambda: (rand(3, 4),)),
    "logsumexp_keepdim": (lambda a: torch.logsumexp(a, (0, 1), keepdim=True), lambda: (noncontig(3, 4),)),
    "norm": (lambda a: a.norm(), lambda: (rand(3, 4),)),
    "norm_dim": (lambda a: a.norm(dim=1), lambda: (rand(3, 4),)),
    "vector_norm_1": (lambda a: torch.linalg.vector_norm(a, 1, 1), lambda: (rand(3, 4),)),
    "vector_norm_3": (lambda a: torch.linalg.vector_norm(a, 3, 0, keepdim=True), lambda: (rand(3, 4),)),
    "vector_norm_1_5": (lambda a: torch.linalg.vector_norm(a, 1.5), lambda: (rand(3, 4),)),
    "vector_norm_0_5": (lambda a: torch.linalg.vector_norm(a, 0.5, 1), lambda: (rand(3, 4),)),
    "vector_norm_inf": (lambda a: torch.linalg.vector_norm(a, float("inf"), 1), lambda: (rand(3, 4),)),
    "vector_norm_minf": (lambda a: torch.linalg.vector_norm(a, float("-inf")), lambda: (rand(3, 4),)),
    "nansum": (lambda a: torch.nansum(a, 1), lambda: (rand(3, 4),)),
    "cumsum": (lambda a: a.cumsum(1), lambda: (noncontig(3, 4),)),
    "cumprod": (lambda a: a.cumprod(1), lambda: (rand(3, 4),)),
    "cumprod_0d": (lambda a: a.cumprod(0), lambda: (const(2.0),)),
    "cumprod_one_zero": (lambda a: a.cumprod(0), lambda: (const([2.0, 0.0, 3.0]),)),
    "cumprod_zeros": (lambda a: a.cumprod(1),
                      lambda: (const([[1.5, 0.0, 2.0, -1.0], [0.0, 2.0, 0.0, 3.0], [2.0, 0.5, -1.0, 0.0]]),)),
    "cummax": (lambda a: a.cummax(1).values, lambda: (rand(3, 4),)),
    "cummin": (lambda a: a.cummin(0).values, lambda: (rand(3, 4),)),
    "logcumsumexp": (lambda a: a.logcumsumexp(1), lambda: (rand(3, 4),)),
    # shapes and views
    "split": (lambda a: a.split(2, 1)[0] * 2 + a.split(2, 1)[1], lambda: (rand(3, 4),)),
    "split_one_piece_used": (lambda a: a.split(2, 0)[1], lambda: (rand(5, 2),)),
    "split_with_sizes": (lambda a: a.split([1, 3], 1)[1], lambda: (noncontig(3, 4),)),
    "chunk": (lambda a: a.chunk(3, 0)[2], lambda: (rand(5, 2),)),
    "unbind": (lambda a: a.unbind(1)[0] - a.unbind(1)[2], lambda: (rand(2, 3),)),
    "unbind_all": (lambda a: torch.stack(a.unbind(0), 1), lambda: (rand(2, 3),)),
    "diagonal": (lambda a: a.diagonal(), lambda: (rand(3, 4),)),
    "diagonal_offset": (lambda a: a.diagonal(1), lambda: (rand(4, 3),)),
    "diagonal_negative_offset_dims": (lambda a: a.diagonal(-1, 2, 0), lambda: (rand(3, 2, 4),)),
    "diag_2d": (lambda a: torch.diag(a, 1), lambda: (rand(3, 4),)),
    "diag_1d": (lambda a: torch.diag(a, -1), lambda: (rand(3),)),
    "diag_embed": (lambda a: torch.diag_embed(a, 1, 0, 2), lambda: (rand(2, 3),)),
    "trace": (torch.trace, lambda: (rand(3, 4),)),
    "tril": (lambda a: a.tril(-1), lambda: (rand(3, 4),)),
    "triu": (lambda a: a.triu(1), lambda: (noncontig(3, 4),)),
    "flip": (lambda a: a.flip(0, 1), lambda: (rand(3, 4),)),
    "rot90": (lambda a: a.rot90(1, [0, 1]), lambda: (rand(3, 4),)),
    "roll": (lambda a: a.roll((1, -2), (0, 1)), lambda: (rand(3, 4),)),
    "roll_flat": (lambda a: a.roll(5), lambda: (rand(3, 4),)),
    "repeat": (lambda a: a.repeat(2, 1, 3), lambda: (rand(2, 3),)),
    "tile": (lambda a: a.tile((2,)), lambda: (rand(2, 3),)),
    "unfold": (lambda a: a.unfold(1, 3, 2), lambda: (rand(2, 7),)),
    "unfold_overlap": (lambda a: a.unfold(0, 3, 1), lambda: (rand(5, 2),)),
    "constant_pad_nd": (lambda a: torch.constant_pad_nd(a, (1, 2, 0, 1), 1.5), lambda: (rand(2, 3),)),
    "constant_pad_nd_crop": (lambda a: torch.constant_pad_nd(a, (-1, 1)), lambda: (rand(2, 3),)),
    "flatten": (lambda a: a.flatten(), lambda: (noncontig(3, 4),)),
    "narrow": (lambda a: a.narrow(1, 1, 2), lambda: (rand(3, 4),)),
    "movedim": (lambda a: a.movedim(0, 2), lambda: (rand(2, 3, 4),)),
    # indexing
    "gather": (lambda a: a.gather(1, idx([[0, 0, 3], [1, 2, 1]])), lambda: (rand(2, 4),)),
    "scatter": (lambda a, s: a.scatter(1, idx([[0, 2], [3, 1]]), s), lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_src_bigger": (lambda a, s: a.scatter(0, idx([[1, 0]]), s), lambda: (rand(2, 2), rand(3, 3, seed=1))),
    "scatter_value": (lambda a: a.scatter(0, idx([[1, 0, 1]]), 2.5), lambda: (rand(2, 3),)),
    "scatter_add": (lambda a, s: a.scatter_add(1, idx([[0, 0], [3, 3]]), s), lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_add_src_bigger": (lambda a, s: a.scatter_add(0, idx([[1, 0]]), s),
                               lambda: (rand(2, 2), rand(3, 3, seed=1))),
    "scatter_reduce_sum": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "sum"),
                           lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_reduce_sum_exclude": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "sum", include_self=False),
                                   lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_reduce_mean": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "mean"),
                            lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_reduce_mean_exclude": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "mean",
                                                                  include_self=False),
                                    lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_reduce_amax": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "amax"),
                            lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_reduce_amin_exclude": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "amin",
                                                                  include_self=False),
                                    lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_reduce_prod": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "prod"),
                            lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "scatter_reduce_prod_exclude": (lambda a, s: a.scatter_reduce(1, idx([[0, 0], [3, 1]]), s, "prod",
                                                                  include_self=False),
                                    lambda: (rand(2, 4), rand(2, 2, seed=1))),
    "index": (lambda a: torch.ops.aten.index.Tensor(a, [idx([2, 0, 2])]), lambda: (rand(3, 4),)),
    "index_two": (lambda a: torch.ops.aten.index.Tensor(a, [None, idx([1, 1]), idx([0, 2])]), lambda: (rand(2, 3, 4),)),
    "index_mask": (lambda a: torch.ops.aten.index.Tensor(a, [MASK]), lambda: (rand(3, 4),)),
    "getitem": (lambda a: a[idx([2, 0, 2]), 1:], lambda: (rand(3, 4),)),
    "index_put": (lambda a, v: torch.index_put(a, (idx([0, 2]),), v), lambda: (rand(3, 4), rand(4, seed=1))),
    "index_put_accumulate": (lambda a, v: torch.index_put(a, (idx([0, 0]), idx([1, 1])), v, accumulate=True),
                             lambda: (rand(3, 4), rand(2, seed=1))),
    "index_put_inplace": (lambda a, v: (a * 1).index_put_((idx([1]),), v), lambda: (rand(3, 4), rand(1, 4, seed=1))),
    "index_copy": (lambda a, s: a.index_copy(0, idx([2, 0]), s), lambda: (rand(3, 4), rand(2, 4, seed=1))),
    "index_copy_inplace": (lambda a, s: (a * 1).index_copy_(1, idx([3]), s), lambda: (rand(3, 4), rand(3, 1, seed=1))),
    "masked_fill": (lambda a: a.masked_fill(MASK, 0.5), lambda: (rand(3, 4),)),
    "masked_fill_broadcast_mask": (lambda a: a.masked_fill(MASK[0], -1.0), lambda: (rand(3, 4),)),
    "masked_fill_tensor": (lambda a, v: a.masked_fill(MASK, v), lambda: (rand(3, 4), rand(seed=1).reshape(()))),
    "masked_fill_inplace": (lambda a: (a * 1).masked_fill_(MASK, 0.0), lambda: (rand(3, 4),)),
    "masked_select": (lambda a: a.masked_select(MASK), lambda: (rand(3, 4),)),
    "masked_select_broadcast": (lambda a: a.masked_select(MASK), lambda: (rand(4),)),
    "masked_scatter": (lambda a, s: a.masked_scatter(MASK, s), lambda: (rand(3, 4), rand(2, 5, seed=1))),
    "masked_scatter_inplace": (lambda a, s: (a * 1).masked_scatter_(MASK, s), lambda: (rand(3, 4), rand(6, seed=1))),
    "take": (lambda a: a.take(idx([[0, 11], [5, 5]])), lambda: (rand(3, 4),)),
    "take_negative": (lambda a: a.take(idx([-1, 2])), lambda: (rand(3, 4),)),
    "take_along_dim": (lambda a: torch.take_along_dim(a, idx([[0, 2], [1, 1], [3, 0]]), 1), lambda: (rand(3, 4),)),
    "take_along_dim_broadcast": (lambda a: torch.take_along_dim(a, idx([[0], [2]]), 0), lambda: (rand(3, 4),)),
    "take_along_dim_flat": (lambda a: torch.take_along_dim(a, idx([3, 3, 7])), lambda: (rand(3, 4),)),
    "put": (lambda a, s: a.put(idx([1, 6]), s), lambda: (rand(3, 4), rand(2, seed=1))),
    "put_accumulate": (lambda a, s: a.put(idx([[1, 1]]), s, accumulate=True), lambda: (rand(3, 4), rand(1, 2, seed=1))),
    "put_inplace": (lambda a, s: (a * 1).put_(idx([0, -1]), s), lambda: (rand(3, 4), rand(2, seed=1))),
    "index_select": (lambda a: a.index_select(1, idx([3, 0, 3])), lambda: (rand(2, 4),)),
    "scatter_inplace": (lambda a, s: (a * 1).scatter_(1, idx([[0, 2]]), s), lambda: (rand(2, 4), rand(1, 2, seed=1))),
    "scatter_add_inplace": (lambda a, s: (a * 1).scatter_add_(0, idx([[1, 1]]), s), lambda: (rand(2, 4), rand(1, 2, seed=1))),
    "cumprod_inplace": (lambda a: (a * 1).cumprod_(1), lambda: (const([[2.0, 0.0, 3.0], [1.5, -1.0, 2.0]]),)),
    "squeeze_dims": (lambda a: a.squeeze((0, 2)), lambda: (rand(1, 3, 1),)),
    "index_add_inplace": (lambda a, s: (a * 1).index_add_(0, idx([1, 1]), s, alpha=2.0),
                          lambda: (rand(3, 2), rand(2, 2, seed=1))),
    "index_fill_inplace": (lambda a: (a * 1).index_fill_(1, idx([0, 2]), 1.5), lambda: (rand(2, 3),)),
    "index_fill_tensor": (lambda a, v: a.index_fill(1, idx([0, 2]), v), lambda: (rand(2, 3), rand(seed=1).reshape(()))),
    "index_fill_tensor_inplace": (lambda a, v: (a * 1).index_fill_(0, idx([1]), v),
                                  lambda: (rand(2, 3), rand(seed=1).reshape(()))),
    "cumsum_inplace": (lambda a: (a * 1).cumsum_(0), lambda: (rand(3, 2),)),
    # linear algebra
    "vdot": (torch.vdot, lambda: (rand(4), rand(4, seed=1))),
    "outer": (torch.outer, lambda: (rand(3), rand(4, seed=1))),
    "addmv": (lambda c, m, v: torch.addmv(c, m, v, beta=0.5, alpha=2.0), lambda: (rand(1), noncontig(3, 4), rand(4, seed=1))),
    "baddbmm": (lambda c, a, b: torch.baddbmm(c, a, b, beta=2.0, alpha=0.5),
                lambda: (rand(3), rand(2, 2, 4), rand(2, 4, 3, seed=1))),
    "addbmm": (lambda c, a, b: torch.addbmm(c, a, b, alpha=-1.0), lambda: (rand(2, 3), rand(2, 2, 4), rand(2, 4, 3, seed=1))),
    "einsum_mv": (lambda a, b: torch.einsum("ij,j->i", a, b), lambda: (rand(3, 4), rand(4, seed=1))),
    "einsum_bmm_sum": (lambda a, b: torch.einsum("bij,bjk->k", a, b), lambda: (rand(2, 3, 4), rand(2, 4, 2, seed=1))),
    "einsum_outer_only_in_one": (lambda a, b: torch.einsum("ij,k->j", a, b), lambda: (rand(2, 3), rand(4, seed=1))),
    "cross": (lambda a, b: torch.cross(a, b, dim=1), lambda: (rand(2, 3), rand(2, 3, seed=1))),
    "kron": (torch.kron, lambda: (rand(2, 2), rand(2, 3, seed=1))),
}

# gradgradcheck: cases whose backward is not twice differentiable in PyTorch either, or needs an
# op without a formula yet, are listed with the reason.
NO_GRADGRAD = {
}


test_gradcheck, test_gradgradcheck = gradcheck_tests(CASES, NO_GRADGRAD)


def test_integer_and_non_differentiable_results_do_not_require_grad():
    a = rand(3, 4)
    for out in (a.argmax(), a.max(1).indices, a.sort(1).indices, a.topk(2).indices, a.cummax(0).indices,
                a.kthvalue(2, 1).indices, a.nonzero(), torch.count_nonzero(a), a.view(torch.float32)):
        assert not out.requires_grad
    values, indices = a.max(0)
    assert values.requires_grad and not indices.requires_grad


def test_ties_share_the_gradient_as_pytorch():
    a = const([[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]])
    a.max().backward()
    assert a.grad.tolist() == [[0.0, 1 / 3, 1 / 3], [1 / 3, 0.0, 0.0]]
    b = const([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    b.amax(1).sum().backward()
    assert b.grad.tolist() == [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]]
    c = const([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    c.max(1).values.sum().backward()     # one index per row gets it all
    assert c.grad.sum(1).tolist() == [1.0, 1.0] and c.grad[1, 2].item() == 0.0


def test_edges_match_pytorch():
    a = const([2.0, 0.0, 3.0, 0.0])
    (a.cumprod(0) * torch.arange(1.0, 5.0, dtype=torch.float64)).sum().backward()
    assert a.grad.tolist() == [1.0, 22.0, 0.0, 0.0]
    b = const([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]])
    b.std(1).sum().backward()
    assert b.grad[0].tolist() == [0.0, 0.0, 0.0]
    n = const([0.0, 0.0])
    n.norm().backward()
    assert n.grad.tolist() == [0.0, 0.0]
    m = const([1.0, float("nan"), 3.0, float("nan")])
    m.max().backward()
    assert m.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
    s = const([1.0, float("nan"), 2.0])
    s.nansum().backward()
    assert s.grad.tolist() == [1.0, 0.0, 1.0]
    x = const([1.0, 2.0, 3.0])
    (x.put(idx([0, 0]), torch.tensor([7.0, 8.0], dtype=torch.float64)) * torch.tensor([1.0, 2.0, 3.0],
                                                                                     dtype=torch.float64)).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 3.0]
    t = const([1.0, 2.0, 3.0])
    t.take(idx([2, 2, -1])).sum().backward()
    assert t.grad.tolist() == [0.0, 0.0, 3.0]


def test_split_pieces_without_gradient_get_zeros_and_diag_of_a_vector_is_differentiable():
    a = rand(5, 2)
    a.split(2)[1].sum().backward()
    assert a.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    v = rand(3)
    d = torch.diag(v, 1)
    assert d.requires_grad and d.shape == (4, 4)
    d.sum().backward()
    assert v.grad.tolist() == [1.0, 1.0, 1.0]


def test_index_tensor_modified_before_backward_raises_the_version_error():
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    index = torch.tensor([0, 2, 2])
    y = x[index]
    index[0] = 4                                   # the gradient would silently go to the wrong element
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    h = x * 1
    h[index] = torch.tensor(1.0, dtype=torch.float64)
    index.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h.sum().backward()


def test_repeated_index_and_mask_gradients():
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    (x[torch.tensor([0, 2, 2])] * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 4.0, 0.0, 0.0]
    x.grad = None
    x[torch.tensor([True, False, True, False, True])].sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]
