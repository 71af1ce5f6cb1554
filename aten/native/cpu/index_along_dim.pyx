"""Indexing along one dimension on CPU: index_select, index_copy(_), index_add(_) and index_fill(_).

Each is one run of index_plan's loop nest: the indexed dim is the block, its positions are the
elements of the (bounds-checked) index tensor, and the dims before and after it are pre and post.
"""
from libc.stdint cimport int64_t
from c10.scalar_type cimport ST_INT32, ST_INT64
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.index_support cimport (check_kernel_dtype, check_cpu, clone_contiguous, int64_contiguous,
                                             scalar_tensor_of, bump_version, fresh, first_out_of_range)
from aten.native.cpu.index_plan cimport M_GATHER, M_COPY, M_ADD, Plan3, run3, check_in_bounds
from aten.native.meta.index_checks cimport check_index_copy
from aten.native.meta.messages cimport type_name, sizes_str



cdef void _dim_plan(Plan3* p, TensorImpl self, int dim, TensorImpl other, int odim) noexcept:
    """pre = dims before dim, post = dims after, for self and for other (odim -1: other is 0-dim
    or one element broadcast, all strides 0)."""
    cdef int d
    p.npre = dim if self.nd > 0 else 0
    p.npost = self.nd - dim - 1 if self.nd > 0 else 0
    for d in range(p.npre):
        p.pre_sizes[d] = self.sizes[d]
        p.s_pre[d] = self.strides[d]
        p.o_pre[d] = other.strides[d] if odim >= 0 else 0
    for d in range(p.npost):
        p.post_sizes[d] = self.sizes[dim + 1 + d]
        p.s_post[d] = self.strides[dim + 1 + d]
        p.o_post[d] = other.strides[odim + 1 + d] if odim >= 0 else 0


cdef void _index_by(Plan3* p, TensorImpl idx, Py_ssize_t sstride, Py_ssize_t swrap, Py_ssize_t ostride) noexcept:
    """Positions b are the elements of a contiguous int64 index tensor: self at idx[b] * sstride
    (negative indices wrapped by swrap), the other operand at b * ostride."""
    p.nb = idx.n_elem
    p.slin = NULL
    p.sidx = <int64_t*>idx.data()
    p.sstride = sstride
    p.swrap = swrap
    p.olin = NULL
    p.ostride = ostride


cdef inline Py_ssize_t _size0(TensorImpl t, int dim):
    """t.size(dim), with a 0-dim tensor seen as one element (PyTorch's ensure_nonempty_size)."""
    return t.sizes[dim] if t.nd > 0 else 1


cdef inline Py_ssize_t _stride0(TensorImpl t, int dim):
    return t.strides[dim] if t.nd > 0 else 0


def index_select_cpu(TensorImpl self not None, dim, TensorImpl index not None):
    cdef int d = self._wrap_dim(dim)
    cdef Py_ssize_t n = index.n_elem, size, bad
    cdef Py_ssize_t out_sizes[MAX_DIMS]
    cdef TensorImpl idx, out
    cdef Plan3 p
    check_cpu(self)
    check_cpu(index)
    if index.nd > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self.nd == 0 and n != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
    if index.scalar_type != ST_INT64 and index.scalar_type != ST_INT32:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    check_kernel_dtype(self, "index_select_out_cpu_")
    size = _size0(self, d)
    idx = int64_contiguous(index)
    if size == 0 and n > 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    with nogil:
        bad = first_out_of_range(<int64_t*>idx.data(), n, size, False)
    if bad >= 0:
        if d == 1 and self.nd > 1:
            # PyTorch's dedicated dim-1 kernel (index_select_out_cpu_dim1_) words it differently.
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={(<int64_t*>idx.data())[bad]} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    for i in range(self.nd):
        out_sizes[i] = self.sizes[i]
    if self.nd > 0:
        out_sizes[d] = n
    out = empty_contiguous(self.nd, out_sizes, self.scalar_type, None)
    _dim_plan(&p, self, d, out, d)
    _index_by(&p, idx, _stride0(self, d), 0, _stride0(out, d))
    run3(self.scalar_type, M_GATHER, self.data(), out.data(), &p, None)
    return out


cdef _index_write(TensorImpl self, int d, TensorImpl idx, TensorImpl source, int mode, TensorImpl alpha):
    """self[pre, idx[b], post] = (or +=) source[pre, b, post]; idx already checked."""
    cdef Plan3 p
    cdef Py_ssize_t n = idx.n_elem
    _dim_plan(&p, self, d, source, d if source.nd > 0 else -1)
    _index_by(&p, idx, _stride0(self, d), 0, _stride0(source, d))
    run3(self.scalar_type, mode, self.data(), source.data(), &p, alpha)


def index_copy__cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None):
    cdef int d = self._wrap_dim(dim)
    cdef Py_ssize_t size
    cdef TensorImpl idx
    check_cpu(self)
    check_cpu(index)
    check_cpu(source)
    check_index_copy(self, d, index, source)
    check_kernel_dtype(self, "index_copy_")
    size = _size0(self, d)
    idx = int64_contiguous(index)
    check_in_bounds(idx, idx.n_elem, size, False, d, IndexError, "index_copy_(): ")
    _index_write(self, d, idx, source, M_COPY, None)
    bump_version(self)
    return self


def index_copy_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_copy")
    return fresh(index_copy__cpu(clone_contiguous(self), dim, index, source))


def index_add__cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None, alpha=1):
    cdef int d = self._wrap_dim(dim)
    cdef Py_ssize_t n = index.n_elem, size
    cdef list self_sizes, source_sizes
    cdef TensorImpl idx, a
    check_cpu(self)
    check_cpu(index)
    check_cpu(source)
    if index.nd > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.nd} with type: "
                         f"{type_name(index.scalar_type)} and size: {sizes_str(index)}")
    if index.scalar_type != ST_INT64 and index.scalar_type != ST_INT32:
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{type_name(index.scalar_type)}")
    if self.scalar_type != source.scalar_type:
        raise RuntimeError(f"index_add_(): self ({type_name(self.scalar_type)}) and source "
                           f"({type_name(source.scalar_type)}) must have the same scalar type")
    if not (d == 0 or d < source.nd):
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {source.nd}")
    if n != _size0(source, d):
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({_size0(source, d)}), for dim: {d}")
    self_sizes = list(self._sizes())
    source_sizes = list(source._sizes())
    if source.nd != 0 and self.nd != 0:
        del self_sizes[d]
        del source_sizes[d]
    if self_sizes != source_sizes:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {sizes_str(self)} source.shape = {sizes_str(source)}")
    check_kernel_dtype(self, "index_add_cpu_")
    size = _size0(self, d)
    idx = int64_contiguous(index)
    check_in_bounds(idx, n, size, False, d, RuntimeError)
    a = scalar_tensor_of(alpha, self.scalar_type)
    _index_write(self, d, idx, source, M_ADD, a)
    bump_version(self)
    return self


def index_add_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl source not None, alpha=1):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_add_cpu_")
    return fresh(index_add__cpu(clone_contiguous(self), dim, index, source, alpha))


def index_fill__int_Scalar_cpu(TensorImpl self not None, dim, TensorImpl index not None, value):
    cdef int d
    cdef Py_ssize_t size, n = index.n_elem
    cdef TensorImpl idx, v
    cdef Plan3 p
    check_cpu(self)
    check_cpu(index)
    if index.scalar_type != ST_INT64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = self._wrap_dim(dim)
    if index.nd > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    check_kernel_dtype(self, "index_fill_cpu")
    v = scalar_tensor_of(value, self.scalar_type)
    size = _size0(self, d)
    idx = int64_contiguous(index)
    check_in_bounds(idx, n, size, True, d, IndexError)
    _dim_plan(&p, self, d, v, -1)
    _index_by(&p, idx, _stride0(self, d), size, 0)
    run3(self.scalar_type, M_COPY, self.data(), v.data(), &p, None)
    bump_version(self)
    return self


def index_fill__int_Tensor_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl value not None):
    if value.nd != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.nd} "
                           "dimension(s).")
    return index_fill__int_Scalar_cpu(self, dim, index, value._numpy_view().item())


def index_fill_int_Scalar_cpu(TensorImpl self not None, dim, TensorImpl index not None, value):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_fill_cpu")
    return fresh(index_fill__int_Scalar_cpu(clone_contiguous(self), dim, index, value))


def index_fill_int_Tensor_cpu(TensorImpl self not None, dim, TensorImpl index not None, TensorImpl value not None):
    self._wrap_dim(dim)
    check_kernel_dtype(self, "index_fill_cpu")
    return fresh(index_fill__int_Tensor_cpu(clone_contiguous(self), dim, index, value))
