"""The checks of gather, scatter and scatter_reduce that every backend runs before its loop:
index dtype, ranks and sizes, the names of the reductions and their identities, with PyTorch's
messages. A zero-dim tensor counts as one element of rank 1, as in PyTorch."""
from libc.math cimport INFINITY
from c10.scalar_type cimport ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, is_floating
from c10.tensor_impl cimport TensorImpl, sizes_text


cdef inline str _sizes(TensorImpl t):
    return sizes_text(t.nd, t.sizes)


cdef int _check_index_dtype(TensorImpl index, str method) except -1:
    if index.scalar_type != ST_INT64 and index.scalar_type != ST_INT32:
        raise RuntimeError(f"{method}(): Expected dtype int32/int64 for index")
    return 0


def check_gather(TensorImpl self not None, int d, TensorImpl index not None):
    """gather's index checks (d wrapped); the CUDA kernel checks through it too."""
    cdef int i
    _check_index_dtype(index, "gather")
    if index.n_elem != 0 and ndim1(self) != ndim1(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if index.n_elem == 0:
        return
    for i in range(ndim1(self)):
        if i != d and size1(index, i) > size1(self, i):
            raise RuntimeError(f"Size does not match at dimension {i} expected index {_sizes(index)} to be no "
                               f"larger than self {_sizes(self)} apart from dimension {d}")


cdef int _scatter_shape_check(TensorImpl self, int dim, TensorImpl index, TensorImpl src) except -1:
    cdef int nd = ndim1(self), d
    cdef bint wrong = False
    if index.n_elem == 0:
        return 0
    if nd != ndim1(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    for d in range(nd):
        if d != dim and size1(index, d) > size1(self, d):
            wrong = True
            break
    if not wrong and src is not None:
        for d in range(nd):
            if size1(index, d) > size1(src, d):
                wrong = True
                break
    if src is not None:
        if ndim1(src) != ndim1(index):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if wrong:
            raise RuntimeError(f"Expected index {_sizes(index)} to be no larger than self {_sizes(self)} apart "
                               f"from dimension {dim} and to be no larger size than src {_sizes(src)}")
    elif wrong:
        raise RuntimeError(f"Expected index {_sizes(index)} to be no larger than self {_sizes(self)} apart "
                           f"from dimension {dim}")
    return 0


cpdef int scatter_reduce_op(object reduce, bint new_options) except -1:
    """The reduction scatter's reduce names (scatter_reduce's five when new_options), or PyTorch's error."""
    if new_options:
        ops = {"sum": R_ADD, "prod": R_MUL, "mean": R_ADD, "amax": R_MAX, "amin": R_MIN}
        if reduce not in ops:
            raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
        return ops[reduce]
    if reduce == "add":
        return R_ADD
    if reduce == "multiply":
        return R_MUL
    raise RuntimeError("reduce argument must be either add or multiply.")


def check_scatter(TensorImpl self not None, int d, TensorImpl index not None, TensorImpl src):
    """scatter's checks (d wrapped; src None for a value); the CUDA kernels check through it too."""
    _check_index_dtype(index, "scatter")
    if src is not None and self.scalar_type != src.scalar_type:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _scatter_shape_check(self, d, index, src)


cpdef object scatter_identity(str reduce, int st):
    """The value that leaves a reduction unchanged (written where include_self=False scatters)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if st == ST_BOOL:
        return reduce == "amin"
    if is_floating(st):
        return -INFINITY if reduce == "amax" else INFINITY
    low = {ST_UINT8: 0, ST_INT8: -(1 << 7), ST_INT16: -(1 << 15), ST_INT32: -(1 << 31), ST_INT64: -(1 << 63)}
    high = {ST_UINT8: 255, ST_INT8: (1 << 7) - 1, ST_INT16: (1 << 15) - 1, ST_INT32: (1 << 31) - 1,
            ST_INT64: (1 << 63) - 1}
    return low[st] if reduce == "amax" else high[st]
