"""Forward-mode (jvp) helpers for the `result:` formulas of tools/autograd/derivatives.yaml: PyTorch's
FunctionsManual.cpp jvp functions, by the same names. Primals come in as X_p, tangents as X_t; an absent
optional tensor is None. Every helper is written in differentiable ops, so reverse mode differentiates
through a tangent (jvp of grad, grad of jvp); upstream's in-place updates are out of place here."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from torch.csrc.autograd.functions_manual.linalg_factor import (_identity_like, _off_diagonal_reciprocal_difference,
                                                                check_qr_differentiable, linalg_det_backward)
from torch.csrc.autograd.functions_manual.nn import _norm_stats
from torch.csrc.autograd.functions_manual.pointwise import conj, where
from torch.csrc.autograd.functions_manual.reductions import (_exclusive_cumprod, _reduced_dims, restore_reduced_dims,
                                                             var_backward)
from torch.csrc.autograd.functions_manual.shapes import _narrow_to

__all__ = ["handle_r_to_c", "apply_loss_reduction", "logsumexp_jvp", "safe_logsumexp_jvp", "cat_jvp", "stack_jvp",
           "clamp_jvp", "amaxamin_jvp", "aminmax_jvp", "evenly_read_jvp", "gather_with_keepdimed_indices", "var_jvp",
           "std_jvp", "mean_jvp", "norm_jvp", "linalg_vector_norm_jvp", "cumprod_jvp", "logcumsumexp_jvp",
           "scatter_reduce_jvp", "constant_pad_nd_jvp", "einsum_jvp", "polar_jvp", "convolution_jvp",
           "batch_norm_jvp", "layer_norm_jvp", "group_norm_jvp", "group_norm_mean_jvp", "group_norm_invstd_jvp",
           "nll_loss_forward", "nll_loss2d_forward", "linalg_det_jvp", "slogdet_jvp", "linalg_solve_jvp",
           "linalg_solve_triangular_forward_AD", "cholesky_jvp", "linalg_eig_jvp", "linalg_svd_jvp", "linalg_qr_jvp",
           "pinv_jvp", "linalg_lstsq_solution_jvp", "linalg_lu_jvp", "lu_factor_ex_jvp", "linalg_lu_solve_jvp"]

_arange = find_operator("arange")
_cat = find_operator("cat")
_complex = find_operator("complex")
_constant_pad_nd = find_operator("constant_pad_nd")
_convolution = find_operator("convolution")
_einsum = find_operator("einsum")
_lu_factor_ex = find_operator("linalg_lu_factor_ex")
_lu_solve = find_operator("linalg_lu_solve")
_lu_unpack = find_operator("lu_unpack")
_ones_like = find_operator("ones_like")
_pinv = find_operator("linalg_pinv.atol_rtol_float")
_solve_ex = find_operator("linalg_solve_ex")
_solve_triangular = find_operator("linalg_solve_triangular")
_stack = find_operator("stack")
_zeros_like = find_operator("zeros_like")

# nll_loss*_forward are linear in self: the first output of the op on the tangent is their jvp
nll_loss_forward = find_operator("nll_loss_forward")
nll_loss2d_forward = find_operator("nll_loss2d_forward")


def handle_r_to_c(like: Any, gradient: Any) -> Any:
    """The real part of a complex tangent whose output (a tensor, or its dtype) is real."""
    dtype = getattr(like, "dtype", like)
    return gradient.real if gradient.dtype.is_complex and not dtype.is_complex else gradient


def apply_loss_reduction(unreduced: Any, reduction: int) -> Any:
    if reduction == 1:          # Mean
        return unreduced.mean()
    return unreduced.sum() if reduction == 2 else unreduced


# ---- softmax, reductions, scans ----

def logsumexp_jvp(self_p: Any, self_t: Any, dim: Any, keepdim: bool) -> Any:
    """The tangents averaged with weights exp(x) / sum exp(x); the shift by the maximum only keeps
    exp finite (it cancels, so it is detached)."""
    dims = _reduced_dims(dim, self_p.dim())
    shift = self_p.real.amax(dims, keepdim=True).detach() if self_p.numel() > 0 else 0.0
    self_p_exp = (self_p - shift).exp()
    return (self_p_exp * self_t).sum(dims, keepdim) / self_p_exp.sum(dims, keepdim)


def safe_logsumexp_jvp(self_p: Any, self_t: Any, dim: Any, keepdim: bool) -> Any:
    """logsumexp_jvp, 0 on the rows that are all -inf (_safe_softmax's rows of zeros); those rows are
    computed on zeros, since their 0 / 0 would give reverse mode NaNs through `where`."""
    masked_rows = self_p == float("-inf")
    for d in _reduced_dims(dim, self_p.dim()):
        masked_rows = masked_rows.all(d, keepdim=True)
    lse_jvp = logsumexp_jvp(where(masked_rows, 0.0, self_p), self_t, dim, keepdim)
    return where(masked_rows.reshape(lse_jvp.shape), 0.0, lse_jvp)


def cat_jvp(tensors_t: Any, dim: int) -> Any:
    return _cat(list(tensors_t), dim)


def stack_jvp(tensors_t: Any, dim: int) -> Any:
    return _stack(list(tensors_t), dim)


def clamp_jvp(self_p: Any, self_t: Any, min_p: Any, min_t: Any, max_p: Any, max_t: Any) -> Any:
    """The tangent of whichever of self, min and max the output took (max wins where min > max)."""
    if min_p is not None and max_p is not None:
        return where(min_p > max_p, max_t, where(self_p < min_p, min_t, where(self_p > max_p, max_t, self_t)))
    if min_p is not None:
        return where(self_p > min_p, self_t, min_t)
    if max_p is not None:
        return where(self_p < max_p, self_t, max_t)
    return self_t


def amaxamin_jvp(x: Any, dx: Any, result: Any, dim: Any, keepdim: bool) -> Any:
    """The mean of the tangents at the positions that reach the extreme (as the backward shares it)."""
    dims = _reduced_dims(dim, x.dim())
    mask = x == restore_reduced_dims(result, dim, keepdim, x.dim())
    return where(mask, dx, 0.0).sum(dims, keepdim) / mask.sum(dims, keepdim)


def aminmax_jvp(self_p: Any, self_t: Any, result: Any, dim: Any, keepdim: bool) -> Any:
    return amaxamin_jvp(self_p, self_t, result, None if dim is None else [dim], keepdim)


def evenly_read_jvp(fw_grad: Any, input: Any, value: Any) -> Any:
    """max()/min()/median() of all elements: the mean of the tangents of the elements equal to it."""
    mask = input == value
    return (mask * (fw_grad / mask.sum())).sum()


def gather_with_keepdimed_indices(input: Any, dim: int, indices: Any, keepdim: bool) -> Any:
    if keepdim or input.dim() == 0:
        return input.gather(dim, indices)
    return input.gather(dim, indices.unsqueeze(dim)).squeeze(dim)


def var_jvp(self_p: Any, self_t: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    dims = _reduced_dims(dim, self_p.dim())
    return var_backward(conj(self_t), self_p, dim, correction, True).sum(dims, keepdim).real


def std_jvp(self_p: Any, self_t: Any, std: Any, dim: Any, correction: Any, keepdim: bool) -> Any:
    """d std = d var / (2 std), 0 where std is 0 (as the backward)."""
    return where(std == 0, 0.0, var_jvp(self_p, self_t, dim, correction, keepdim) / (2.0 * std))


def mean_jvp(self_t: Any, dim: Any, keepdim: bool) -> Any:
    return self_t.mean(_reduced_dims(dim, self_t.dim()), keepdim)


def norm_jvp(self_p: Any, self_t: Any, p: Any, norm: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """linalg_vector_norm / norm: upstream's cases (0, 1, 2, inf, p < 1, p < 2, p >= 2); 0 where the
    norm is 0."""
    p = 2.0 if p is None else float(p)
    ndim = self_p.dim()
    dims = _reduced_dims(dim, ndim)
    if p == 0.0:
        return _zeros_like(norm)
    # the real part of sgn(x) conj(t): the rate |x| changes at, for real and complex x
    abs_t = (self_p.sgn() * conj(self_t)).real
    if p == 1.0:
        return abs_t.sum(dims, keepdim)
    if p == 2.0:
        return where(norm == 0, 0.0, (self_p * conj(self_t)).real.sum(dims, keepdim) / norm)
    if math.isinf(p):
        full_norm = restore_reduced_dims(norm, dim, keepdim, ndim)
        is_max = ((self_p.abs() == full_norm) | (self_p.isnan() & full_norm.isnan())).to(norm.dtype)
        return (abs_t * is_max / is_max.sum(dims, keepdim=True)).sum(dims, keepdim)
    if p < 1.0:
        return (where(self_p == 0, 0.0, self_p.abs().pow(p - 1)) * abs_t).sum(dims, keepdim) * norm.pow(1 - p)
    if p < 2.0:
        sumpow_t = (self_p.abs().pow(p - 1) * abs_t).sum(dims, keepdim)
    else:
        sumpow_t = (self_p.abs().pow(p - 2) * (self_p * conj(self_t)).real).sum(dims, keepdim)
    return where(norm == 0, 0.0, sumpow_t / norm.pow(p - 1))


def linalg_vector_norm_jvp(self_p: Any, self_t: Any, ord: Any, norm: Any, dim: Any, keepdim: bool) -> Any:
    return norm_jvp(self_p, self_t, ord, norm, dim, keepdim)


def cumprod_jvp(self_t: Any, self_p: Any, result: Any, dim: int) -> Any:
    """dy_k = sum_{j<=k} t_j prod_{i<=k, i!=j} x_i: y_k sum_{j<=k} t_j / x_j without zeros; with zeros,
    sum_j E_j t_j prod_{j<i<=k} x_i (E_j the product before j) from an (n, n) cumulative product,
    upstream's zero masks replaced by this polynomial so that reverse mode through it is exact too
    (as cumprod_backward)."""
    if self_p.dim() == 0:
        return self_t.clone()
    if not self_p._is_batched() and not bool((self_p == 0).any()):     # (under vmap: the exact form for all)
        return (self_t / self_p).cumsum(dim) * result
    d = dim % self_p.dim()
    x, t = self_p.movedim(d, -1), self_t.movedim(d, -1)
    positions = _arange(x.shape[-1], device=x.device)
    after = positions.unsqueeze(0) > positions.unsqueeze(1)                  # [j, i]: i > j
    rows = where(after, x.unsqueeze(-2), 1.0).cumprod(-1)                     # [j, k]: prod_{j<i<=k} x_i
    within = where(positions.unsqueeze(0) >= positions.unsqueeze(1), rows, 0.0)   # k >= j only
    return ((_exclusive_cumprod(x, -1) * t).unsqueeze(-1) * within).sum(-2).movedim(-1, d)


def logcumsumexp_jvp(self_p: Any, self_t: Any, dim: int) -> Any:
    """cumsum(exp(x) t) / cumsum(exp(x)), shifted by the slice's maximum (real inputs) so that exp stays
    finite; upstream's 1e-13 keeps the all -inf prefixes finite."""
    shift = self_p.amax(dim, keepdim=True).detach() if not self_p.dtype.is_complex and self_p.numel() else 0.0
    self_p_exp = (self_p - shift).exp()
    return (self_p_exp * self_t).cumsum(dim) / (self_p_exp.cumsum(dim) + 1e-13)


def scatter_reduce_jvp(self_p: Any, self_t: Any, dim: int, index: Any, src_p: Any, src_t: Any, reduce: str,
                       include_self: bool, result: Any) -> Any:
    """sum and mean are linear; amax/amin: the mean of the tangents of the values equal to the result; prod: the
    partial derivatives times the tangents, summed per group."""
    if reduce in ("sum", "mean"):
        return self_t.scatter_reduce(dim, index, src_t, reduce, include_self=include_self)
    if reduce in ("amax", "amin"):
        src_p, src_t = _narrow_to(src_p, index.shape), _narrow_to(src_t, index.shape)   # src may exceed index
        mask_self = self_p == result
        mask_src = src_p == result.gather(dim, index)
        count = mask_self.to(self_t.dtype).scatter_reduce(dim, index, mask_src.to(self_t.dtype), "sum",
                                                          include_self=include_self)
        total = where(mask_self, self_t, 0.0).scatter_reduce(dim, index, where(mask_src, src_t, 0.0), "sum",
                                                              include_self=include_self)
        return total / count
    # prod (where upstream gives no tangent at all): each output depends on its own group only, so the tangent is
    # the sum of the group's partial derivatives (the backward's, for a gradient of ones) times their tangents
    from torch.csrc.autograd.functions_manual.indexing import scatter_reduce_backward
    partial_self, partial_src = scatter_reduce_backward(result.new_ones(result.shape), self_p, dim, index, src_p,
                                                        reduce, include_self, result)
    src_t = _narrow_to(src_t, index.shape)
    return partial_self * self_t + (partial_src * src_t).new_zeros(result.shape).scatter_add(dim, index,
                                                                                           partial_src * src_t)


# ---- shapes, products, complex numbers ----

def constant_pad_nd_jvp(self_t: Any, pad: Any) -> Any:
    return _constant_pad_nd(self_t, pad, 0)


def einsum_jvp(equation: str, tensors_p: Any, tensors_t: Any, path: Any = None) -> Any:
    """einsum is linear in each operand: the sum of the einsums with one operand replaced by its tangent."""
    total = None
    for i, tangent in enumerate(tensors_t):
        operands = list(tensors_p)
        operands[i] = tangent
        term = _einsum(equation, operands, path=path)
        total = term if total is None else total + term
    return total


def polar_jvp(abs_p: Any, abs_t: Any, angle_p: Any, angle_t: Any) -> Any:
    cos, sin = angle_p.cos(), angle_p.sin()
    return _complex(abs_t * cos - angle_t * abs_p * sin, abs_t * sin + angle_t * abs_p * cos)


def convolution_jvp(input_p: Any, input_t: Any, weight_p: Any, weight_t: Any, bias_p: Any, bias_t: Any,
                    stride: Any, padding: Any, dilation: Any, transposed: bool, output_padding: Any,
                    groups: int) -> Any:
    """Bilinear in (input, weight), linear in bias."""
    args = (stride, padding, dilation, transposed, output_padding, groups)
    return _convolution(input_t, weight_p, None, *args) + _convolution(input_p, weight_t, bias_t, *args)


# ---- normalisations: x_hat = (x - mean) * invstd over dims, then the affine map. The statistics are
# recomputed from the input where the op's saved ones are not differentiable outputs (layer and batch
# norm), so that reverse mode through the jvp sees them move with the input (as their backward does).

def _invstd_jvp(input_p: Any, input_t: Any, mean_p: Any, invstd_p: Any, dims: list[int], numel: int,
                keepdim: bool) -> Any:
    """The jvp of 1 / sqrt(biased var + eps): -invstd^3 mean((t - mean(t)) (x - mean))."""
    centred_t = input_t - input_t.mean(dims, keepdim=True)
    return (-invstd_p.pow(3) * centred_t * (input_p - mean_p)).sum(dims, keepdim) / numel


def _norm_jvp(input_p: Any, input_t: Any, mean_p: Any, invstd_p: Any, dims: list[int], numel: int) -> Any:
    invstd_t = _invstd_jvp(input_p, input_t, mean_p, invstd_p, dims, numel, True)
    return (input_t - input_t.mean(dims, keepdim=True)) * invstd_p + (input_p - mean_p) * invstd_t


def _affine_jvp(normalized_p: Any, normalized_t: Any, weight_p: Any, weight_t: Any, bias_t: Any) -> Any:
    out = normalized_t
    if weight_p is not None:
        out = out * weight_p + normalized_p * weight_t
    return out if bias_t is None else out + bias_t


def _reshape_optional(t: Any, shape: Any) -> Any:
    return None if t is None else t.reshape(shape)


def batch_norm_jvp(input_p: Any, input_t: Any, weight_p: Any, weight_t: Any, bias_p: Any, bias_t: Any,
                   running_mean: Any, running_var: Any, train: bool, eps: float) -> Any:
    """Training: the batch statistics move with the input; evaluation: the running ones are constants."""
    dims = [d for d in range(input_t.dim()) if d != 1]
    view_size = [s if d == 1 else 1 for d, s in enumerate(input_t.shape)]
    if train:
        mean_p, invstd_p, _ = _norm_stats(input_p, dims, eps)
        result_t = _norm_jvp(input_p, input_t, mean_p, invstd_p, dims, math.prod(input_t.shape[d] for d in dims))
    else:
        mean_p, invstd_p = running_mean.reshape(view_size), (running_var + eps).rsqrt().reshape(view_size)
        result_t = input_t * invstd_p
    result_p = (input_p - mean_p) * invstd_p if weight_p is not None else None
    return _affine_jvp(result_p, result_t, _reshape_optional(weight_p, view_size),
                       _reshape_optional(weight_t, view_size), _reshape_optional(bias_t, view_size))


def layer_norm_jvp(input_p: Any, input_t: Any, weight_p: Any, weight_t: Any, bias_p: Any, bias_t: Any,
                   normalized_shape: Any, eps: float) -> Any:
    axis = input_t.dim() - len(normalized_shape)
    shape = list(input_t.shape)
    dims = list(range(axis, len(shape)))
    affine_size = [1] * axis + shape[axis:]
    mean_p, invstd_p, result_p = _norm_stats(input_p, dims, eps)
    result_t = _norm_jvp(input_p, input_t, mean_p, invstd_p, dims, math.prod(shape[axis:]))
    return _affine_jvp(result_p, result_t, _reshape_optional(weight_p, affine_size),
                       _reshape_optional(weight_t, affine_size), _reshape_optional(bias_t, affine_size))


def _group_view(t: Any, groups: int) -> Any:
    """(N, C, *) as (1, N * groups, rest): each group a channel of a batch norm."""
    rows = t.shape[0] * groups
    return t.reshape(1, rows, t.numel() // rows if rows else 1)


def group_norm_jvp(input_p: Any, input_t: Any, weight_p: Any, weight_t: Any, bias_p: Any, bias_t: Any,
                   saved_mean: Any, saved_invstd: Any, groups: int) -> Any:
    """The saved statistics are differentiable outputs of native_group_norm: used as they are."""
    grouped_p, grouped_t = _group_view(input_p, groups), _group_view(input_t, groups)
    stats_size = [1, grouped_p.shape[1], 1]
    mean_p, invstd_p = saved_mean.reshape(stats_size), saved_invstd.reshape(stats_size)
    result_t = _norm_jvp(grouped_p, grouped_t, mean_p, invstd_p, [0, 2], grouped_p.shape[2]).reshape(input_p.shape)
    result_p = ((grouped_p - mean_p) * invstd_p).reshape(input_p.shape) if weight_p is not None else None
    affine_size = [1, input_p.shape[1]] + [1] * (input_p.dim() - 2)
    return _affine_jvp(result_p, result_t, _reshape_optional(weight_p, affine_size),
                       _reshape_optional(weight_t, affine_size), _reshape_optional(bias_t, affine_size))


def group_norm_mean_jvp(input_t: Any, mean_p: Any, groups: int) -> Any:
    return _group_view(input_t, groups).mean([2]).reshape(mean_p.shape)


def group_norm_invstd_jvp(input_p: Any, input_t: Any, mean_p: Any, invstd_p: Any, groups: int) -> Any:
    grouped_p, grouped_t = _group_view(input_p, groups), _group_view(input_t, groups)
    stats_size = [1, grouped_p.shape[1], 1]
    invstd_t = _invstd_jvp(grouped_p, grouped_t, mean_p.reshape(stats_size), invstd_p.reshape(stats_size), [2],
                           grouped_p.shape[2], False)
    return invstd_t.reshape(invstd_p.shape)


# ---- linear algebra (upstream's derivations are in FunctionsManual.cpp, next to each function) ----

def _is_vector_rhs(A: Any, B: Any) -> bool:
    """PyTorch's linalg_solve_is_vector_rhs: B is a (batch of) vector(s), not of matrices."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _trace(M: Any) -> Any:
    return M.diagonal(0, -2, -1).sum(-1)


def linalg_det_jvp(A_p: Any, A_t: Any, det: Any) -> Any:
    """d det = tr(adj(A) dA) = sum(C * dA), C the cofactor matrix: the backward's gradient for a unit
    cotangent, which is exact at singular A too (upstream's det tr(A^-1 dA) gives 0 there)."""
    cofactors = conj(linalg_det_backward(_ones_like(det), det, A_p))
    return (cofactors * A_t).sum([-2, -1])


def slogdet_jvp(A_p: Any, A_t: Any, sign: Any) -> tuple[Any, Any]:
    """(d sign, d logabsdet) = (i Im(tr(A^-1 dA)) sign, Re(tr(A^-1 dA))); sign is constant for real A."""
    LU, pivots, _ = _lu_factor_ex(A_p)
    trace = _trace(_lu_solve(LU, pivots, A_t))
    if A_p.dtype.is_complex:
        return trace.imag * sign * 1j, trace.real
    return _zeros_like(sign), trace


def linalg_solve_jvp(A_t: Any, B_t: Any, X: Any, A_p: Any, left: bool) -> Any:
    """dX = A^-1 (dB - dA X) (left), (dB - X dA) A^-1 (right)."""
    vector_case = _is_vector_rhs(A_p, X)
    X_ = X.unsqueeze(-1) if vector_case else X
    dB_ = B_t.unsqueeze(-1) if vector_case else B_t
    dX_ = _solve_ex(A_p, dB_ - (A_t.matmul(X_) if left else X_.matmul(A_t)), left=left)[0]
    return dX_.squeeze(-1) if vector_case else dX_


def linalg_solve_triangular_forward_AD(A_t: Any, B_t: Any, A: Any, X: Any, upper: bool, left: bool,
                                       unitriangular: bool) -> Any:
    """A^-1 (dB - dA X), dA restricted to the triangle the solver reads."""
    proj_A_t = A_t.triu(int(unitriangular)) if upper else A_t.tril(-int(unitriangular))
    X_t = B_t - (proj_A_t.matmul(X) if left else X.matmul(proj_A_t))
    return _solve_triangular(A, X_t, upper=upper, left=left, unitriangular=unitriangular)


def cholesky_jvp(dA: Any, L: Any, upper: bool) -> Any:
    """dL = L pi(L^-1 dA L^-H), pi(X) = tril(X) with its diagonal halved (dA Hermitian)."""
    L_ = L.mH if upper else L
    dL = _solve_triangular(L_, dA, upper=False, left=True)
    dL = _solve_triangular(L_.mH, dL, upper=True, left=False)
    dL = L_.matmul(dL.tril() - (0.5 * dL.diagonal(0, -2, -1)).diag_embed())
    return dL.mH if upper else dL


def linalg_eig_jvp(dA: Any, L: Any, V: Any, is_hermitian: bool) -> tuple[Any, Any]:
    """Hermitian A (linalg_eigh; dA Hermitian): dP = V^H dA V, dL = Re diag(dP),
    dV = V (dP / E) off the diagonal, E_ij = L_j - L_i."""
    if not is_hermitian:
        raise NotImplementedError("linalg_eig_jvp: only the Hermitian case (linalg_eigh) is implemented in Ember")
    dP = V.mH.matmul(dA).matmul(V)
    dL = dP.diagonal(0, -2, -1)
    dL = dL.real if dL.dtype.is_complex else dL
    E = _off_diagonal_reciprocal_difference(L)      # 1 on the diagonal: no 0 / 0 there, for reverse mode
    return dL, V.matmul(dP / E * (1 - _identity_like(E)))


def linalg_svd_jvp(dA: Any, U_: Any, S: Any, Vh_: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
    """Upstream's: with dP = U^H dA V, dS = Re diag(dP), dX = dP - diag(dS) and E_jk = S_k^2 - S_j^2,
    dU = U (sym(dX S) / E + i Im diag(dX) / 2S) (+ (I - U U^H) dA V S^-1 when m > n),
    dVh = (-sym(S dX) / E + i Im diag(dX) / 2S) Vh (+ S^-1 U^H dA (I - V V^H) when m < n);
    the extra columns of full U (rows of full Vh) get zero tangents."""
    m, n, k = dA.shape[-2], dA.shape[-1], S.shape[-1]
    U = U_[..., :k] if full_matrices else U_
    Vh = Vh_[..., :k, :] if full_matrices else Vh_
    V = Vh.mH
    is_complex = dA.dtype.is_complex
    dP = U.mH.matmul(dA.matmul(V)) if m < n else U.mH.matmul(dA).matmul(V)
    dS = dP.diagonal(0, -2, -1).real if is_complex else dP.diagonal(0, -2, -1)
    dP = dP - dS.diag_embed()
    E = _off_diagonal_reciprocal_difference(S * S)

    def sym(X: Any) -> Any:
        return X + X.mH

    dU_inner = sym(dP * S.unsqueeze(-2)) / E
    dVh_inner = sym(dP * (-S).unsqueeze(-1)) / E
    if is_complex:
        imaginary_diagonal = (dP.diagonal(0, -2, -1) / (2.0 * S)).diag_embed()
        dU_inner, dVh_inner = dU_inner + imaginary_diagonal, dVh_inner + imaginary_diagonal
    dU = U.matmul(dU_inner)
    dVh = dVh_inner.matmul(Vh)
    if m > n:
        dAVSinv = dA.matmul(V / S.unsqueeze(-2))
        dU = dU + dAVSinv - U.matmul(U.mH.matmul(dAVSinv))
        if full_matrices:
            dU = _cat([dU, _zeros_like(U_[..., k:])], -1)
    if m < n:
        UHdASinv = (U.mH / S.unsqueeze(-1)).matmul(dA)
        dVh = dVh + UHdASinv - UHdASinv.matmul(V).matmul(Vh)
        if full_matrices:
            dVh = _cat([dVh, _zeros_like(Vh_[..., k:, :])], -2)
    return dU, dS, dVh


def linalg_qr_jvp(dA: Any, Q: Any, R: Any, mode: str) -> tuple[Any, Any]:
    """m >= n: dR = syminv(sym(Q^H dA R^-1)) R, dQ = dA R^-1 - Q dR R^-1; m < n: dQ = Q
    trilIminv(trilIm(Q^H dA_1 R_1^-1)), dR = Q^H dA - Q^H dQ R (A_1, R_1: the leading m x m blocks)."""
    check_qr_differentiable(dA, mode)
    m, n = dA.shape[-2], dA.shape[-1]
    if m >= n:
        dARinv = _solve_triangular(R, dA, upper=True, left=False)
        X = Q.mH.matmul(dARinv)
        X = X + X.mH
        dR = X.triu() - (0.5 * X.diagonal(0, -2, -1)).diag_embed()     # syminv: sym's inverse on triangles
        return dARinv - Q.matmul(dR), dR.matmul(R)
    QHdA = Q.mH.matmul(dA)
    X = _solve_triangular(R[..., :m], QHdA[..., :m], upper=True, left=False)
    if X.dtype.is_complex:      # trilIm, then its inverse on skew-Hermitian matrices
        X = X.tril() - X.diagonal(0, -2, -1).real.diag_embed()
        X = X - X.mH
        X = X - (0.5 * X.diagonal(0, -2, -1)).diag_embed()
    else:
        X = X.tril(-1)
        X = X - X.mT
    return Q.matmul(X), QHdA - X.matmul(R)


def pinv_jvp(A: Any, pinvA: Any, dA: Any) -> Any:
    """dA+ = -A+ dA A+ + (I - A+ A) dA^H A+^H A+ + A+ A+^H dA^H (I - A A+) (Golub and Pereyra 1973)."""
    m, n = A.shape[-2], A.shape[-1]
    dAh, pinvAh = dA.mH, pinvA.mH
    if m <= n:
        K = pinvAh.matmul(dAh)
        return pinvA.matmul(K - K.mH - K.matmul(A.matmul(pinvA))) + \
            (dAh - pinvA.matmul(A.matmul(dAh))).matmul(pinvAh.matmul(pinvA))
    K = pinvA.matmul(dA)
    Kh = K.mH
    return (Kh - K - pinvA.matmul(A).matmul(Kh)).matmul(pinvA) + \
        pinvA.matmul(pinvAh).matmul(dAh - dAh.matmul(A).matmul(pinvA))


def linalg_lstsq_solution_jvp(A: Any, B_: Any, dA: Any, dB_: Any) -> Any:
    """X = A+ B: dX = dA+ B + A+ dB."""
    vector_case = _is_vector_rhs(A, B_)
    B = B_.unsqueeze(-1) if vector_case else B_
    dB = dB_.unsqueeze(-1) if vector_case else dB_
    pinvA = _pinv(A)
    dX = pinv_jvp(A, pinvA, dA).matmul(B) + pinvA.matmul(dB)
    return dX.squeeze(-1) if vector_case else dX


def linalg_lu_jvp(dA: Any, P: Any, L: Any, U: Any, pivot: bool) -> tuple[Any, Any]:
    """dK = L1^-1 P^T dA1 U1^-1 (the leading k x k blocks): dL1 = L1 tril(dK, -1), dU1 = triu(dK) U1;
    a wide A adds dU2 = L1^-1 P^T dA2 - tril(dK, -1) U2, a tall one dL2 = P^T dA2 U1^-1 - L2 triu(dK)."""
    m, n = dA.shape[-2], dA.shape[-1]
    k = min(m, n)
    PdA = P.mT.matmul(dA) if pivot else dA
    L1, U1 = L[..., :k, :k], U[..., :k, :k]
    dK = _solve_triangular(L1, PdA[..., :k, :k], upper=False, left=True, unitriangular=True)
    dK = _solve_triangular(U1, dK, upper=True, left=False)
    dL1, dU1 = L1.matmul(dK.tril(-1)), dK.triu().matmul(U1)
    if m == n:
        return dL1, dU1
    if m < n:
        dU2 = _solve_triangular(L1, PdA[..., k:], upper=False, left=True, unitriangular=True) - \
            dK.tril(-1).matmul(U[..., k:])
        return dL1, _cat([dU1, dU2], -1)
    dL2 = _solve_triangular(U1, PdA[..., k:, :], upper=True, left=False) - L[..., k:, :].matmul(dK.triu())
    return _cat([dL1, dL2], -2), dU1


def lu_factor_ex_jvp(dA: Any, LU: Any, pivots: Any, pivot: bool) -> Any:
    """The packed tangent: dL below the diagonal, dU on and above it."""
    P, L, U = _lu_unpack(LU, pivots, True, pivot)
    dL, dU = linalg_lu_jvp(dA, P, L, U, pivot)
    m, n = dA.shape[-2], dA.shape[-1]
    if m >= n:
        return _cat([dL[..., :n, :] + dU, dL[..., n:, :]], -2)
    return _cat([dU[..., :m] + dL, dU[..., m:]], -1)


def linalg_lu_solve_jvp(X: Any, LU: Any, pivots: Any, dLU: Any, dB: Any, left: bool, adjoint: bool) -> Any:
    """Differentiating op_1(P L U) op_2(X) = op_3(B), with S = lu_solve(LU, pivots, dB): when left !=
    adjoint, dX = op_2(R op_2(X)) + S with R = -U^-1 (dU + L^-1 dL U); otherwise
    dX = op_2(op_1(-op_3(X)^H P (L dU U^-1 + dL) L^-1 P^T)) + S."""
    S = _lu_solve(LU, pivots, dB, left=left, adjoint=adjoint)
    if left != adjoint:
        R = _solve_triangular(LU, dLU.tril(-1), upper=False, left=True, unitriangular=True)
        U = LU.triu()
        R = -_solve_triangular(U, dLU.triu() + R.matmul(U), upper=True)
        return (R.matmul(X) if left else X.matmul(R.mH)) + S
    P, L, U = _lu_unpack(LU, pivots)
    V = X.mH if left else X
    R = _solve_triangular(U, L.matmul(dLU.triu()), upper=True, left=False) + dLU.tril(-1)
    R = _solve_triangular(L, -V.matmul(P).matmul(R), upper=False, left=False, unitriangular=True).matmul(P.mT)
    return (R.mH if left else R) + S
