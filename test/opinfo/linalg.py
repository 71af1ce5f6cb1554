"""Linear algebra: mm, bmm, addmm, addmv, addbmm, baddbmm, mv, dot, vdot, outer, matmul, einsum,
linear, and torch.linalg's solvers and factorization-based functions (inv, det, slogdet, solve,
solve_triangular, cholesky, eigvalsh, svdvals, pinv, matrix_power, vecdot, multi_dot, cross). NumPy
references: products in float64 (floats) or in the dtype itself (integers wrap modulo 2^bits, as
PyTorch's do); np.linalg in float64 for the factorizations, on well-conditioned samples."""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import NUMPY_OF, random_values
from opinfo.core import FLOATING, INTEGRAL, OpInfo, SampleInput

NUMERIC = INTEGRAL + FLOATING
TOL = {torch.float32: (1e-5, 1e-4), torch.float64: (1e-12, 1e-11)}


def _v(dtype: torch.dtype, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    return random_values(dtype, shape, rng, int_range=(-5, 5), float_scale=1.0)


def _prod(fn, *arrays: np.ndarray) -> np.ndarray:
    """fn over the operands in float64 (or their own integer dtype), cast back."""
    dt = arrays[0].dtype
    work = [a.astype(np.float64) if dt.kind == "f" else a for a in arrays]
    return np.asarray(fn(*work)).astype(dt)


def _scalars(dtype: torch.dtype) -> list[dict]:
    return [dict(beta=2, alpha=3), dict(beta=0), dict(alpha=-1)] if not dtype.is_floating_point else \
        [dict(beta=0.5, alpha=1.5), dict(beta=0.0), dict(alpha=-2.0)]


def mm_samples(dtype, rng):
    shapes = [((3, 4), (4, 5)), ((1, 1), (1, 1)), ((0, 4), (4, 5)), ((3, 0), (0, 5)), ((5, 1), (1, 6))]
    return [SampleInput((_v(dtype, a, rng), _v(dtype, b, rng)), name=f"{a}@{b}") for a, b in shapes]


def bmm_samples(dtype, rng):
    shapes = [((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (0, 4, 5)), ((3, 1, 2), (3, 2, 1)), ((2, 3, 0), (2, 0, 4))]
    return [SampleInput((_v(dtype, a, rng), _v(dtype, b, rng)), name=f"{a}@{b}") for a, b in shapes]


def addmm_samples(dtype, rng):
    out = [SampleInput((_v(dtype, s, rng), _v(dtype, (3, 4), rng), _v(dtype, (4, 5), rng)), name=f"self{s}")
           for s in [(3, 5), (5,), (1, 5), (3, 1), ()]]
    out += [SampleInput((_v(dtype, (3, 5), rng), _v(dtype, (3, 4), rng), _v(dtype, (4, 5), rng)), kw, name=str(kw))
            for kw in _scalars(dtype)]
    out.append(SampleInput((_v(dtype, (0, 5), rng), _v(dtype, (0, 4), rng), _v(dtype, (4, 5), rng)), name="empty"))
    return out


def _addmm(self, mat1, mat2, beta=1, alpha=1):
    prod = _prod(np.matmul, mat1, mat2)
    shape = prod.shape
    if mat1.dtype.kind == "f":
        res = alpha * prod.astype(np.float64) + (beta * self.astype(np.float64) if beta != 0 else 0)
        return np.broadcast_to(res, shape).astype(mat1.dtype)
    wrap = lambda v: np.array(v).astype(mat1.dtype)[()]  # noqa: E731  (C conversion: -1 is 255 for uint8)
    res = prod * wrap(alpha) + (self * wrap(beta) if beta != 0 else 0)
    return np.broadcast_to(res, shape).astype(mat1.dtype)


def addmv_samples(dtype, rng):
    out = [SampleInput((_v(dtype, s, rng), _v(dtype, (3, 4), rng), _v(dtype, (4,), rng)), name=f"self{s}")
           for s in [(3,), (1,), ()]]
    out += [SampleInput((_v(dtype, (3,), rng), _v(dtype, (3, 4), rng), _v(dtype, (4,), rng)), kw, name=str(kw))
            for kw in _scalars(dtype)]
    out.append(SampleInput((_v(dtype, (0,), rng), _v(dtype, (0, 4), rng), _v(dtype, (4,), rng)), name="empty"))
    return out


def baddbmm_samples(dtype, rng):
    out = [SampleInput((_v(dtype, s, rng), _v(dtype, (2, 3, 4), rng), _v(dtype, (2, 4, 5), rng)), name=f"self{s}")
           for s in [(2, 3, 5), (5,), (3, 1)]]
    out += [SampleInput((_v(dtype, (2, 3, 5), rng), _v(dtype, (2, 3, 4), rng), _v(dtype, (2, 4, 5), rng)), kw,
                        name=str(kw)) for kw in _scalars(dtype)]
    return out


def _baddbmm(self, b1, b2, beta=1, alpha=1):
    return _addmm(self, b1, b2, beta, alpha)


def addbmm_samples(dtype, rng):
    out = [SampleInput((_v(dtype, s, rng), _v(dtype, (2, 3, 4), rng), _v(dtype, (2, 4, 5), rng)), name=f"self{s}")
           for s in [(3, 5), (5,)]]
    out += [SampleInput((_v(dtype, (3, 5), rng), _v(dtype, (2, 3, 4), rng), _v(dtype, (2, 4, 5), rng)), kw,
                        name=str(kw)) for kw in _scalars(dtype)]
    out.append(SampleInput((_v(dtype, (3, 5), rng), _v(dtype, (0, 3, 4), rng), _v(dtype, (0, 4, 5), rng)),
                           name="no batches"))
    return out


def _addbmm(self, b1, b2, beta=1, alpha=1):
    prod = _prod(lambda a, b: np.matmul(a, b).sum(axis=0), b1, b2)
    return _addmm(self, np.eye(prod.shape[0], dtype=b1.dtype), prod, beta, alpha)


def mv_samples(dtype, rng):
    return [SampleInput((_v(dtype, (3, 4), rng), _v(dtype, (4,), rng)), name="3x4"),
            SampleInput((_v(dtype, (0, 4), rng), _v(dtype, (4,), rng)), name="0x4"),
            SampleInput((_v(dtype, (3, 0), rng), _v(dtype, (0,), rng)), name="3x0")]


def dot_samples(dtype, rng):
    return [SampleInput((_v(dtype, (n,), rng), _v(dtype, (n,), rng)), name=str(n)) for n in (5, 1, 0, 100)]


def outer_samples(dtype, rng):
    out = [SampleInput((_v(dtype, (a,), rng), _v(dtype, (b,), rng)), name=f"{a}x{b}") for a, b in [(3, 4), (0, 2), (1, 1)]]
    out.append(SampleInput((_v(dtype, (3,), rng), _v(torch.float64, (2,), rng)), name="promotes"))
    return out


def _outer(a, b):
    dt = np.result_type(a, b)
    return _prod(np.outer, a.astype(dt), b.astype(dt))


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((7, 1, 2, 3), (5, 3, 4)),
                 ((1, 2, 3), (6, 3, 2)), ((0, 2, 3), (3, 2)), ((2, 0), (0, 3)), ((3, 5, 0), (0, 0))]


def matmul_samples(dtype, rng):
    return [SampleInput((_v(dtype, a, rng), _v(dtype, b, rng)), name=f"{a}@{b}") for a, b in MATMUL_SHAPES]


EINSUM = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
          ("ii->i", [(3, 3)]), ("ij->ji", [(2, 3)]), ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
          ("i,i->", [(4,)] * 2), ("i,j->ij", [(2,), (3,)]), ("ij,ij->ij", [(1, 3), (2, 3)]), ("ba", [(2, 3)]),
          ("i j , j k -> i k", [(2, 3), (3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
          ("ab...,b->a...", [(2, 3, 4, 5), (3,)]), ("ij->", [(0, 3)])]


def einsum_samples(dtype, rng):
    return [SampleInput((eq, [_v(dtype, s, rng) for s in shapes]), name=eq) for eq, shapes in EINSUM]


def _einsum(eq, arrays):
    eq = eq.replace(" ", "")
    lhs = eq.split("->")[0]
    ops = lhs.split(",")
    # PyTorch broadcasts size-1 dims of a label; NumPy does not: expand them first
    sizes: dict = {}
    for labels, a in zip(ops, arrays):
        if "..." not in labels:
            for l, s in zip(labels, a.shape):
                sizes[l] = s if sizes.get(l, 1) == 1 else sizes[l]
    arrays = [np.broadcast_to(a, tuple(sizes[l] for l in labels)) if "..." not in labels else a
              for labels, a in zip(ops, arrays)]
    dt = arrays[0].dtype
    summed = "->" not in eq and any(lhs.count(c) > 1 for c in set(lhs) if c.isalpha()) or \
        ("->" in eq and any(c.isalpha() and c not in eq.split("->")[1] for c in lhs))
    if len(arrays) == 1 and summed and dt.kind in "iub":
        return np.einsum(eq, arrays[0].astype(np.int64))
    if dt.kind == "f":
        return np.asarray(np.einsum(eq, *[a.astype(np.float64) for a in arrays])).astype(dt)
    return np.asarray(np.einsum(eq, *arrays)).astype(dt)


def linear_samples(dtype, rng):
    out = []
    for shape in [(3, 4), (2, 3, 4), (4,), (0, 4), (2, 1, 3, 4)]:
        out.append(SampleInput((_v(dtype, shape, rng), _v(dtype, (5, 4), rng)), name=f"{shape} no bias"))
        out.append(SampleInput((_v(dtype, shape, rng), _v(dtype, (5, 4), rng), _v(dtype, (5,), rng)),
                               name=f"{shape} bias"))
    return out


def _linear(x, w, b=None):
    y = _prod(lambda a, c: np.matmul(a, c.T), x, w)
    return y if b is None else (y.astype(np.float64) + b).astype(x.dtype)


OPS = [
    OpInfo("mm", lambda a, b: _prod(np.matmul, a, b), mm_samples, NUMERIC, supports_out=True, tol=TOL),
    OpInfo("bmm", lambda a, b: _prod(np.matmul, a, b), bmm_samples, NUMERIC, supports_out=True, tol=TOL),
    OpInfo("addmm", _addmm, addmm_samples, NUMERIC, supports_out=True, inplace="addmm_", tol=TOL),
    OpInfo("addmv", _addmm, addmv_samples, NUMERIC, supports_out=True, inplace="addmv_", tol=TOL),
    OpInfo("baddbmm", _baddbmm, baddbmm_samples, NUMERIC, supports_out=True, inplace="baddbmm_", tol=TOL),
    OpInfo("addbmm", _addbmm, addbmm_samples, NUMERIC, supports_out=True, inplace="addbmm_", tol=TOL),
    OpInfo("mv", lambda a, b: _prod(np.matmul, a, b), mv_samples, NUMERIC, supports_out=True, tol=TOL),
    OpInfo("dot", lambda a, b: _prod(np.dot, a, b), dot_samples, NUMERIC, supports_out=True, tol=TOL),
    OpInfo("vdot", lambda a, b: _prod(np.vdot, a, b), dot_samples, NUMERIC, supports_out=True, tol=TOL),
    OpInfo("outer", _outer, outer_samples, NUMERIC, supports_out=True, tol=TOL),
    OpInfo("matmul", lambda a, b: _prod(np.matmul, a, b), matmul_samples, NUMERIC, supports_out=True, tol=TOL),
    OpInfo("einsum", _einsum, einsum_samples, NUMERIC, method=False, supports_out=False, tol=TOL),
    OpInfo("_C._nn.linear", _linear, linear_samples, NUMERIC, method=False, supports_out=True, tol=TOL,
           variant="linear"),
]


# ---- torch.linalg's solvers and factorizations --------------------------------------------------------------
# Samples are well conditioned (a dominant diagonal; symmetric positive-definite where the op needs it), so
# float32 stays within the tolerance and finite differences are meaningful.

LINALG_TOL = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-10, 1e-10)}


def _well_conditioned(dtype, shape, rng):
    a = rng.standard_normal(shape)
    n = shape[-1]
    return (a + 2 * n * np.eye(n)).astype(NUMPY_OF[dtype])


def _spd(dtype, shape, rng):
    a = rng.standard_normal(shape)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(NUMPY_OF[dtype])


def square_samples(dtype, rng):
    return [SampleInput((_well_conditioned(dtype, shape, rng),), name=str(shape))
            for shape in [(3, 3), (2, 4, 4), (1, 1), (2, 1, 2, 2)]]


def spd_samples(dtype, rng):
    return [SampleInput((_spd(dtype, shape, rng),), name=str(shape)) for shape in [(3, 3), (2, 4, 4), (1, 1)]]


def solve_samples(dtype, rng):
    a = _well_conditioned(dtype, (2, 3, 3), rng)
    return [SampleInput((a, _v(dtype, (2, 3, 2), rng)), name="batched matrix"),
            SampleInput((a[0], _v(dtype, (3,), rng)), name="vector"),
            SampleInput((a, _v(dtype, (3, 1), rng)), name="broadcast B")]


def triangular_samples(dtype, rng):
    a = _well_conditioned(dtype, (2, 3, 3), rng)
    b = _v(dtype, (2, 3, 2), rng)
    return [SampleInput((a, b), dict(upper=up, left=True, unitriangular=unit), name=f"upper={up} unit={unit}")
            for up in (True, False) for unit in (False, True)] + \
        [SampleInput((a, np.swapaxes(b, -1, -2).copy()), dict(upper=True, left=False), name="right")]


def _solve_triangular(a, b, upper, left=True, unitriangular=False):
    t = np.triu(a.astype(np.float64)) if upper else np.tril(a.astype(np.float64))
    if unitriangular:
        t = t * (1 - np.eye(t.shape[-1])) + np.eye(t.shape[-1])
    b64 = b.astype(np.float64)
    x = np.linalg.solve(t, b64) if left else np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2),
                                                                           np.swapaxes(b64, -1, -2)), -1, -2)
    return x.astype(a.dtype)


def _solve(a, b):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if b.ndim == 1:
        return np.linalg.solve(a64, b64[:, None])[:, 0].astype(a.dtype)
    return np.linalg.solve(a64, np.broadcast_to(b64, a64.shape[:-1] + b64.shape[-1:])).astype(a.dtype)


def rect_samples(dtype, rng):
    return [SampleInput((_v(dtype, shape, rng),), name=str(shape)) for shape in [(4, 3), (3, 5), (2, 3, 3)]]


def power_samples(dtype, rng):
    a = _well_conditioned(dtype, (2, 3, 3), rng) / 6
    return [SampleInput((a, n), name=f"n={n}") for n in (0, 1, 3, -2)]


def _matrix_power(a, n):
    return np.linalg.matrix_power(a.astype(np.float64), n).astype(a.dtype)


def vecdot_samples(dtype, rng):
    return [SampleInput((_v(dtype, (2, 4), rng), _v(dtype, (4,), rng)), name="broadcast"),
            SampleInput((_v(dtype, (3, 2), rng), _v(dtype, (3, 2), rng)), dict(dim=0), name="dim=0")]


def multi_dot_samples(dtype, rng):
    return [SampleInput(([_v(dtype, (3,), rng), _v(dtype, (3, 4), rng), _v(dtype, (4, 2), rng)],), name="vector first"),
            SampleInput(([_v(dtype, (2, 5), rng), _v(dtype, (5, 1), rng), _v(dtype, (1, 4), rng),
                          _v(dtype, (4,), rng)],), name="vector last")]


def _multi_dot(arrays):
    return np.linalg.multi_dot([a.astype(np.float64) for a in arrays]).astype(arrays[0].dtype)


def cross_samples(dtype, rng):
    return [SampleInput((_v(dtype, (2, 3), rng), _v(dtype, (2, 3), rng)), name="rows"),
            SampleInput((_v(dtype, (3, 2), rng), _v(dtype, (1, 2), rng) * np.ones((3, 1), NUMPY_OF[dtype])),
                        dict(dim=0), name="dim=0")]


def householder_samples(dtype, rng):
    """geqrf's outputs (reflectors below the diagonal, their scales), as NumPy's raw QR gives them."""
    def factors(shape, k=None):
        h, tau = np.linalg.qr(_v(torch.float64, shape, rng), mode="raw")
        a, tau = np.swapaxes(h, -1, -2), tau[..., :k]
        return a.astype(NUMPY_OF[dtype]), np.ascontiguousarray(tau).astype(NUMPY_OF[dtype])
    return [SampleInput(factors((4, 3)), name="tall"), SampleInput(factors((3, 3)), name="square"),
            SampleInput(factors((2, 5, 3)), name="batched"), SampleInput(factors((4, 3), 2), name="fewer reflectors")]


def _householder_product(a, tau):
    """LAPACK's orgqr (SciPy) on each matrix, in float64."""
    import scipy.linalg.lapack as lapack
    a64, tau64 = a.astype(np.float64), tau.astype(np.float64)
    flat_a, flat_tau = a64.reshape((-1,) + a64.shape[-2:]), tau64.reshape((-1, tau64.shape[-1]))
    out = []
    for m, t in zip(flat_a, flat_tau):
        padded = np.zeros(m.shape[-1])      # orgqr with k < n: the remaining reflectors are identities
        padded[:t.shape[0]] = t
        q, _, info = lapack.dorgqr(m, padded)
        assert info == 0
        out.append(q)
    return np.stack(out).reshape(a.shape).astype(a.dtype)


def _f64(fn):
    return lambda a, *rest, **kw: np.asarray(fn(a.astype(np.float64), *rest, **kw)).astype(a.dtype)


OPS += [
    OpInfo("linalg.inv", _f64(np.linalg.inv), square_samples, FLOATING, method=False, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("inverse", _f64(np.linalg.inv), square_samples, FLOATING, supports_out=False, tol=LINALG_TOL),
    OpInfo("linalg.det", _f64(np.linalg.det), square_samples, FLOATING, method=False, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("det", _f64(np.linalg.det), square_samples, FLOATING, supports_out=False, tol=LINALG_TOL),
    OpInfo("logdet", _f64(lambda a: np.log(np.linalg.det(a))), spd_samples, FLOATING, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("linalg.solve", _solve, solve_samples, FLOATING, method=False, supports_out=False, tol=LINALG_TOL),
    OpInfo("linalg.solve_triangular", _solve_triangular, triangular_samples, FLOATING, method=False,
           supports_out=False, tol=LINALG_TOL),
    OpInfo("linalg.cholesky", _f64(np.linalg.cholesky), spd_samples, FLOATING, method=False, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("linalg.eigvalsh", _f64(np.linalg.eigvalsh), spd_samples, FLOATING, method=False, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("linalg.svdvals", _f64(lambda a: np.linalg.svd(a, compute_uv=False)), rect_samples, FLOATING,
           method=False, supports_out=False, tol=LINALG_TOL),
    OpInfo("linalg.pinv", _f64(np.linalg.pinv), rect_samples, FLOATING, method=False, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("linalg.matrix_power", _matrix_power, power_samples, FLOATING, method=False, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("linalg.vecdot", lambda x, y, dim=-1: _prod(lambda a, b: (a * b).sum(dim), x, y), vecdot_samples,
           FLOATING, method=False, supports_out=False, tol=LINALG_TOL),
    OpInfo("linalg.multi_dot", _multi_dot, multi_dot_samples, FLOATING, method=False, supports_out=False,
           tol=LINALG_TOL),
    OpInfo("linalg.householder_product", _householder_product, householder_samples, FLOATING, method=False,
           supports_out=False, tol=LINALG_TOL),
    OpInfo("orgqr", _householder_product, householder_samples, FLOATING, supports_out=False, tol=LINALG_TOL),
    OpInfo("linalg.cross", lambda a, b, dim=-1: _prod(lambda x, y: np.cross(x, y, axis=dim), a, b), cross_samples,
           FLOATING, method=False, supports_out=False, tol=LINALG_TOL),
]


# ---- combinations and distances (aten/native/composite/tensor_combinations.py) -------------------------------

def tensordot_samples(dtype, rng):
    return [SampleInput((_v(dtype, (3, 4, 5), rng), _v(dtype, (4, 5, 2), rng)), dict(dims=([1, 2], [0, 1])),
                        name="two dims"),
            SampleInput((_v(dtype, (3, 4), rng), _v(dtype, (2, 3), rng)), dict(dims=([0], [1])), name="crossed"),
            SampleInput((_v(dtype, (3, 4), rng), _v(dtype, (4, 2), rng)), dict(dims=1), name="dims=1")]


def _tensordot(a, b, dims):
    return _prod(lambda x, y: np.tensordot(x, y, axes=dims), a, b)


def cdist_samples(dtype, rng):
    return [SampleInput((_v(dtype, (2, 4, 3), rng), _v(dtype, (2, 5, 3), rng)), name="batched"),
            SampleInput((_v(dtype, (4, 3), rng), _v(dtype, (5, 3), rng), 1.0), name="p=1"),
            SampleInput((_v(dtype, (4, 3), rng), _v(dtype, (5, 3), rng), 3.0), name="p=3")]


def _cdist(a, b, p=2.0):
    return _prod(lambda x, y: (np.abs(x[..., :, None, :] - y[..., None, :, :]) ** p).sum(-1) ** (1 / p), a, b)


def cov_samples(dtype, rng):
    return [SampleInput((_v(dtype, (3, 6), rng),), name="3 variables"), SampleInput((_v(dtype, (6,), rng),),
                                                                                    name="one variable")]


def _cov(a):
    return np.asarray(np.cov(a.astype(np.float64))).astype(a.dtype)


def _corrcoef(a):
    return np.asarray(np.corrcoef(a.astype(np.float64))).astype(a.dtype)


def dist_samples(dtype, rng):
    return [SampleInput((_v(dtype, (3, 4), rng), _v(dtype, (4,), rng)), name="broadcast"),
            SampleInput((_v(dtype, (5,), rng), _v(dtype, (5,), rng), 1), name="p=1")]


def _dist(a, b, p=2):
    return _prod(lambda x, y: np.asarray(np.sum(np.abs(x - y) ** p) ** (1 / p)), a, b)


OPS += [
    OpInfo("tensordot", _tensordot, tensordot_samples, FLOATING, method=False, supports_out=False, tol=LINALG_TOL),
    OpInfo("cdist", _cdist, cdist_samples, FLOATING, method=False, supports_out=False, tol=LINALG_TOL),
    OpInfo("cov", _cov, cov_samples, FLOATING, supports_out=False, tol=LINALG_TOL),
    OpInfo("corrcoef", _corrcoef, cov_samples, FLOATING, supports_out=False, tol=LINALG_TOL),
    OpInfo("dist", _dist, dist_samples, FLOATING, supports_out=False, tol=LINALG_TOL),
]
