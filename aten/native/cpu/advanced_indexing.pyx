"""Advanced indexing on CPU: index.Tensor (tensor[indices]) and index_put(_).

PyTorch's index preprocessing (masks to long indices, index tensors broadcast together, every
index bounds-checked, the indexed block placed where NumPy and PyTorch place it) builds one
offset per block position; index_plan's loop nest then gathers or writes.
"""
import warnings

from libc.stdint cimport int64_t
from c10.scalar_type cimport ST_BOOL, ST_UINT8, ST_INT32, ST_INT64
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, sizes_text
from aten.native.cpu.index_support cimport (check_kernel_dtype, check_cpu, clone_contiguous, int64_contiguous,
                                             scalar_tensor_of, bump_version, fresh)
from aten.native.cpu.index_plan cimport (M_GATHER, M_COPY, M_ADD, Plan3, run3, Offsets, new_offsets,
                                          check_in_bounds)
from aten.native.meta.messages cimport type_name, sizes_str
from aten.native.cpu.masked cimport nonzero_of



cdef class _Indexing:
    """The result of PyTorch's index preprocessing (expandTensors, broadcasting, make_info)."""
    cdef int nd_b                          # dims of the broadcast index shape
    cdef Py_ssize_t b_sizes[MAX_DIMS]
    cdef Py_ssize_t nb
    cdef list dims                         # per index tensor: the dim of self it indexes (-1: none)
    cdef list tensors                      # contiguous int64 index tensors
    cdef int npre
    cdef int npost
    cdef Py_ssize_t pre_sizes[MAX_DIMS]
    cdef Py_ssize_t post_sizes[MAX_DIMS]
    cdef Py_ssize_t s_pre[MAX_DIMS]
    cdef Py_ssize_t s_post[MAX_DIMS]
    cdef Offsets slin                     # self offset per block position, or None:
    cdef TensorImpl sidx                   # the one index tensor, with
    cdef Py_ssize_t sstride                # self's stride and
    cdef Py_ssize_t swrap                  # size along the dim it indexes

    cdef void set_self_offsets(self, Plan3* p) noexcept:
        p.nb = self.nb
        if self.slin is not None:
            p.slin = self.slin.data
            p.sidx = NULL
        else:
            p.slin = NULL
            p.sidx = <int64_t*>self.sidx.data()
            p.sstride = self.sstride
            p.swrap = self.swrap

    cdef void plan_around_block(self, Plan3* p, const Py_ssize_t* other_strides, int nd) noexcept:
        """p's pre and post dims and self's offsets from this indexing; the other operand (nd dims:
        pre, the block, post) steps by other_strides."""
        cdef int d
        p.npre = self.npre
        p.npost = self.npost
        for d in range(self.npre):
            p.pre_sizes[d] = self.pre_sizes[d]
            p.s_pre[d] = self.s_pre[d]
            p.o_pre[d] = other_strides[d]
        for d in range(self.npost):
            p.post_sizes[d] = self.post_sizes[d]
            p.s_post[d] = self.s_post[d]
            p.o_post[d] = other_strides[nd - self.npost + d]
        self.set_self_offsets(p)

    cdef tuple result_shape(self):
        cdef list shape = [self.pre_sizes[d] for d in range(self.npre)]
        shape += [self.b_sizes[d] for d in range(self.nd_b)]
        shape += [self.post_sizes[d] for d in range(self.npost)]
        return tuple(shape)


cdef _Indexing _prepare(TensorImpl self, tuple indices):
    """Masks become long indices (nonzero), index tensors broadcast together, every index is
    bounds-checked, and the indexed block is placed as NumPy and PyTorch do: where the indexed
    dims are when they are adjacent, else first."""
    cdef list dims = [], tensors = [], positions = []
    cdef int src = 0, j, k, d, nd = 0, first
    cdef TensorImpl t, nz
    cdef Py_ssize_t bshape[MAX_DIMS]
    cdef Py_ssize_t s, size, n
    cdef bint adjacent = True
    cdef _Indexing info = _Indexing.__new__(_Indexing)
    if len(indices) > self.nd:
        raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {len(indices)})")
    for obj in indices:
        if obj is not None:
            t = <TensorImpl?>obj
            check_cpu(t)
            if t.scalar_type not in (ST_INT64, ST_INT32, ST_UINT8, ST_BOOL):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    for obj in indices:
        if obj is None:
            src += 1
            continue
        t = <TensorImpl>obj
        if t.scalar_type == ST_UINT8 or t.scalar_type == ST_BOOL:
            if t.scalar_type == ST_UINT8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                              "instead.", UserWarning, stacklevel=3)
            if src + t.nd > self.nd:
                raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {src + t.nd})")
            for j in range(t.nd):
                if t.sizes[j] != self.sizes[src + j]:
                    raise IndexError(f"The shape of the mask {sizes_str(t)} at index {j} does not match the shape "
                                     f"of the indexed tensor {sizes_str(self)} at index {src + j}")
            nz = nonzero_of(t)         # (n, t.nd) int64
            if t.nd == 0:
                # A 0-dim mask indexes no dim: it adds one of size 1 (True) or 0 (False), as NumPy.
                n = nz.sizes[0]
                nz = empty_contiguous(1, &n, ST_INT64, None)
                if n:
                    (<int64_t*>nz.data())[0] = 0
                dims.append(-1)
                tensors.append(nz)
                positions.append(src)
            for j in range(t.nd):
                dims.append(src + j)
                tensors.append(_column(nz, j))
                positions.append(src + j)
            src += t.nd
        else:
            dims.append(src)
            tensors.append(int64_contiguous(t))
            positions.append(src)
            src += 1
    # Broadcast the index tensors together.
    for obj in tensors:
        nd = max(nd, (<TensorImpl>obj).nd)
    for k in range(nd):
        bshape[k] = 1
    for obj in tensors:
        t = <TensorImpl>obj
        for k in range(t.nd):
            d = nd - t.nd + k
            s = t.sizes[k]
            if bshape[d] == s or s == 1:
                continue
            if bshape[d] == 1:
                bshape[d] = s
                continue
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " +
                             ", ".join([sizes_str(<TensorImpl>o) for o in tensors]))
    info.dims = dims
    info.tensors = tensors
    info.nd_b = nd
    info.nb = 1
    for k in range(nd):
        info.b_sizes[k] = bshape[k]
        info.nb *= bshape[k]
    # Bounds, with PyTorch's messages, before any loop runs. PyTorch's kernel names the position
    # of the index tensor among the indexing tensors as the "dimension".
    j = 0
    for k in range(len(dims)):
        d = dims[k]
        if d < 0:
            continue
        t = <TensorImpl>tensors[k]
        size = self.sizes[d]
        if size == 0 and t.n_elem > 0:
            raise IndexError("index is out of bounds for dimension with size 0")
        check_in_bounds(t, t.n_elem, size, True, j, IndexError)
        j += 1
    # Where the indexed block goes.
    real = [d for d in dims if d >= 0]
    for k in range(1, len(real)):
        if real[k] != real[k - 1] + 1:
            adjacent = False
    first = (real[0] if real else positions[0]) if adjacent else 0
    info.npre = 0
    info.npost = 0
    for d in range(self.nd):
        if d in real:
            continue
        if adjacent and d < first:
            info.pre_sizes[info.npre] = self.sizes[d]
            info.s_pre[info.npre] = self.strides[d]
            info.npre += 1
        else:
            info.post_sizes[info.npost] = self.sizes[d]
            info.s_post[info.npost] = self.strides[d]
            info.npost += 1
    if len(tensors) == 1 and dims[0] >= 0:
        # one index tensor (contiguous int64, its shape is the block's): no offsets buffer
        info.slin = None
        info.sidx = <TensorImpl>tensors[0]
        info.sstride = self.strides[<int>dims[0]]
        info.swrap = self.sizes[<int>dims[0]]
    else:
        info.slin = _block_offsets(self, info)
    return info


cdef TensorImpl _column(TensorImpl nz, int j):
    """Column j of an (n, m) int64 tensor, as a contiguous 1-d tensor."""
    cdef Py_ssize_t n = nz.sizes[0], m = nz.sizes[1], i
    cdef TensorImpl col = empty_contiguous(1, &n, ST_INT64, None)
    cdef int64_t* src = <int64_t*>nz.data()
    cdef int64_t* dst = <int64_t*>col.data()
    with nogil:
        for i in range(n):
            dst[i] = src[i * m + j]
    return col


cdef Offsets _block_offsets(TensorImpl self, _Indexing info):
    """Offset into self of each position b of the broadcast index block (negative indices wrapped)."""
    cdef int nidx = len(info.tensors), k, d, nd = info.nd_b
    cdef Offsets out = new_offsets(info.nb)
    cdef int64_t* ptrs[MAX_DIMS]
    cdef Py_ssize_t istr[MAX_DIMS][MAX_DIMS]    # per index tensor, stride per broadcast dim
    cdef Py_ssize_t sstride[MAX_DIMS]
    cdef Py_ssize_t ssize[MAX_DIMS]
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t ioff[MAX_DIMS]
    cdef Py_ssize_t b
    cdef int64_t v, acc
    cdef TensorImpl t
    for k in range(nidx):
        t = <TensorImpl>info.tensors[k]
        ptrs[k] = <int64_t*>t.data()
        d = info.dims[k]
        sstride[k] = self.strides[d] if d >= 0 else 0
        ssize[k] = self.sizes[d] if d >= 0 else 0
        ioff[k] = 0
        for d in range(nd):
            if d < nd - t.nd or t.sizes[d - (nd - t.nd)] == 1:
                istr[k][d] = 0
            else:
                istr[k][d] = t.strides[d - (nd - t.nd)]
    for d in range(nd):
        cnt[d] = 0
    with nogil:
        for b in range(info.nb):
            acc = 0
            for k in range(nidx):
                v = ptrs[k][ioff[k]]
                if v < 0:
                    v += ssize[k]
                acc += v * sstride[k]
            out.data[b] = acc
            # step the broadcast multi-index
            d = nd - 1
            while d >= 0:
                cnt[d] += 1
                for k in range(nidx):
                    ioff[k] += istr[k][d]
                if cnt[d] < info.b_sizes[d]:
                    break
                for k in range(nidx):
                    ioff[k] -= istr[k][d] * info.b_sizes[d]
                cnt[d] = 0
                d -= 1
    return out


def index_cpu(TensorImpl self not None, indices):
    cdef _Indexing info
    cdef TensorImpl out
    cdef Plan3 p
    cdef Py_ssize_t out_sizes[MAX_DIMS]
    cdef Py_ssize_t cstride[MAX_DIMS]
    cdef Py_ssize_t postn = 1, acc
    cdef int d, nd
    check_cpu(self)
    indices = tuple(indices)
    if len(indices) > self.nd:
        raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {len(indices)})")
    if all(i is None for i in indices):
        # PyTorch's kernel fails an internal assert here; Ember returns a copy (as tensor[...]).
        if not indices:
            raise IndexError("at least one index must be provided")
        check_kernel_dtype(self, "index_cpu")
        return clone_contiguous(self)
    check_kernel_dtype(self, "index_cpu")
    info = _prepare(self, indices)
    shape = info.result_shape()
    nd = len(shape)
    for d in range(nd):
        out_sizes[d] = shape[d]
    out = empty_contiguous(nd, out_sizes, self.scalar_type, None)
    # out is contiguous over (pre, block, post)
    acc = 1
    for d in range(nd - 1, -1, -1):
        cstride[d] = acc
        acc *= out_sizes[d]
    for d in range(info.npost):
        postn *= info.post_sizes[d]
    info.plan_around_block(&p, cstride, nd)
    p.olin = NULL
    p.ostride = postn
    run3(self.scalar_type, M_GATHER, self.data(), out.data(), &p, None)
    return out


def index_put__cpu(TensorImpl self not None, indices, TensorImpl values not None, accumulate=False):
    cdef _Indexing info
    cdef Plan3 p
    cdef Py_ssize_t vstr[MAX_DIMS]
    cdef Py_ssize_t cnt[MAX_DIMS]
    cdef Py_ssize_t rsizes[MAX_DIMS]
    cdef int d, nd, vd, k
    cdef Py_ssize_t b, off, run
    cdef bint flat
    cdef Offsets olin
    cdef TensorImpl one
    check_cpu(self)
    check_cpu(values)
    indices = tuple(indices)
    if len(indices) > self.nd:
        raise IndexError(f"too many indices for tensor of dimension {self.nd} (got {len(indices)})")
    if not indices or all(i is None for i in indices):
        # PyTorch's kernel fails on an undefined tensor here; Ember writes values into all of self.
        if not indices:
            raise IndexError("at least one index must be provided")
        info = None
    else:
        info = _prepare(self, indices)
    if info is None:
        shape = self._sizes()
    else:
        shape = info.result_shape()
    nd = len(shape)
    # values must broadcast to the indexing result's shape
    for d in range(nd):
        rsizes[d] = shape[d]
    if values.nd > nd:
        raise RuntimeError(f"shape mismatch: value tensor of shape {sizes_str(values)} cannot be broadcast to "
                           f"indexing result of shape {sizes_text(nd, rsizes)}")
    for d in range(nd):
        vd = d - (nd - values.nd)
        if vd < 0:
            vstr[d] = 0
        elif values.sizes[vd] == rsizes[d]:
            vstr[d] = values.strides[vd]
        elif values.sizes[vd] == 1:
            vstr[d] = 0
        else:
            raise RuntimeError(f"shape mismatch: value tensor of shape {sizes_str(values)} cannot be broadcast to "
                               f"indexing result of shape {sizes_text(nd, rsizes)}")
    # After the shape check, as make_index_put_iterator
    if self.scalar_type != values.scalar_type:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{type_name(self.scalar_type)} for the destination and {type_name(values.scalar_type)} "
                           "for the source.")
    check_kernel_dtype(self, "index_put_" if not accumulate else "index_put_with_sort_")
    if info is None:
        p.npre = 0
        p.npost = nd
        for d in range(nd):
            p.post_sizes[d] = self.sizes[d]
            p.s_post[d] = self.strides[d]
            p.o_post[d] = vstr[d]
        p.nb = 1
        olin = new_offsets(1)
        olin.data[0] = 0
        p.slin = olin.data
        p.sidx = NULL
        p.olin = olin.data
    else:
        info.plan_around_block(&p, vstr, nd)
        # values' offset of each block position b: b * one stride when the values step evenly
        # through the block (or not at all), else a buffer of offsets
        flat = True
        run = -1
        p.ostride = 0
        for d in range(info.nd_b - 1, -1, -1):
            if info.b_sizes[d] == 1:
                continue
            if run < 0:
                p.ostride = vstr[info.npre + d]
                run = p.ostride * info.b_sizes[d]
            elif vstr[info.npre + d] == run:
                run *= info.b_sizes[d]
            else:
                flat = False
                break
        if flat:
            p.olin = NULL
        else:
            olin = new_offsets(info.nb)
            for d in range(info.nd_b):
                cnt[d] = 0
            off = 0
            for b in range(info.nb):
                olin.data[b] = off
                d = info.nd_b - 1
                while d >= 0:
                    cnt[d] += 1
                    off += vstr[info.npre + d]
                    if cnt[d] < info.b_sizes[d]:
                        break
                    off -= vstr[info.npre + d] * info.b_sizes[d]
                    cnt[d] = 0
                    d -= 1
            p.olin = olin.data
    if accumulate:
        one = scalar_tensor_of(1, self.scalar_type)
        run3(self.scalar_type, M_ADD, self.data(), values.data(), &p, one)
    else:
        run3(self.scalar_type, M_COPY, self.data(), values.data(), &p, None)
    bump_version(self)
    return self


def index_put_cpu(TensorImpl self not None, indices, TensorImpl values not None, accumulate=False):
    check_kernel_dtype(self, "index_put_")
    return fresh(index_put__cpu(clone_contiguous(self), indices, values, accumulate))
