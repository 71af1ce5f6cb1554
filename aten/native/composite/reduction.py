"""Reduction overloads written in terms of the CPU/CUDA kernels, as upstream's composites:
sum/mean over everything, var/std/var_mean/std_mean with `unbiased`, count_nonzero with one
optional dim, and the aten::norm overloads (which upstream forwards to linalg_vector_norm)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10 import scalar_type

_sum_dim = find_operator("sum.dim_IntList")
_mean_dim = find_operator("mean.dim")
_var = find_operator("var.correction")
_std = find_operator("std.correction")
_var_mean = find_operator("var_mean.correction")
_std_mean = find_operator("std_mean.correction")
_count_nonzero = find_operator("count_nonzero.dim_IntList")
_vector_norm = find_operator("linalg_vector_norm")


def sum_all(self: Any, dtype: Any = None) -> Any:
    return _sum_dim(self, None, False, dtype=dtype)


def mean_all(self: Any, dtype: Any = None) -> Any:
    return _mean_dim(self, None, False, dtype=dtype)


def var_unbiased(self: Any, unbiased: bool = True) -> Any:
    return _var(self, None, correction=1 if unbiased else 0)


def var_dim(self: Any, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Any:
    return _var(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def std_unbiased(self: Any, unbiased: bool = True) -> Any:
    return _std(self, None, correction=1 if unbiased else 0)


def std_dim(self: Any, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Any:
    return _std(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def var_mean_unbiased(self: Any, unbiased: bool = True) -> Any:
    return _var_mean(self, None, correction=1 if unbiased else 0)


def var_mean_dim(self: Any, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Any:
    return _var_mean(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def std_mean_unbiased(self: Any, unbiased: bool = True) -> Any:
    return _std_mean(self, None, correction=1 if unbiased else 0)


def std_mean_dim(self: Any, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Any:
    return _std_mean(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def count_nonzero(self: Any, dim: Any = None) -> Any:
    return _count_nonzero(self, () if dim is None else (dim,))


# aten::norm: linalg_vector_norm with p=None meaning 2. Its errors are linalg_vector_norm's, as
# torch.norm's are in PyTorch (torch.norm is a Python function there that calls linalg.vector_norm).

def norm_Scalar(self: Any, p: Any = 2) -> Any:
    return _vector_norm(self, p, None, False)


def norm_ScalarOpt_dtype(self: Any, p: Any, dtype: Any) -> Any:
    return _vector_norm(self, 2 if p is None else p, None, False, dtype=dtype)


def norm_ScalarOpt_dim(self: Any, p: Any, dim: Any, keepdim: bool = False) -> Any:
    if dim is None:
        raise TypeError('norm() missing 1 required positional arguments: "dim"')
    return _vector_norm(self, 2 if p is None else p, dim, keepdim)


def norm_ScalarOpt_dim_dtype(self: Any, p: Any, dim: Any, keepdim: bool, dtype: Any) -> Any:
    return _vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


# ---- the reductions' kernels on devices without a dedicated one (CUDA), over sum/mean/amax ----
# Registered as CompositeExplicitAutograd beside the CPU kernels: the CPU keeps its one-pass
# Cython kernel, and autograd uses the ops' own formulas either way.

_amax = find_operator("amax")
_amin = find_operator("amin")
_sub = find_operator("sub.Tensor")
_add = find_operator("add.Tensor")
_mul = find_operator("mul.Tensor")
_div = find_operator("div.Tensor")
_pow = find_operator("pow.Tensor_Tensor")
_abs = find_operator("abs")
_sqrt = find_operator("sqrt")
_exp = find_operator("exp")
_log = find_operator("log")
_isinf = find_operator("isinf")
_where = find_operator("where.self")
_ne = find_operator("ne.Tensor")     # with a number: the dispatcher wraps it
_eq = find_operator("eq.Tensor")
_gt = find_operator("gt.Tensor")
_to = find_operator("to.dtype")
_reshape = find_operator("reshape")
_zeros_like = find_operator("zeros_like")


def _reduced_dims(self: Any, dim: Any) -> list[int]:
    """The dims a reduction over `dim` (None or empty: all of them) folds, wrapped."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return list(range(self.dim()))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted({self._wrap_dim(d) for d in dims}) if self.dim() else []


def _kept_shape(self: Any, dims: list[int], keepdim: bool) -> list[int]:
    return [1 if i in dims else s for i, s in enumerate(self.shape) if keepdim or i not in dims]


def _check_floating(self: Any, what: str) -> None:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{what}: Expected a floating point or complex tensor as input. Got {self.dtype.type_name}")


def _var_parts(self: Any, dim: Any, correction: Any, keepdim: bool) -> tuple[Any, Any, bool]:
    """(variance, mean, whether they round to float16): the mean first, then the squared
    deviations from it (two passes, as precise as Welford's one)."""
    if not self.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    self, half = _opmath(self)
    dims = _reduced_dims(self, dim)
    count = 1
    for d in dims:
        count *= self.shape[d]
    mean = _mean_dim(self, dims, True)
    deviation = _sub(self, mean)
    squares = _sum_dim(_mul(deviation, deviation), dims, keepdim)
    divisor = max(count - (1 if correction is None else correction), 0)
    variance = _div(squares, divisor)
    return variance, mean if keepdim else _reshape(mean, _kept_shape(self, dims, False)), half


def var_correction(self: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
    variance, _, half = _var_parts(self, dim, correction, keepdim)
    return _narrow(variance, half)


def std_correction(self: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
    variance, _, half = _var_parts(self, dim, correction, keepdim)
    return _narrow(_sqrt(variance), half)


def var_mean_correction(self: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
    variance, mean, half = _var_parts(self, dim, correction, keepdim)
    return _narrow(variance, half), _narrow(mean, half)


def std_mean_correction(self: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
    variance, mean, half = _var_parts(self, dim, correction, keepdim)
    return _narrow(_sqrt(variance), half), _narrow(mean, half)


def logsumexp(self: Any, dim: Any, keepdim: bool = False) -> Any:
    """log(sum(exp(x - m))) + m with m the maximum (0 where it is infinite), as PyTorch's."""
    if not self.dtype.is_floating_point:
        self = _to(self, _default_float())
    self, half = _opmath(self)
    dims = _reduced_dims(self, dim)
    if self.numel() == 0:
        return _narrow(_log(_sum_dim(_exp(self), dims, keepdim)), half)
    peak = _amax(self, dims, True)
    peak = _where(_isinf(peak), _zeros_like(peak), peak)
    total = _add(_log(_sum_dim(_exp(_sub(self, peak)), dims, True)), peak)
    return _narrow(total if keepdim else _reshape(total, _kept_shape(self, dims, False)), half)


def linalg_vector_norm(self: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    _check_floating(self, "linalg.vector_norm")
    if dtype is not None:
        self = _to(self, dtype)
    self, half = _opmath(self)
    dims = _reduced_dims(self, dim)
    ord = float(ord)
    if (ord < 0 or ord == float("inf")) and any(self.shape[d] == 0 for d in dims):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because the "
                           "operation does not have an identity")
    magnitude = _abs(self)
    if ord == float("inf") or ord == float("-inf"):
        norm = (_amax if ord > 0 else _amin)(magnitude, dims, keepdim)
    elif ord == 0:
        norm = _sum_dim(_to(_ne(self, 0), self.dtype), dims, keepdim)
    elif ord == 1:
        norm = _sum_dim(magnitude, dims, keepdim)
    elif ord == 2:
        norm = _sqrt(_sum_dim(_mul(self, self), dims, keepdim))
    else:
        norm = _pow(_sum_dim(_pow(magnitude, ord), dims, keepdim), 1.0 / ord)
    return _narrow(norm, half)


def _truth(self: Any, dim: Any, keepdim: bool, every: bool) -> Any:
    """any/all: counts of nonzero elements compared with 0 (any) or with the count (all); uint8
    inputs give uint8, others bool, as PyTorch's."""
    result = _ne(self, 0)
    if dim is None or isinstance(dim, int) or len(dim):     # dim=(): elementwise, as PyTorch's
        dims = _reduced_dims(self, dim)
        count = 1
        for d in dims:
            count *= self.shape[d]
        nonzero = _sum_dim(result, dims, keepdim)
        result = _eq(nonzero, count) if every else _gt(nonzero, 0)
    return _to(result, self.dtype) if self.dtype.name == "uint8" else result


def any_all(self: Any) -> Any:
    return _truth(self, None, False, False)


def any_dim(self: Any, dim: int, keepdim: bool = False) -> Any:
    return _truth(self, dim, keepdim, False)


def any_dims(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _truth(self, dim, keepdim, False)


def all_all(self: Any) -> Any:
    return _truth(self, None, False, True)


def all_dim(self: Any, dim: int, keepdim: bool = False) -> Any:
    return _truth(self, dim, keepdim, True)


def all_dims(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _truth(self, dim, keepdim, True)


def _default_float() -> Any:
    return scalar_type.get_default_dtype()


_HALF = scalar_type.dtype_from_name("float16")
_FLOAT32 = scalar_type.dtype_from_name("float32")


def _opmath(self: Any) -> tuple[Any, bool]:
    """float16 computed in float32 (its squares, powers and exps overflow half), as PyTorch's
    opmath; (the operand to compute with, whether results round back to float16)."""
    return (_to(self, _FLOAT32), True) if self.dtype is _HALF else (self, False)


def _narrow(result: Any, half: bool) -> Any:
    return _to(result, _HALF) if half else result
