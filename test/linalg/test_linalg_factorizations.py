"""torch.linalg's factorizations and solvers: results and errors against PyTorch 2.13
(tools/record_linalg_reference.py), values against NumPy/SciPy, and gradients by gradcheck and
gradgradcheck (symmetric inputs for the ops that read one triangle)."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from recorded import assert_matches
from tools import record_linalg_reference as record

L = torch.linalg
REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "linalg" / "linalg.json").read_text())["cases"]



@pytest.mark.parametrize("case", record.CASES)
def test_linalg_does_what_it_does_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    assert_matches(mine, ref, case, 1e-5, 1e-6)


def _random(shape, seed=0, spd=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if spd:
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    return torch.from_numpy(a)


def test_factorizations_reconstruct_their_input():
    a = _random((3, 5, 5))
    P, Lo, U = L.lu(a)
    np.testing.assert_allclose((P @ Lo @ U).numpy(), a.numpy(), atol=1e-12)
    Q, R = L.qr(_random((2, 6, 4)))
    np.testing.assert_allclose((Q @ R).numpy(), _random((2, 6, 4)).numpy(), atol=1e-12)
    U, S, Vh = L.svd(a)
    np.testing.assert_allclose((U * S.unsqueeze(-2) @ Vh).numpy(), a.numpy(), atol=1e-12)
    spd = _random((2, 4, 4), spd=True)
    values, vectors = L.eigh(spd)
    np.testing.assert_allclose((vectors * values.unsqueeze(-2) @ vectors.mT).numpy(), spd.numpy(), atol=1e-10)
    np.testing.assert_allclose(L.cholesky(spd, upper=True).numpy(),
                               np.swapaxes(np.linalg.cholesky(spd.numpy()), -1, -2))


def test_matrix_exp_is_scipys_expm():
    a = _random((3, 4, 4), 2) * 3
    np.testing.assert_allclose(L.matrix_exp(a).numpy(), np.stack([scipy.linalg.expm(m) for m in a.numpy()]),
                               rtol=1e-10, atol=1e-10)


def test_lstsq_solves_least_squares_like_numpy():
    a, b = _random((6, 3), 3), _random((6, 2), 4)
    np.testing.assert_allclose(L.lstsq(a, b).solution.numpy(), np.linalg.lstsq(a.numpy(), b.numpy(), rcond=None)[0],
                               atol=1e-12)


def test_lu_solve_matches_solve_for_every_side_and_adjoint():
    a, b = _random((2, 4, 4), 5), _random((2, 4, 3), 6)
    LU, pivots = L.lu_factor(a)
    np.testing.assert_allclose(L.lu_solve(LU, pivots, b).numpy(), L.solve(a, b).numpy(), atol=1e-12)
    np.testing.assert_allclose(L.lu_solve(LU, pivots, b, adjoint=True).numpy(), L.solve(a.mT, b).numpy(), atol=1e-12)
    c = b.mT.contiguous()
    np.testing.assert_allclose(L.lu_solve(LU, pivots, c, left=False).numpy(), L.solve(a, c, left=False).numpy(),
                               atol=1e-12)


def _sym(a):
    return a + a.mT


GRADIENTS = {
    "inv": (lambda a: L.inv(a), (2, 3, 3)),
    "det": (lambda a: L.det(a), (2, 3, 3)),
    "slogdet": (lambda a: L.slogdet(a).logabsdet, (3, 3)),
    "cholesky": (lambda a: L.cholesky(_sym(a) + 8 * torch.eye(3, dtype=a.dtype)), (2, 3, 3)),
    "cholesky_upper": (lambda a: L.cholesky(_sym(a) + 8 * torch.eye(3, dtype=a.dtype), upper=True), (3, 3)),
    "eigh": (lambda a: (lambda r: (r.eigenvalues, r.eigenvectors.abs()))(L.eigh(_sym(a))), (3, 3)),
    "svd_reduced_tall": (lambda a: (lambda r: (r.U.abs(), r.S, r.Vh.abs()))(L.svd(a, full_matrices=False)), (4, 3)),
    "svd_reduced_wide": (lambda a: (lambda r: (r.U.abs(), r.S, r.Vh.abs()))(L.svd(a, full_matrices=False)), (2, 4)),
    "qr_tall": (lambda a: L.qr(a), (4, 3)),
    "qr_wide": (lambda a: L.qr(a), (3, 5)),
    "solve": (lambda a: L.solve(a, torch.ones(3, 2, dtype=a.dtype)), (2, 3, 3)),
    "solve_right_vector": (lambda a: L.solve(a, torch.ones(3, dtype=a.dtype)), (3, 3)),
    "solve_triangular": (lambda a: L.solve_triangular(a, torch.ones(3, 2, dtype=a.dtype), upper=False), (3, 3)),
    "solve_triangular_right_unit": (lambda a: L.solve_triangular(a, torch.ones(2, 3, dtype=a.dtype), upper=True,
                                                                 left=False, unitriangular=True), (3, 3)),
    "lu_factor": (lambda a: L.lu_factor(a).LU, (3, 3)),
    "lu": (lambda a: L.lu(a)[1:], (3, 3)),
    "lstsq": (lambda a: L.lstsq(a, torch.ones(5, 2, dtype=a.dtype)).solution, (5, 3)),
    "pinv": (lambda a: L.pinv(a), (4, 3)),
    "matrix_exp": (lambda a: L.matrix_exp(a), (3, 3)),
}


@pytest.mark.parametrize("name", GRADIENTS)
def test_factorization_gradients_pass_gradcheck_and_gradgradcheck(name):
    fn, shape = GRADIENTS[name]
    a = _random(shape, 7)
    if shape[-1] == shape[-2]:
        a = a + 3 * torch.eye(shape[-1], dtype=a.dtype)      # well conditioned, distinct eigenvalues
    a.requires_grad_()
    assert torch.autograd.gradcheck(fn, (a,))
    assert torch.autograd.gradgradcheck(fn, (a,))


def test_det_gradient_of_a_singular_matrix_is_its_cofactor_matrix():
    a = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(L.det, (a,))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5), batch=st.integers(0, 3), seed=st.integers(0, 2**16))
def test_solve_and_inv_agree_with_numpy_on_any_batch(n, batch, seed):
    a = _random((batch, n, n), seed) + n * torch.eye(n, dtype=torch.float64)
    b = _random((batch, n, 2), seed + 1)
    np.testing.assert_allclose(L.solve(a, b).numpy(), np.linalg.solve(a.numpy(), b.numpy()), atol=1e-10)
    np.testing.assert_allclose(L.inv(a).numpy(), np.linalg.inv(a.numpy()), atol=1e-10)


@pytest.mark.cuda
def test_decompositions_on_cuda_tensors_without_a_kernel_are_refused_by_name():
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA (or the emulator)")
    with pytest.raises(NotImplementedError, match="linalg_inv_ex"):
        L.inv(torch.eye(4, device="cuda"))


@pytest.mark.parametrize("fn", [
    lambda: L.inv(torch.zeros(2, 0, 0)), lambda: L.lu_factor(torch.zeros(2, 0, 0)).LU,
    lambda: L.lu(torch.zeros(2, 0, 0)).P, lambda: L.solve(torch.randn(3, 3), torch.zeros(3, 0)),
    lambda: L.solve_triangular(torch.zeros(0, 0), torch.zeros(0, 2), upper=True),
    lambda: L.lstsq(torch.zeros(0, 3, 3), torch.zeros(0, 3, 2)).solution, lambda: L.matrix_power(torch.zeros(0, 0), -2),
])
def test_empty_matrices_give_empty_results(fn):
    assert fn().numel() == 0


def test_upper_cholesky_reads_the_upper_triangle():
    s = _random((4, 4), 9, spd=True)
    assert torch.allclose(L.cholesky(s.triu(), upper=True), L.cholesky(s, upper=True))


def test_matrix_exp_of_infinite_input_is_nan_not_an_error():
    assert torch.isnan(L.matrix_exp(torch.tensor([[math.inf, 0.0], [0.0, 1.0]]))).all()


def test_geqrf_factors_rebuild_the_input_through_householder_product():
    a = _random((2, 5, 3), 4)
    factors, tau = torch.geqrf(a)
    q = L.householder_product(factors, tau)
    np.testing.assert_allclose((q @ factors.triu()[..., :3, :]).numpy(), a.numpy(), atol=1e-12)
    np.testing.assert_allclose(torch.orgqr(factors, tau).numpy(), q.numpy())


@pytest.mark.parametrize("shape,k", [((4, 3), 3), ((3, 3), 2), ((2, 4, 2), 2)])
def test_householder_product_gradients_pass_gradcheck_and_gradgradcheck(shape, k):
    factors = _random(shape, 5).requires_grad_()
    tau = (_random(shape[:-2] + (k,), 6) * 0.5 + 1).requires_grad_()
    assert torch.autograd.gradcheck(L.householder_product, (factors, tau))
    assert torch.autograd.gradgradcheck(L.householder_product, (factors, tau))


def test_geqrf_has_no_derivative_as_in_pytorch():
    a = _random((3, 3)).requires_grad_()
    with pytest.raises(RuntimeError, match="derivative for aten::geqrf is not implemented"):
        torch.geqrf(a)[0].sum().backward()


@pytest.mark.cuda
def test_householder_product_runs_on_cuda_and_geqrf_is_refused_by_name():
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA (or the emulator)")
    factors, tau = torch.geqrf(_random((4, 3), 8))
    np.testing.assert_allclose(L.householder_product(factors.cuda(), tau.cuda()).cpu().numpy(),
                               L.householder_product(factors, tau).numpy(), atol=1e-12)
    with pytest.raises(NotImplementedError, match="geqrf"):
        torch.geqrf(torch.eye(3, device="cuda"))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_gradients_reach_the_packed_factors(left, adjoint):
    a = _random((2, 3, 3), 9) + 3 * torch.eye(3, dtype=torch.float64)
    LU, pivots = L.lu_factor(a)
    LU = LU.detach().requires_grad_()
    b = _random((2, 3, 2) if left else (2, 2, 3), 10).requires_grad_()
    fn = lambda lu, rhs: L.lu_solve(lu, pivots, rhs, left=left, adjoint=adjoint)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (LU, b))
    assert torch.autograd.gradgradcheck(fn, (LU, b))


def test_householder_product_orgqr_and_geqrf_write_into_out():
    factors, tau = torch.geqrf(_random((4, 3), 11))
    out = torch.empty(0, dtype=torch.float64)
    assert L.householder_product(factors, tau, out=out) is out
    np.testing.assert_array_equal(out.numpy(), L.householder_product(factors, tau).numpy())
    assert torch.orgqr(factors, tau, out=out) is out
    a, t = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.float64)
    result = torch.geqrf(_random((4, 3), 11), out=(a, t))
    assert result[0] is a and result[1] is t and torch.equal(a, factors) and torch.equal(t, tau)
