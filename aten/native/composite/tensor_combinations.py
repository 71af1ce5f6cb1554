"""Functions that combine or compare whole tensors, composed of other operators (as upstream's
CompositeImplicitAutograd kernels): meshgrid, cartesian_prod, block_diag, tensordot, cdist, pdist,
dist, cov, corrcoef, tril_indices/triu_indices and atleast_1d/2d/3d, with PyTorch's checks and
messages. Every one runs on any device its ops run on, and differentiates through them."""
from __future__ import annotations

import warnings
from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import dtype_from_name, promote_types

_stack = find_operator("stack")
_cat = find_operator("cat")
_mm = find_operator("mm")
_matmul = find_operator("matmul")
_arange = find_operator("arange")
_nonzero = find_operator("nonzero")
_vector_norm = find_operator("linalg_vector_norm")
_constant_pad_nd = find_operator("constant_pad_nd")
_ones_like = find_operator("ones_like")
_INT64 = dtype_from_name("int64")


# ---- grids and products --------------------------------------------------------------------------------

def meshgrid_indexing(tensors: Any, indexing: str) -> Any:
    tensors = list(tensors)
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if any(t.device != tensors[0].device for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same device")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:        # xy: the first two inputs trade places, as in NumPy's default
        tensors[0], tensors[1] = tensors[1], tensors[0]
    sizes = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = -1
        grids.append(t.reshape(shape).expand(sizes))
    if swap:        # the outputs trade back, so each still varies along its own input
        grids[0], grids[1] = grids[1], grids[0]
    return grids


_meshgrid_warned = [False]


def meshgrid(tensors: Any) -> Any:
    if not _meshgrid_warned[0]:
        _meshgrid_warned[0] = True
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      stacklevel=3)
    return meshgrid_indexing(tensors, "ij")


def cartesian_prod(tensors: Any) -> Any:
    tensors = list(tensors)
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return _stack([g.flatten() for g in meshgrid_indexing(tensors, "ij")], 1)


def block_diag(tensors: Any) -> Any:
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
    if not tensors:
        raise RuntimeError("torch.block_diag: expected at least one tensor")   # PyTorch returns a 1x0... rarely
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = promote_types(dtype, t.dtype)
    blocks = [t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, offset = [], 0
    for b in blocks:
        cols = b.shape[1]
        rows.append(_constant_pad_nd(b.to(dtype), [offset, width - offset - cols]))
        offset += cols
    return _cat(rows, 0)


def tensordot(self: Any, other: Any, dims_self: Any, dims_other: Any) -> Any:
    dims_self, dims_other = list(dims_self), list(dims_other)
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    dims_self = [d % self.dim() if self.dim() else d for d in dims_self]
    dims_other = [d % other.dim() if other.dim() else d for d in dims_other]
    for a, b in zip(dims_self, dims_other):
        if self.shape[a] != other.shape[b]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {self.shape[a]} in dim {a} "
                               f"and second has size {other.shape[b]} in dim {b}")
    free_self = [d for d in range(self.dim()) if d not in dims_self]
    free_other = [d for d in range(other.dim()) if d not in dims_other]
    size = 1
    for d in dims_self:
        size *= self.shape[d]
    left = self.permute(free_self + dims_self).reshape(-1, size)
    right = other.permute(dims_other + free_other).reshape(size, -1)
    shape = [self.shape[d] for d in free_self] + [other.shape[d] for d in free_other]
    return _mm(left, right).reshape(shape)


# ---- distances --------------------------------------------------------------------------------------------

def _euclidean_by_mm(x1: Any, x2: Any) -> Any:
    """||a - b|| through one matmul, as PyTorch's _euclidean_dist (clamped at 1e-30 before the root)."""
    x1_norm = x1.pow(2).sum(-1, keepdim=True)
    x2_norm = x2.pow(2).sum(-1, keepdim=True)
    x1_ = _cat([x1.mul(-2), x1_norm, _ones_like(x1_norm)], -1)
    x2_ = _cat([x2, _ones_like(x2_norm), x2_norm], -1)
    return _matmul(x1_, x2_.mT).clamp_min(1e-30).sqrt()


def cdist(x1: Any, x2: Any, p: float = 2.0, compute_mode: Any = None) -> Any:
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not x1.is_floating_point():
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {x1.dtype.type_name}")
    if not x2.is_floating_point():
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {x2.dtype.type_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = 0 if compute_mode is None else compute_mode
    if mode not in (0, 1, 2):
        raise RuntimeError(f"{compute_mode} is not a valid value for compute_mode")
    rows, cols = x1.shape[-2], x2.shape[-2]
    if p == 2 and (mode == 1 or (mode == 0 and (rows > 25 or cols > 25))):
        return _euclidean_by_mm(x1, x2)
    per_row = max(1, x2.numel() * max(1, x1.numel() // max(1, rows * x1.shape[-1])))
    step = max(1, _CHUNK // per_row)
    if step >= rows:
        return _vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, [-1])
    # the differences of a block of rows at a time, so memory stays bounded (PyTorch's kernel makes none)
    return _cat([_vector_norm(x1[..., i:i + step, :].unsqueeze(-2) - x2.unsqueeze(-3), p, [-1])
                 for i in range(0, rows, step)], -2)


# elements of the difference tensors cdist and pdist build at a time
_CHUNK = 1 << 22


def dist(self: Any, other: Any, p: Any = 2) -> Any:
    return _vector_norm(self - other, p)


def pdist(self: Any, p: float = 2.0) -> Any:
    if self.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {self.dim()}D")
    if not self.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    first, second = triu_indices(self.shape[0], self.shape[0], 1, device=self.device)
    step = max(1, _CHUNK // max(1, self.shape[1]))
    if step >= first.numel():
        return _vector_norm(self[first] - self[second], p, [-1])
    return _cat([_vector_norm(self[first[i:i + step]] - self[second[i:i + step]], p, [-1])
                 for i in range(0, first.numel(), step)], 0)


# ---- covariance ----------------------------------------------------------------------------------------------

def cov(self: Any, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:
    if self.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.dim()} dimensions")
    x = self.reshape(1, -1) if self.dim() < 2 else self
    observations = x.shape[1]
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.is_floating_point():
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{fweights.dtype.type_name} dtype")
        if fweights.numel() != observations:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {observations}")
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.is_floating_point():
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{aweights.dtype.type_name} dtype")
        if aweights.numel() != observations:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {observations}")
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    w_sum: Any = observations if w is None else w.sum()
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if float(norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", stacklevel=3)
        norm = norm * 0 if not isinstance(norm, int) else 0
    centred = x - avg.unsqueeze(1)
    weighted = centred if w is None else centred * w
    return (_mm(centred, weighted.t().conj()) / norm).squeeze()


def corrcoef(self: Any) -> Any:
    c = cov(self)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1) / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


# ---- index factories and dimension helpers -------------------------------------------------------------------

def _triangle_indices(name: str, row: int, col: int, offset: int, lower: bool, dtype: Any, device: Any) -> Any:
    dtype = _INT64 if dtype is None else dtype
    if dtype.name not in ("int32", "int64"):
        raise NotImplementedError(f'"{name}" not implemented for \'{dtype.type_name}\'')
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    rows = _arange(row, dtype=_INT64, device=device).unsqueeze(1)
    cols = _arange(col, dtype=_INT64, device=device).unsqueeze(0)
    mask = (cols - rows <= offset) if lower else (cols - rows >= offset)
    return _nonzero(mask).t().to(dtype)


def tril_indices(row: int, col: int, offset: int = 0, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Any:
    return _triangle_indices("tril_indices", row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Any:
    return _triangle_indices("triu_indices", row, col, offset, False, dtype, device)


def atleast_1d(self: Any) -> Any:
    return self.reshape(1) if self.dim() == 0 else self


def atleast_2d(self: Any) -> Any:
    if self.dim() == 0:
        return self.reshape(1, 1)
    return self.unsqueeze(0) if self.dim() == 1 else self


def atleast_3d(self: Any) -> Any:
    if self.dim() == 0:
        return self.reshape(1, 1, 1)
    if self.dim() == 1:
        return self.unsqueeze(0).unsqueeze(-1)
    return self.unsqueeze(-1) if self.dim() == 2 else self


def atleast_1d_Sequence(tensors: Any) -> Any:  # noqa: N802 (the overload's name)
    return [atleast_1d(t) for t in tensors]


def atleast_2d_Sequence(tensors: Any) -> Any:  # noqa: N802
    return [atleast_2d(t) for t in tensors]


def atleast_3d_Sequence(tensors: Any) -> Any:  # noqa: N802
    return [atleast_3d(t) for t in tensors]
