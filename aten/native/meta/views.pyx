"""View kernels: new sizes, strides and offset over the base's storage; no data is copied.

Every view shares the base's Storage and VersionCounter (make_tensor(base.storage, ...,
base.version_counter)), so writes through either show in the other and an in-place op on one
bumps the version both see. Only metadata is computed, so these work for every device; the
composite kernels in aten/native/composite/shape.py call them. Rules and messages follow
PyTorch's (aten/src/ATen/native/TensorShape.cpp, InferSize.h, TensorUtils.cpp).
"""
from libc.stdint cimport int64_t, uint8_t, int8_t, int16_t, int32_t
from c10.scalar_type cimport (dtype as DType, dtype_of, is_integral, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64,
                              ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_COMPLEX64, ST_COMPLEX128)
from c10.tensor_impl cimport (TensorImpl, MAX_DIMS, make_tensor, make_view, sizes_from_sequence, sizes_text,
                              strided_nbytes, non_overlapping_and_dense)

from c10 import layout as _layout

cdef Py_ssize_t _SSIZE_MAX = <Py_ssize_t>((<size_t>-1) >> 1)


# -- helpers ------------------------------------------------------------------------------------

cdef int wrap_dim(Py_ssize_t dim, int ndim, bint wrap_scalar=True) except -1:
    """PyTorch's maybe_wrap_dim: a dim in [-ndim, ndim) as a non-negative index."""
    if ndim <= 0:
        if not wrap_scalar:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        ndim = 1
    if dim < -ndim or dim >= ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return <int>(dim + ndim if dim < 0 else dim)


cdef inline int _check_ndim(Py_ssize_t ndim) except -1:
    if ndim > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {ndim}")
    return 0


cdef inline str _list_str(object seq):
    return "[" + ", ".join([str(v) for v in seq]) + "]"


cdef TensorImpl alias_with(TensorImpl base, int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                           Py_ssize_t offset):
    """A view of base: its storage and version counter, the given geometry (base is its `_base`)."""
    return make_view(base, offset, ndim, sizes, strides, base.scalar_type)


cdef inline void _copy_geometry(TensorImpl t, Py_ssize_t* sizes, Py_ssize_t* strides) noexcept:
    cdef int i
    for i in range(t.nd):
        sizes[i] = t.sizes[i]
        strides[i] = t.strides[i]


cdef inline TensorImpl _alias(TensorImpl self):
    return alias_with(self, self.nd, self.sizes, self.strides, self.offset)


cdef int _int_list(object seq, Py_ssize_t* out, str what) except -1:
    if isinstance(seq, int):
        out[0] = seq
        return 1
    return sizes_from_sequence(seq, out, what)


cdef int infer_size(object shape, Py_ssize_t numel, Py_ssize_t* out) except -1:
    """PyTorch's infer_size: shape with its one -1 resolved so that it holds numel elements."""
    cdef int n = _int_list(shape, out, "size")
    cdef int i, infer = -1
    cdef Py_ssize_t newsize = 1
    for i in range(n):
        if out[i] == -1:
            if infer >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif out[i] >= 0:
            if out[i] != 0 and newsize > _SSIZE_MAX // out[i]:
                raise RuntimeError(f"shape '{_list_str(shape)}' is invalid for input of size {numel}")
            newsize *= out[i]
        else:
            raise RuntimeError(f"invalid shape dimension {out[i]} at index {i} of shape {sizes_text(n, out)}")
    if numel == newsize or (infer >= 0 and newsize > 0 and numel % newsize == 0):
        if infer >= 0:
            if newsize == 0:
                raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {sizes_text(n, out)} because the "
                                   "unspecified dimension size -1 can be any value and is ambiguous")
            out[infer] = numel // newsize
        return n
    raise RuntimeError(f"shape '{sizes_text(n, out)}' is invalid for input of size {numel}")


cdef bint compute_view_strides(TensorImpl t, int new_nd, const Py_ssize_t* newshape, Py_ssize_t* newstride) noexcept:
    """PyTorch's computeStride: strides that let newshape view t's memory, or False when the
    new shape splits or merges dimensions that are not contiguous with each other."""
    cdef int old_nd = t.nd, view_d, tensor_d, i
    cdef Py_ssize_t chunk_base_stride, tensor_numel, view_numel
    cdef bint same
    if old_nd == 0:
        for i in range(new_nd):
            newstride[i] = 1
        return True
    if t.n_elem == 0:
        same = old_nd == new_nd
        for i in range(old_nd if same else 0):
            if t.sizes[i] != newshape[i]:
                same = False
                break
        if same:
            for i in range(new_nd):
                newstride[i] = t.strides[i]
            return True
        for view_d in range(new_nd - 1, -1, -1):
            if view_d == new_nd - 1:
                newstride[view_d] = 1
            else:
                newstride[view_d] = max(newshape[view_d + 1], 1) * newstride[view_d + 1]
        return True
    view_d = new_nd - 1
    chunk_base_stride = t.strides[old_nd - 1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(old_nd - 1, -1, -1):
        tensor_numel *= t.sizes[tensor_d]
        # End of a chunk of dims that are contiguous with each other: match the view's dims to it.
        if tensor_d == 0 or (t.sizes[tensor_d - 1] != 1
                             and t.strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if tensor_d > 0:
                chunk_base_stride = t.strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    return view_d == -1


cdef void contiguous_strides(int ndim, const Py_ssize_t* sizes, Py_ssize_t* out) noexcept:
    cdef Py_ssize_t n = 1
    cdef int i
    for i in range(ndim - 1, -1, -1):
        out[i] = n
        n *= sizes[i] if sizes[i] > 1 else 1


cdef void dense_strides_like(TensorImpl t, Py_ssize_t* out) noexcept:
    """The strides empty_like(t) gives under preserve_format: t's own when t is non-overlapping
    and dense, else dense strides in t's stride order (PyTorch's infer_dense_strides)."""
    cdef int ndim = t.nd
    cdef int perm[MAX_DIMS]
    cdef int i, j, dim0, dim1, tmp, cmp
    cdef Py_ssize_t s0, s1, cur = 1
    if non_overlapping_and_dense(ndim, t.sizes, t.strides):
        for i in range(ndim):
            out[i] = t.strides[i]
        return
    if ndim == 1:
        out[0] = 1
        return
    for i in range(ndim):
        perm[i] = ndim - 1 - i
    # The insertion sort of TensorIterator: zero strides never move; equal strides put the
    # smaller size first.
    for i in range(1, ndim):
        dim1 = i
        for j in range(1, i + 1):
            dim0 = i - j
            s0 = t.strides[perm[dim0]]
            s1 = t.strides[perm[dim1]]
            if s0 == 0 or s1 == 0:
                cmp = 0
            elif s0 < s1:
                cmp = -1
            elif s0 > s1:
                cmp = 1
            else:
                cmp = 1 if t.sizes[perm[dim0]] > t.sizes[perm[dim1]] else 0
            if cmp > 0:
                tmp = perm[dim0]
                perm[dim0] = perm[dim1]
                perm[dim1] = tmp
                dim1 = dim0
            elif cmp < 0:
                break
    for i in range(ndim):
        out[perm[i]] = cur
        if t.sizes[perm[i]] > 1:
            cur *= t.sizes[perm[i]]


cdef int format_strides(TensorImpl t, object memory_format, str op, Py_ssize_t* out) except -1:
    """The strides of a new tensor shaped like t in memory_format (empty_like's and clone's rule):
    1 with out filled for preserve_format (None too; dense_strides_like) and channels_last, 0 for
    contiguous_format (out untouched); PyTorch's errors for a non-4-D channels_last and for other
    formats, the latter naming op."""
    if memory_format is None or memory_format is _layout.preserve_format:
        dense_strides_like(t, out)
        return 1
    if memory_format is _layout.contiguous_format:
        return 0
    if memory_format is _layout.channels_last:
        if t.nd != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        out[1] = 1
        out[3] = t.sizes[1]
        out[2] = out[3] * t.sizes[3]
        out[0] = out[2] * t.sizes[2]
        return 1
    raise RuntimeError(f"{op}: unsupported memory format {memory_format!r}")


def preserve_strides(TensorImpl self not None):
    """Strides of empty_like(self) under preserve_format (tuple)."""
    cdef Py_ssize_t out[MAX_DIMS]
    dense_strides_like(self, out)
    return tuple([out[i] for i in range(self.nd)])


def channels_last_strides(sizes):
    """Strides of a 4-D tensor in channels_last order (N, C, H, W laid out as N, H, W, C)."""
    if len(sizes) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    n, c, h, w = sizes
    return (h * w * c, 1, w * c, c)


def alias_of(TensorImpl self not None):
    """A new tensor object over self's storage, geometry and version counter."""
    return _alias(self)


def detach_of(TensorImpl self not None):
    """detach's alias: self's storage, geometry and version counter, but not a view for autograd
    (PyTorch's detach() has no `_base`)."""
    return make_tensor(self.storage, self.offset, self.nd, self.sizes, self.strides, self.scalar_type,
                       self.version_counter)


# -- view, reshape, flatten --------------------------------------------------------------------

def view(TensorImpl self not None, size):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int n = infer_size(size, self.n_elem, sizes)
    if not compute_view_strides(self, n, sizes, strides):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return alias_with(self, n, sizes, strides, self.offset)


def contiguous_strides_of(sizes):
    """The contiguous strides of a shape (tuple)."""
    cdef Py_ssize_t c_sizes[MAX_DIMS]
    cdef Py_ssize_t out[MAX_DIMS]
    cdef int n = sizes_from_sequence(sizes, c_sizes, "size")
    contiguous_strides(n, c_sizes, out)
    return tuple([out[i] for i in range(n)])


def wrap(Py_ssize_t dim, int ndim, bint wrap_scalar=True):
    """Python access to wrap_dim (PyTorch's maybe_wrap_dim)."""
    return wrap_dim(dim, ndim, wrap_scalar)


def view_dtype(TensorImpl self not None, DType dtype not None):
    """The same bytes read as another dtype; the last dim rescales when the item sizes differ."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t ratio, offset
    cdef int i, last = self.nd - 1
    cdef str what
    if dtype.scalar_type == self.scalar_type:
        return _alias(self)
    what = f"{dtype_of(self.scalar_type).type_name} as {dtype.type_name} (different element sizes)"
    for i in range(self.nd):
        sizes[i] = self.sizes[i]
        strides[i] = self.strides[i]
    offset = self.offset
    if dtype.itemsize == self.itemsize:
        pass
    elif self.nd == 0:
        raise RuntimeError(f"self.dim() cannot be 0 to view {what}")
    elif self.itemsize > dtype.itemsize:
        ratio = self.itemsize // dtype.itemsize
        if self.strides[last] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {what}, but got {self.strides[last]}")
        for i in range(last):
            strides[i] = self.strides[i] * ratio
        sizes[last] = self.sizes[last] * ratio
        offset = self.offset * ratio
    else:
        ratio = dtype.itemsize // self.itemsize
        if self.strides[last] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {what}, but got {self.strides[last]}")
        if self.sizes[last] % ratio != 0:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} to view {what}, but got {self.sizes[last]}")
        if self.offset % ratio != 0:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} to view {what}, "
                               f"but got {self.offset}")
        for i in range(last):
            if self.strides[i] % ratio != 0:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} to view {what}, "
                                   f"but got {self.strides[i]}")
            strides[i] = self.strides[i] // ratio
        sizes[last] = self.sizes[last] // ratio
        offset = self.offset // ratio
    return make_view(self, offset, self.nd, sizes, strides, dtype.scalar_type)


def flatten_shape(TensorImpl self not None, Py_ssize_t start_dim, Py_ssize_t end_dim):
    """The shape flatten(start_dim, end_dim) reshapes to, or None when flatten returns self."""
    cdef int start = wrap_dim(start_dim, self.nd), end = wrap_dim(end_dim, self.nd), i
    cdef Py_ssize_t numel = 1
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if self.nd == 0:
        return (1,)
    if start == end:
        return None
    for i in range(start, end + 1):
        numel *= self.sizes[i]
    return self._sizes()[:start] + (numel,) + self._sizes()[end + 1:]


def unflatten_shape(TensorImpl self not None, Py_ssize_t dim, sizes):
    """The shape unflatten(dim, sizes) views as (PyTorch's messages for bad sizes)."""
    cdef Py_ssize_t inferred[MAX_DIMS]
    cdef int d = wrap_dim(dim, self.nd), n
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        if self.nd == 0:
            wrap_dim(d, 0, False)
        n = infer_size(sizes, self.sizes[d], inferred)
    except (RuntimeError, IndexError) as e:
        if "is invalid for input of size" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {_list_str(sizes)} don't multiply up to the size of dim "
                               f"{d} ({self.sizes[d]}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    return self._sizes()[:d] + tuple([inferred[i] for i in range(n)]) + self._sizes()[d + 1:]


# -- squeeze, unsqueeze, permute, transpose -------------------------------------------------------

cdef TensorImpl _drop_dims(TensorImpl self, const bint* drop):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i, n = 0
    for i in range(self.nd):
        if not drop[i]:
            sizes[n] = self.sizes[i]
            strides[n] = self.strides[i]
            n += 1
    return alias_with(self, n, sizes, strides, self.offset)


def squeeze(TensorImpl self not None):
    cdef bint drop[MAX_DIMS]
    cdef int i
    for i in range(self.nd):
        drop[i] = self.sizes[i] == 1
    return _drop_dims(self, drop)


def squeeze_dim(TensorImpl self not None, Py_ssize_t dim):
    cdef bint drop[MAX_DIMS]
    cdef int i, d = wrap_dim(dim, self.nd)
    for i in range(self.nd):
        drop[i] = i == d and self.sizes[i] == 1
    return _drop_dims(self, drop)


def squeeze_dims(TensorImpl self not None, dim):
    cdef bint seen[MAX_DIMS]
    cdef bint drop[MAX_DIMS]
    cdef int i, d
    for i in range(MAX_DIMS):
        seen[i] = False
    for v in dim:
        d = wrap_dim(v, self.nd)
        if seen[d]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen[d] = True
    for i in range(self.nd):
        drop[i] = seen[i] and self.sizes[i] == 1
    return _drop_dims(self, drop)


def unsqueeze(TensorImpl self not None, Py_ssize_t dim):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int d = wrap_dim(dim, self.nd + 1)
    _check_ndim(self.nd + 1)
    _copy_geometry(self, sizes, strides)
    unsqueeze_in_place(self.nd, sizes, strides, d)
    return alias_with(self, self.nd + 1, sizes, strides, self.offset)


def permute(TensorImpl self not None, dims):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef bint seen[MAX_DIMS]
    cdef int i, d
    if len(dims) != self.nd:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {self.nd} is not equal to "
                           f"len(dims) = {len(dims)}")
    for i in range(self.nd):
        seen[i] = False
    for i in range(self.nd):
        d = wrap_dim(dims[i], self.nd)
        if seen[d]:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        seen[d] = True
        sizes[i] = self.sizes[d]
        strides[i] = self.strides[d]
    return alias_with(self, self.nd, sizes, strides, self.offset)


def transpose(TensorImpl self not None, Py_ssize_t dim0, Py_ssize_t dim1):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int a = wrap_dim(dim0, self.nd), b = wrap_dim(dim1, self.nd), i
    for i in range(self.nd):
        sizes[i] = self.sizes[i]
        strides[i] = self.strides[i]
    if self.nd > 0:
        sizes[a], sizes[b] = self.sizes[b], self.sizes[a]
        strides[a], strides[b] = self.strides[b], self.strides[a]
    return alias_with(self, self.nd, sizes, strides, self.offset)


def t(TensorImpl self not None):
    if self.nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.nd}D")
    return transpose(self, 0, 1 if self.nd == 2 else 0)


def movedim_order(TensorImpl self not None, source, destination):
    """The permutation movedim applies: the dims in source go to the places in destination; the
    others keep their relative order in the remaining places."""
    cdef int n = self.nd, i, k
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({_list_str(src)} dims) should "
                           f"contain the same number of dims as destination ({_list_str(dst)} dims)")
    nsrc = [wrap_dim(v, n) for v in src]
    ndst = [wrap_dim(v, n) for v in dst]
    if len(set(nsrc)) != len(nsrc):
        raise RuntimeError(f"movedim: repeated dim in `source` ({_list_str(src)})")
    if len(set(ndst)) != len(ndst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({_list_str(dst)})")
    if n == 0:
        return ()
    order = [-1] * n
    for i in range(len(nsrc)):
        order[ndst[i]] = nsrc[i]
    rest = iter([d for d in range(n) if d not in set(nsrc)])
    for k in range(n):
        if order[k] == -1:
            order[k] = next(rest)
    return tuple(order)


# -- expand ---------------------------------------------------------------------------------------

def expand(TensorImpl self not None, size, bint implicit=False):
    """PyTorch's inferExpandGeometry: size-1 dims (and new leading dims) get stride 0."""
    cdef Py_ssize_t target[MAX_DIMS]
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int n = _int_list(size, target, "size"), i, dim
    cdef Py_ssize_t s, st, want
    cdef str type_name
    if n < self.nd:
        type_name = ("torch.cuda." if self.device_type == 1 else "torch.") + dtype_of(self.scalar_type).type_name
        raise RuntimeError(f"expand({type_name}Tensor{{{sizes_text(self.nd, self.sizes)}}}, size={sizes_text(n, target)}): "
                           f"the number of sizes provided ({n}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({self.nd})")
    for i in range(n - 1, -1, -1):
        dim = self.nd - n + i
        s = self.sizes[dim] if dim >= 0 else 1
        if dim >= 0:
            st = self.strides[dim]
        elif self.nd == 0 or i == n - 1:
            st = 0
        else:
            st = sizes[i + 1] * strides[i + 1]
        want = target[i]
        if want == -1:
            if dim < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            want = s
        if s != want:
            if s != 1:
                raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing size ({s}) at "
                                   f"non-singleton dimension {i}.  Target sizes: {sizes_text(n, target)}.  Tensor "
                                   f"sizes: {sizes_text(self.nd, self.sizes)}")
            s = want
            st = 0
        sizes[i] = s
        strides[i] = st
    for i in range(n):
        if sizes[i] < 0:
            raise RuntimeError("numel: integer multiplication overflow")
    return alias_with(self, n, sizes, strides, self.offset)


# -- narrow, select, slice and the ops built on them ----------------------------------------------

cdef TensorImpl narrow_view(TensorImpl self, int dim, Py_ssize_t start, Py_ssize_t length):
    """self[..., start:start + length, ...] along dim (arguments already checked)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int i
    for i in range(self.nd):
        sizes[i] = self.sizes[i]
    sizes[dim] = length
    return alias_with(self, self.nd, sizes, self.strides, self.offset + start * self.strides[dim])


def narrow_range(TensorImpl self not None, Py_ssize_t dim, Py_ssize_t start, Py_ssize_t length):
    """narrow's checks; (start, length) with a negative start counted from the end."""
    cdef int d
    cdef Py_ssize_t cur
    if self.nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, self.nd)
    cur = self.sizes[d]
    if start < -cur or start > cur:
        raise IndexError(f"start out of range (expected to be in range of [{-cur}, {cur}], but got {start})")
    if start < 0:
        start += cur
    if start > cur - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({cur}).")
    return start, length


cdef Py_ssize_t read_index(TensorImpl t) except? -1:
    """The value of a one-element integral CPU tensor."""
    cdef char* p = t.data()
    if t.scalar_type == ST_INT64:
        return (<int64_t*>p)[0]
    if t.scalar_type == ST_INT32:
        return (<int32_t*>p)[0]
    if t.scalar_type == ST_INT16:
        return (<int16_t*>p)[0]
    if t.scalar_type == ST_INT8:
        return (<int8_t*>p)[0]
    return (<uint8_t*>p)[0]


def index_value(TensorImpl start not None):
    """The int in a 0-dim integral tensor (narrow.Tensor's start)."""
    if start.nd != 0 or not is_integral(start.scalar_type, False):
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    # through item(), where torch.compile's capture sees a value read (its graph would bake the start in)
    return int(start.item())


def select(TensorImpl self not None, Py_ssize_t dim, Py_ssize_t index):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int d
    if self.nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, self.nd)
    if not index_in_range(index, self.sizes[d]):
        raise IndexError(f"select(): index {index} out of range for tensor of size {sizes_text(self.nd, self.sizes)} "
                         f"at dimension {d}")
    _copy_geometry(self, sizes, strides)
    return alias_with(self, self.nd - 1, sizes, strides,
                      self.offset + select_in_place(self.nd, sizes, strides, d, index))


def slice_view(TensorImpl self not None, Py_ssize_t dim=0, start=None, end=None, Py_ssize_t step=1):
    """self[start:end:step] along dim, with start and end clamped to the dim as PyTorch does."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t start_val = 0 if start is None else start
    cdef Py_ssize_t end_val = _SSIZE_MAX if end is None else end
    cdef int d
    if self.nd == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, self.nd)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    if start_val == _SSIZE_MAX:
        start_val = 0
    _copy_geometry(self, sizes, strides)
    return alias_with(self, self.nd, sizes, strides,
                      self.offset + slice_in_place(sizes, strides, d, start_val, end_val, step))


def unbind(TensorImpl self not None, Py_ssize_t dim=0):
    cdef int d = wrap_dim(dim, self.nd, False)
    cdef Py_ssize_t i
    return tuple([select(self, d, i) for i in range(self.sizes[d])])


def split(TensorImpl self not None, Py_ssize_t split_size, Py_ssize_t dim=0):
    cdef int d
    cdef Py_ssize_t dim_size, num_splits, last, i
    if self.nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    d = wrap_dim(dim, self.nd)
    dim_size = self.sizes[d]
    if split_size == 0 and dim_size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}")
    num_splits = 1
    if split_size != 0:
        num_splits = max((dim_size + split_size - 1) // split_size, 1)
    last = split_size - (split_size * num_splits - dim_size)
    return tuple([narrow_view(self, d, i * split_size, split_size if i < num_splits - 1 else last)
                  for i in range(num_splits)])


def split_with_sizes(TensorImpl self not None, split_sizes, Py_ssize_t dim=0):
    cdef int d
    cdef Py_ssize_t start = 0, length, dim_size
    cdef list out = []
    if self.nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, self.nd)
    dim_size = self.sizes[d]
    for v in split_sizes:
        length = v
        if length < 0:
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={_list_str(split_sizes)}")
        out.append(narrow_view(self, d, min(start, dim_size), max(0, min(length, dim_size - start))))
        start += length
    if start != dim_size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's size "
                           f"at dimension {d}), but got split_sizes={_list_str(split_sizes)}")
    return tuple(out)


def chunk_split(TensorImpl self not None, Py_ssize_t chunks, Py_ssize_t dim=0):
    """chunk's checks; (split_size, None), or (0, sizes) when an empty dim gives `chunks`
    empty pieces (split would give one)."""
    cdef int d
    cdef Py_ssize_t dim_size, split_size
    if self.nd == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, self.nd)
    dim_size = self.sizes[d]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        return 0, (0,) * chunks
    return split_size, None


# -- as_strided, diagonal, unfold -----------------------------------------------------------------

def as_strided(TensorImpl self not None, size, stride, storage_offset=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int n, m, i
    cdef Py_ssize_t offset = self.offset if storage_offset is None else storage_offset
    cdef Py_ssize_t needed
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    n = sizes_from_sequence(size, sizes, "size")
    m = sizes_from_sequence(stride, strides, "stride")
    for i in range(m):
        if strides[i] < 0:
            raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                               f"{sizes_text(m, strides)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = strided_nbytes(n, sizes, strides, self.itemsize, offset)     # offset included, overflow-checked
    if needed > self.storage.size_bytes:
        raise RuntimeError(f"setStorage: sizes {sizes_text(n, sizes)}, strides {sizes_text(m, strides)}, storage offset "
                           f"{offset}, and itemsize {self.itemsize} requiring a storage size of {needed} are out of "
                           f"bounds for storage of size {self.storage.size_bytes}")
    return alias_with(self, n, sizes, strides, offset)


def diagonal(TensorImpl self not None, Py_ssize_t offset=0, Py_ssize_t dim1=0, Py_ssize_t dim2=1):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int a = wrap_dim(dim1, self.nd), b = wrap_dim(dim2, self.nd), i, j = 0
    cdef Py_ssize_t diag_size, start = self.offset
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        diag_size = max(min(self.sizes[a], self.sizes[b] - offset), 0)
    else:
        diag_size = max(min(self.sizes[a] + offset, self.sizes[b]), 0)
    if diag_size > 0:
        start += offset * self.strides[b] if offset >= 0 else -offset * self.strides[a]
    for i in range(self.nd):
        if i != a and i != b:
            sizes[j] = self.sizes[i]
            strides[j] = self.strides[i]
            j += 1
    sizes[j] = diag_size
    strides[j] = self.strides[a] + self.strides[b]
    return alias_with(self, j + 1, sizes, strides, start)


def unfold(TensorImpl self not None, Py_ssize_t dimension, Py_ssize_t size, Py_ssize_t step):
    """Every window of `size` elements along `dimension`, `step` apart, as a new last dim."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int d = wrap_dim(dimension, self.nd), i
    cdef Py_ssize_t max_size = 1 if self.nd == 0 else self.sizes[d]
    if size > max_size:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {max_size} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    _check_ndim(self.nd + 1)
    for i in range(self.nd):
        if i == d:
            sizes[i] = (self.sizes[i] - size) // step + 1
            strides[i] = step * self.strides[i]
        else:
            sizes[i] = self.sizes[i]
            strides[i] = self.strides[i]
    sizes[self.nd] = size
    strides[self.nd] = 1 if self.nd == 0 else self.strides[d]
    return alias_with(self, self.nd + 1, sizes, strides, self.offset)


# -- in-place views (t_, transpose_, squeeze_, unsqueeze_, as_strided_, swapaxes_) -------------

def restride_(TensorImpl self not None, TensorImpl view not None):
    """Give self the geometry (sizes, strides, offset) of `view`, a view of self's storage, and
    return self: PyTorch's in-place view ops change metadata only, so the version stays."""
    cdef int i
    if view.storage is not self.storage:
        raise RuntimeError("restride_: the view must share self's storage")
    self.nd = view.nd
    for i in range(view.nd):
        self.sizes[i] = view.sizes[i]
        self.strides[i] = view.strides[i]
    self.offset = view.offset
    self.refresh_metadata()
    return self


def view_as_real(TensorImpl self not None):
    """A complex tensor's (real, imaginary) pairs as a trailing dim of 2 of its real dtype."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i
    if self.scalar_type != ST_COMPLEX64 and self.scalar_type != ST_COMPLEX128:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if self.nd + 1 > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {self.nd + 1}")
    for i in range(self.nd):
        sizes[i] = self.sizes[i]
        strides[i] = self.strides[i] * 2
    sizes[self.nd] = 2
    strides[self.nd] = 1
    return make_view(self, self.offset * 2, self.nd + 1, sizes, strides,
                     ST_FLOAT32 if self.scalar_type == ST_COMPLEX64 else ST_FLOAT64)


def view_as_complex(TensorImpl self not None):
    """Pairs along a last dim of 2 (stride 1) read as complex numbers, with PyTorch's checks."""
    cdef int i, last = self.nd - 1
    if self.scalar_type != ST_FLOAT32 and self.scalar_type != ST_FLOAT64 and self.scalar_type != ST_FLOAT16:
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {dtype_of(self.scalar_type).type_name}")
    if self.nd == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self.sizes[last] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self.strides[last] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    for i in range(last):
        if self.strides[i] % 2 != 0:
            raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self.offset % 2 != 0:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    cdef Py_ssize_t strides[MAX_DIMS]
    for i in range(last):
        strides[i] = self.strides[i] // 2
    # float16 pairs would be complex32, which Ember names only: make_view says so
    return make_view(self, self.offset // 2, last, self.sizes, strides,
                     ST_COMPLEX64 if self.scalar_type == ST_FLOAT32 else (
                         ST_COMPLEX128 if self.scalar_type == ST_FLOAT64 else 8))
