"""_unique2, unique_consecutive and unique_dim on CPU, through NumPy on zero-copy views.

PyTorch's CPU unique always returns sorted values (sorted=False is a hint it ignores there), with
every NaN its own value, sorted last; NumPy's unique with equal_nan=False gives the same values,
inverse and counts. unique_dim compares slices along `dim` lexicographically; slices holding NaN
never compare equal (at::equal).
"""
import numpy as np

from c10.scalar_type cimport ST_INT64
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.indexing_utils cimport check_kernel_dtype, check_cpu, sizes_str

from c10.tensor_impl import from_numpy


cdef TensorImpl _empty_long(tuple shape):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int i
    for i in range(len(shape)):
        sizes[i] = shape[i]
    return empty_contiguous(len(shape), sizes, ST_INT64, None)


cdef TensorImpl _tensor(object arr):
    """A tensor owning a NumPy result (contiguous, as PyTorch returns)."""
    arr = np.asarray(arr)
    return from_numpy(arr if arr.flags.c_contiguous else arr.copy(order="C"))


def _unique2_cpu(TensorImpl self not None, sorted=True, return_inverse=False, return_counts=False):
    check_cpu(self)
    check_kernel_dtype(self, "unique")
    a = self._numpy_view().reshape(-1)
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, equal_nan=False)
    inv = _tensor(inverse.astype(np.int64, copy=False).reshape(self._sizes())) if return_inverse \
        else _empty_long((0,))
    cnt = _tensor(counts.astype(np.int64, copy=False)) if return_counts else _empty_long((0,))
    return _tensor(values), inv, cnt


cdef tuple _consecutive_groups(object starts, Py_ssize_t n):
    """Group ids of n items from a boolean 'starts a new group' array (item 0 always starts)."""
    ids = np.cumsum(starts, dtype=np.int64) - 1
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, n)).astype(np.int64)
    return ids, first, counts


def unique_consecutive_cpu(TensorImpl self not None, return_inverse=False, return_counts=False, dim=None):
    check_cpu(self)
    check_kernel_dtype(self, "unique_consecutive")
    if dim is not None:
        return _unique_dim(self, dim, True, return_inverse, return_counts)
    a = self._numpy_view().reshape(-1)
    n = a.shape[0]
    if n == 0:
        inv = _empty_long(self._sizes()) if return_inverse else _empty_long((0,))
        return _tensor(a.copy()), inv, _empty_long((0,))
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(a[1:], a[:n - 1], out=starts[1:])
    ids, first, counts = _consecutive_groups(starts, n)
    inv = _tensor(ids.reshape(self._sizes())) if return_inverse else _empty_long((0,))
    cnt = _tensor(counts) if return_counts else _empty_long((0,))
    return _tensor(a[first]), inv, cnt


def unique_dim_cpu(TensorImpl self not None, dim, sorted=True, return_inverse=False, return_counts=False):
    check_cpu(self)
    check_kernel_dtype(self, "unique_dim")
    return _unique_dim(self, dim, False, return_inverse, return_counts)


cdef tuple _unique_dim(TensorImpl self, object dim, bint consecutive, bint return_inverse, bint return_counts):
    cdef int d
    if self.nd == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = self._wrap_dim(dim)
    sizes = self._sizes()
    zero_dims = sum(1 for s in sizes if s == 0)
    if sizes[d] == 0:
        if zero_dims != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
        return _tensor(np.empty(sizes, dtype=self.dtype.numpy_dtype)), _empty_long((0,)), _empty_long((0,))
    if zero_dims:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    a = np.moveaxis(self._numpy_view(), d, 0)
    moved_shape = a.shape
    flat = np.ascontiguousarray(a).reshape(moved_shape[0], -1)
    n = flat.shape[0]
    if consecutive:
        order = np.arange(n)
    else:
        # Lexicographic order of the slices: the first column is the primary key.
        keys = flat.view(np.uint8).astype(np.int64) if flat.dtype == np.bool_ else flat
        order = np.lexsort(keys.T[::-1]) if flat.shape[1] else np.arange(n)
    ordered = flat[order]
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    if n > 1:
        np.any(ordered[1:] != ordered[:n - 1], axis=1, out=starts[1:])
    ids, first, counts = _consecutive_groups(starts, n)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = ids
    out = ordered[first].reshape((len(first),) + moved_shape[1:])
    out = np.moveaxis(out, 0, d)
    # PyTorch's dim variants return the inverse and counts whatever the flags say.
    return _tensor(out), _tensor(inverse), _tensor(counts)
