"""Reduction overloads written in terms of the CPU/CUDA kernels, as upstream's composites:
sum/mean over everything, var/std/var_mean/std_mean with `unbiased`, count_nonzero with one
optional dim, and the aten::norm overloads (which upstream forwards to linalg_vector_norm)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

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
