"""CPU kernels of the shape operators that copy: flip, roll, repeat, repeat_interleave, cat,
tril and triu.

Data moves as raw elements (one 1-, 2-, 4- or 8-byte copy loop run by the loop engine, or
memcpy), so every dtype works, float16 included; only cat converts, when its inputs'
dtypes differ. Shapes, dims and indices are checked before any loop runs.
"""
from libc.string cimport memcpy, memset
from cpython.pyport cimport PY_SSIZE_T_MAX, PY_SSIZE_T_MIN
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t
from c10.scalar_type cimport dtype as DType, dtype_of, default_float_type, ST_INT32, ST_INT64
from c10.tensor_impl cimport (TensorImpl, MAX_DIMS, empty_contiguous, empty_with_strides,
                              sizes_from_sequence, wrap_number)
from aten.native.cpu.loop_types cimport loop_fn
from aten.native.cpu.loops cimport run_loop
from aten.native.cpu._gen_cast cimport cast_loop
from aten.native.meta.views cimport (wrap_dim, alias_with, narrow_view, dense_strides_like, contiguous_strides,
                                     format_strides)
from aten.native.meta.pointwise cimport result_type
from aten.native.cpu.element_types cimport word_t

from aten.native.meta.pointwise import check_fits
from aten.native.meta.errors import device_mismatch_error


# -- element copies -----------------------------------------------------------------------------

cdef inline void _copy_words(word_t* out, const word_t* inp, Py_ssize_t so, Py_ssize_t si,
                             Py_ssize_t n) noexcept nogil:
    """out[i * so] = inp[i * si] for i < n (strides in elements)."""
    cdef Py_ssize_t i
    cdef word_t v
    if so == 1 and si == 1:
        memcpy(out, inp, n * sizeof(word_t))
    elif so == 1 and si == 0:
        v = inp[0]
        for i in range(n):
            out[i] = v
    elif so == 1 and si == -1:
        for i in range(n):
            out[i] = inp[-i]
    elif so == 1:
        for i in range(n):
            out[i] = inp[i * si]
    else:
        for i in range(n):
            out[i * so] = inp[i * si]


cdef void _copy1(char** data, const Py_ssize_t* steps, Py_ssize_t n, const void* extra) noexcept nogil:
    _copy_words(<uint8_t*>data[0], <const uint8_t*>data[1], steps[0], steps[1], n)


cdef void _copy2(char** data, const Py_ssize_t* steps, Py_ssize_t n, const void* extra) noexcept nogil:
    _copy_words(<uint16_t*>data[0], <const uint16_t*>data[1], steps[0] // 2, steps[1] // 2, n)


cdef void _copy4(char** data, const Py_ssize_t* steps, Py_ssize_t n, const void* extra) noexcept nogil:
    _copy_words(<uint32_t*>data[0], <const uint32_t*>data[1], steps[0] // 4, steps[1] // 4, n)


cdef void _copy8(char** data, const Py_ssize_t* steps, Py_ssize_t n, const void* extra) noexcept nogil:
    _copy_words(<uint64_t*>data[0], <const uint64_t*>data[1], steps[0] // 8, steps[1] // 8, n)


cdef int copy_elements(TensorImpl dst, TensorImpl src) except -1:
    """dst[...] = src, broadcasting src: a raw element copy when the dtypes match, else a
    converting one. Dims are visited in dst's memory order (smallest stride innermost, as
    PyTorch's TensorIterator does), so copies into transposed or permuted layouts stream."""
    cdef loop_fn fn
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t dstrides[MAX_DIMS]
    cdef Py_ssize_t sstrides[MAX_DIMS]
    cdef Py_ssize_t psizes[MAX_DIMS]
    cdef Py_ssize_t pd[MAX_DIMS]
    cdef Py_ssize_t ps[MAX_DIMS]
    cdef int perm[MAX_DIMS]
    cdef int nd = dst.nd, lead, i, j, k, tmp
    cdef bint identity = True
    if src.device_type != 0 or dst.device_type != 0:
        raise device_mismatch_error(dst.device_obj, src.device_obj)
    if src.scalar_type != dst.scalar_type:
        fn = cast_loop(src.scalar_type, dst.scalar_type)
    elif dst.itemsize == 1:
        fn = _copy1
    elif dst.itemsize == 2:
        fn = _copy2
    elif dst.itemsize == 4:
        fn = _copy4
    elif dst.itemsize == 8:
        fn = _copy8
    else:
        fn = cast_loop(src.scalar_type, dst.scalar_type)    # complex128: the same-dtype conversion moves 16 bytes
    if dst.n_elem == 0:
        return 0
    # src seen with dst's shape (stride 0 where it broadcasts); the loop engine reports mismatches.
    lead = nd - src.nd
    if lead < 0:
        return run_loop(fn, dst, (src,), NULL)
    for i in range(nd):
        j = i - lead
        if j < 0 or (src.sizes[j] == 1 and dst.sizes[i] != 1):
            sstrides[i] = 0
        elif src.sizes[j] == dst.sizes[i]:
            sstrides[i] = src.strides[j]
        else:
            return run_loop(fn, dst, (src,), NULL)
    # Stable sort of the dims by decreasing dst stride; then, when the innermost dim is short
    # and the next one much longer, make the longer one innermost (fewer, longer rows).
    for i in range(nd):
        perm[i] = i
    for i in range(1, nd):
        k = i
        while k > 0 and dst.strides[perm[k - 1]] < dst.strides[perm[k]]:
            perm[k - 1], perm[k] = perm[k], perm[k - 1]
            k -= 1
    if nd >= 2 and dst.sizes[perm[nd - 1]] < 16 and dst.sizes[perm[nd - 2]] >= 4 * dst.sizes[perm[nd - 1]]:
        perm[nd - 1], perm[nd - 2] = perm[nd - 2], perm[nd - 1]
    for i in range(nd):
        identity = identity and perm[i] == i
        psizes[i] = dst.sizes[perm[i]]
        pd[i] = dst.strides[perm[i]]
        ps[i] = sstrides[perm[i]]
    if identity and lead == 0 and src.nd == nd:
        return run_loop(fn, dst, (src,), NULL)
    return run_loop(fn, alias_with(dst, nd, psizes, pd, dst.offset), (alias_with(src, nd, psizes, ps, src.offset),),
                    NULL)


cdef TensorImpl empty_preserve(TensorImpl t):
    """empty_like(t) under preserve_format (t's stride order)."""
    cdef Py_ssize_t strides[MAX_DIMS]
    dense_strides_like(t, strides)
    return empty_with_strides(t.nd, t.sizes, strides, t.scalar_type, None)


cdef TensorImpl contiguous_copy(TensorImpl t):
    cdef TensorImpl out = empty_contiguous(t.nd, t.sizes, t.scalar_type, None)
    copy_elements(out, t)
    return out


def clone_cpu(TensorImpl self not None, memory_format=None):
    """A copy of self: preserve_format (the default) keeps self's stride order."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef TensorImpl out
    if format_strides(self, memory_format, "clone", strides):
        out = empty_with_strides(self.nd, self.sizes, strides, self.scalar_type, None)
    else:
        out = empty_contiguous(self.nd, self.sizes, self.scalar_type, None)
    copy_elements(out, self)
    return out


# -- flip, roll -----------------------------------------------------------------------------------

cdef int dim_flags(TensorImpl self, object dims, bint* flags, bint wrap_scalar) except -1:
    """flags[d] = d is in dims (wrapped); PyTorch's error for a repeated dim."""
    cdef int i, d
    for i in range(MAX_DIMS):
        flags[i] = False
    for v in dims:
        d = wrap_dim(v, self.nd, wrap_scalar)
        if flags[d]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        flags[d] = True
    return 0


def flip_cpu(TensorImpl self not None, dims):
    cdef bint flags[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t offset = self.offset
    cdef int i
    cdef TensorImpl out
    dim_flags(self, dims, flags, True)
    out = empty_preserve(self)
    # Read self backwards along the flipped dims: a negative-stride view, then one copy.
    for i in range(self.nd):
        strides[i] = self.strides[i]
        if flags[i] and self.sizes[i] > 1:
            offset += (self.sizes[i] - 1) * self.strides[i]
            strides[i] = -self.strides[i]
    copy_elements(out, alias_with(self, self.nd, self.sizes, strides, offset))
    return out


def roll_cpu(TensorImpl self not None, shifts, dims=()):
    cdef Py_ssize_t shift[MAX_DIMS]
    cdef Py_ssize_t n, s, src_start, dst_start, length
    cdef int k, d, ndims
    cdef long b, blocks
    cdef int which[MAX_DIMS]
    cdef TensorImpl out, flat, dst, src
    if len(shifts) == 0:
        raise RuntimeError("`shifts` required")
    if len(dims) == 0 and len(shifts) == 1:
        # Roll the flattened tensor, then give it back its shape.
        flat = flatten_contiguous(self)
        out = roll_cpu(flat, shifts, (0,))
        contiguous_strides(self.nd, self.sizes, shift)
        return alias_with(out, self.nd, self.sizes, shift, 0)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    # a dim named twice rolls by the sum of its shifts (PyTorch rolls it once per mention)
    total = {}
    for k in range(len(dims)):
        d = wrap_dim(dims[k], self.nd, False)
        total[d] = total.get(d, 0) + shifts[k]
    ndims = len(total)
    if self.n_elem == 0:
        out = empty_preserve(self)
        return out
    for k, d in enumerate(total):
        which[k] = d
        shift[k] = total[d] % self.sizes[d]        # Python's %: in [0, n)
    out = empty_contiguous(self.nd, self.sizes, self.scalar_type, None)
    # Each rolled dim splits into two runs: out[s:] = self[:n - s] and out[:s] = self[n - s:].
    # Copy every combination of runs (2 ** len(dims) block copies).
    blocks = (<long>1) << ndims
    for b in range(blocks):
        dst = out
        src = self
        for k in range(ndims):
            d = which[k]
            n = self.sizes[d]
            s = shift[k]
            if (b >> k) & 1:
                src_start, dst_start, length = n - s, 0, s
            else:
                src_start, dst_start, length = 0, s, n - s
            dst = narrow_view(dst, d, dst_start, length)
            src = narrow_view(src, d, src_start, length)
        if dst.n_elem:
            copy_elements(dst, src)
    return out


cdef TensorImpl flatten_contiguous(TensorImpl t):
    """t as a 1-D contiguous tensor: a view when t is contiguous, else a copy."""
    cdef Py_ssize_t n = t.n_elem, one = 1
    cdef TensorImpl c = t if t.contiguous else contiguous_copy(t)
    return alias_with(c, 1, &n, &one, c.offset)


# -- repeat, repeat_interleave ---------------------------------------------------------------------

cdef int _repeat_into(TensorImpl out, TensorImpl src, const Py_ssize_t* reps, int n) except -1:
    """out (n dims, sizes src.sizes * reps) = src tiled reps times: out viewed as (reps[i],
    src.sizes[i]) pairs is src broadcast over the reps dims. Dims whose repeat is 1 need no
    pair; above MAX_DIMS dims, one repeated dim's repeats are copied one at a time."""
    cdef Py_ssize_t o_sizes[MAX_DIMS]
    cdef Py_ssize_t o_strides[MAX_DIMS]
    cdef Py_ssize_t s_strides[MAX_DIMS]
    cdef Py_ssize_t rest[MAX_DIMS]
    cdef int i, m = 0, pairs = 0, f = -1
    cdef Py_ssize_t r
    for i in range(n):
        if reps[i] != 1:
            pairs += 2
            if f < 0:
                f = i
        else:
            pairs += 1
    if pairs > MAX_DIMS:
        for i in range(n):
            rest[i] = 1 if i == f else reps[i]
        for r in range(reps[f]):
            _repeat_into(narrow_view(out, f, r * src.sizes[f], src.sizes[f]), src, rest, n)
        return 0
    for i in range(n):
        if reps[i] != 1:
            o_sizes[m] = reps[i]
            o_strides[m] = src.sizes[i] * out.strides[i]
            s_strides[m] = 0
            m += 1
        o_sizes[m] = src.sizes[i]
        o_strides[m] = out.strides[i]
        s_strides[m] = src.strides[i]
        m += 1
    copy_elements(alias_with(out, m, o_sizes, o_strides, out.offset),
                  alias_with(src, m, o_sizes, s_strides, src.offset))
    return 0


def repeat_cpu(TensorImpl self not None, repeats):
    cdef Py_ssize_t reps[MAX_DIMS]
    cdef Py_ssize_t padded[MAX_DIMS]
    cdef Py_ssize_t pstrides[MAX_DIMS]
    cdef Py_ssize_t target[MAX_DIMS]
    cdef int n, i, lead
    cdef bint zero = False
    cdef TensorImpl out
    if len(repeats) < self.nd:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    n = sizes_from_sequence(repeats, reps, "repeats")
    lead = n - self.nd
    for i in range(n):
        padded[i] = 1 if i < lead else self.sizes[i - lead]
        pstrides[i] = 0 if i < lead else self.strides[i - lead]
        product = padded[i] * <object>reps[i]       # in Python ints: a negative result is empty's error
        if not PY_SSIZE_T_MIN <= product <= PY_SSIZE_T_MAX:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(self._sizes())} repeated "
                               f"{list(repeats)} times")
        target[i] = product
        zero = zero or reps[i] == 0
    out = empty_contiguous(n, target, self.scalar_type, None)
    if zero or out.n_elem == 0:
        return out
    _repeat_into(out, alias_with(self, n, padded, pstrides, self.offset), reps, n)
    return out


cdef TensorImpl _index_along(TensorImpl src, int dim, const int64_t* idx, Py_ssize_t total):
    """out[..., j, ...] = src[..., idx[j], ...] along dim (indices already in range)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t outer = 1, inner, n, o, j
    cdef int i
    cdef TensorImpl c = src if src.contiguous else contiguous_copy(src)
    cdef TensorImpl out
    cdef char* dst
    cdef char* base
    for i in range(src.nd):
        sizes[i] = src.sizes[i]
    sizes[dim] = total
    out = empty_contiguous(src.nd, sizes, src.scalar_type, None)
    if out.n_elem == 0:
        return out
    for i in range(dim):
        outer *= src.sizes[i]
    n = src.sizes[dim]
    inner = src.itemsize
    for i in range(dim + 1, src.nd):
        inner *= src.sizes[i]
    dst = out.data()
    base = c.data()
    with nogil:
        for o in range(outer):
            for j in range(total):
                memcpy(dst + (o * total + j) * inner, base + (o * n + idx[j]) * inner, inner)
    return out


cdef TensorImpl _repeat_counts(TensorImpl repeats, Py_ssize_t n):
    """The repeat counts as a contiguous int64 CPU tensor of n elements (a one-element repeats
    is broadcast), with PyTorch's dtype error and negativity check."""
    cdef TensorImpl counts
    cdef int64_t* c
    cdef Py_ssize_t i, zero = 0
    cdef bint negative = False
    if repeats.scalar_type != ST_INT64 and repeats.scalar_type != ST_INT32:
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                  f"'{dtype_of(repeats.scalar_type).type_name}'")
    if repeats.device_type != 0:
        raise RuntimeError("repeat_interleave: repeats must be a CPU tensor for the CPU kernel")
    counts = empty_contiguous(1, &n, ST_INT64, None)
    copy_elements(counts, alias_with(repeats, 1, &n, &zero, repeats.offset) if repeats.n_elem == 1 else repeats)
    c = <int64_t*>counts.data()
    with nogil:
        for i in range(n):
            negative = negative or c[i] < 0
    if negative:
        raise RuntimeError("repeats can not be negative")
    return counts


cdef TensorImpl _repeated_indices(TensorImpl counts, int st, output_size):
    """0, 1, ... each repeated counts[i] times, as a new 1-D tensor of dtype st (int32/int64)."""
    cdef const int64_t* c = <const int64_t*>counts.data()
    cdef Py_ssize_t n = counts.n_elem, total = 0, i, j, pos = 0
    cdef TensorImpl out
    cdef char* p
    for i in range(n):
        total += c[i]
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")
    out = empty_contiguous(1, &total, st, None)
    p = out.data()
    with nogil:
        for i in range(n):
            if st == ST_INT64:
                for j in range(c[i]):
                    (<int64_t*>p)[pos + j] = i
            else:
                for j in range(c[i]):
                    (<int32_t*>p)[pos + j] = <int32_t>i
            pos += c[i]
    return out


def repeat_interleave_cpu(TensorImpl repeats not None, output_size=None):
    """The indices 0, 1, ... each repeated repeats[i] times (dtype of repeats)."""
    if repeats.scalar_type != ST_INT64 and repeats.scalar_type != ST_INT32:
        _repeat_counts(repeats, 0)          # PyTorch's dtype error first
    if repeats.nd != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    return _repeated_indices(_repeat_counts(repeats, repeats.sizes[0]), repeats.scalar_type, output_size)


def repeat_interleave_self_tensor_cpu(TensorImpl self not None, TensorImpl repeats not None, dim=None,
                                      output_size=None):
    cdef TensorImpl inp, idx
    cdef int d
    cdef Py_ssize_t n
    if dim is None:
        inp = flatten_contiguous(self)
        d = 0
    else:
        inp = self
        d = wrap_dim(dim, self.nd)
        if self.nd == 0:
            wrap_dim(d, 0, False)
    n = inp.sizes[d]
    if repeats.nd > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.nd == 1 and repeats.sizes[0] != 1 and repeats.sizes[0] != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{repeats.sizes[0]} and input.size({d}) = {n}")
    idx = _repeated_indices(_repeat_counts(repeats, n), ST_INT64, output_size)
    return _index_along(inp, d, <const int64_t*>idx.data(), idx.n_elem)


# -- cat ------------------------------------------------------------------------------------------

cdef bint _strides_like_channels_last(TensorImpl t) noexcept:
    """PyTorch's is_channels_last_strides_2d (what suggest_memory_format reads)."""
    cdef Py_ssize_t mn = 0
    cdef int d
    if t.nd != 4 or t.strides[1] == 0:
        return False
    for d in (1, 3, 2, 0):
        if t.sizes[d] == 0 or t.strides[d] < mn:
            return False
        if d == 0 and mn == t.strides[1]:
            return False
        mn = t.strides[d]
        if t.sizes[d] > 1:
            mn *= t.sizes[d]
    return True


def cat_cpu(tensors, Py_ssize_t dim=0):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t total = 0, offset, zero = 0
    cdef int i, d, k, valid = -1, out_type
    cdef bint channels_last = True
    cdef TensorImpl t, first, out
    cdef Py_ssize_t n = len(tensors)
    if n == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i in range(n):
        t = <TensorImpl?>tensors[i]
        if t.nd == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if t.device_type != 0:
            raise device_mismatch_error("cpu", t.device_obj)
        channels_last = channels_last and _strides_like_channels_last(t)
        if valid < 0 and not (t.nd == 1 and t.n_elem == 0):
            valid = i
    out_type = result_type(tuple(tensors))
    if valid < 0:
        # Only legacy 1-D empty tensors: the result is one of them.
        return empty_contiguous(1, &zero, out_type, None)
    first = <TensorImpl>tensors[valid]
    d = wrap_dim(dim, first.nd)
    for i in range(n):
        t = <TensorImpl>tensors[i]
        if t.nd == 1 and t.n_elem == 0:
            continue
        if t.nd != first.nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.nd} and {t.nd}")
        for k in range(first.nd):
            if k != d and t.sizes[k] != first.sizes[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{first.sizes[k]} but got size {t.sizes[k]} for tensor number {i} in the list.")
        total += t.sizes[d]
    for k in range(first.nd):
        sizes[k] = first.sizes[k]
    sizes[d] = total
    if channels_last:
        strides[1] = 1
        strides[3] = sizes[1]
        strides[2] = strides[3] * sizes[3]
        strides[0] = strides[2] * sizes[2]
        out = empty_with_strides(4, sizes, strides, out_type, None)
    else:
        out = empty_contiguous(first.nd, sizes, out_type, None)
    offset = 0
    for i in range(n):
        t = <TensorImpl>tensors[i]
        if t.nd == 1 and t.n_elem == 0:
            continue
        if t.n_elem:
            copy_elements(narrow_view(out, d, offset, t.sizes[d]), t)
        offset += t.sizes[d]
    return out


# -- tril, triu -----------------------------------------------------------------------------------

cdef TensorImpl _triangle(TensorImpl self, Py_ssize_t k, bint lower, str name):
    cdef TensorImpl out
    cdef Py_ssize_t rows, cols, batches, b, i, lo, hi, row_bytes
    cdef char* base
    cdef Py_ssize_t item = self.itemsize
    if self.nd < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    out = contiguous_copy(self)
    rows = self.sizes[self.nd - 2]
    cols = self.sizes[self.nd - 1]
    if out.n_elem == 0:
        return out
    batches = out.n_elem // (rows * cols)
    base = out.data()
    row_bytes = cols * item
    with nogil:
        for b in range(batches):
            for i in range(rows):
                # tril keeps columns j <= i + k; triu keeps j >= i + k: zero the rest of the row.
                if lower:
                    lo = min(max(i + k + 1, 0), cols)
                    hi = cols
                else:
                    lo = 0
                    hi = min(max(i + k, 0), cols)
                if hi > lo:
                    memset(base + (b * rows + i) * row_bytes + lo * item, 0, (hi - lo) * item)
    return out


def tril_cpu(TensorImpl self not None, Py_ssize_t diagonal=0):
    return _triangle(self, diagonal, True, "tril")


def triu_cpu(TensorImpl self not None, Py_ssize_t diagonal=0):
    return _triangle(self, diagonal, False, "triu")


# -- new tensors shaped like another (the CPU fast path of the *_like ops) ---------------------------

def new_like_cpu(TensorImpl self not None, dtype=None, memory_format=None):
    """An uninitialised CPU tensor with empty_like(self, dtype=dtype, memory_format=...)'s
    strides: self's stride order under preserve_format (the default)."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int st = self.scalar_type if dtype is None else (<DType?>dtype).scalar_type
    if not format_strides(self, memory_format, "empty_like", strides):
        return empty_contiguous(self.nd, self.sizes, st, None)
    return empty_with_strides(self.nd, self.sizes, strides, st, None)


def fill_cpu(TensorImpl self not None, value):
    """self[...] = value (a Python number) with fill_'s checks, without the dispatcher."""
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    check_fits(value, dtype_of(self.scalar_type))
    copy_elements(self, wrap_number(value))
    return self


def eye_cpu(Py_ssize_t n, Py_ssize_t m, dtype=None):
    """The n x m identity as a new CPU tensor (sizes already checked)."""
    cdef Py_ssize_t sizes[2]
    cdef TensorImpl out, one
    cdef Py_ssize_t i, k
    sizes[0] = n
    sizes[1] = m
    out = empty_contiguous(2, sizes, default_float_type() if dtype is None else (<DType?>dtype).scalar_type, None)
    memset(out.data(), 0, out.n_elem * out.itemsize)
    one = empty_contiguous(0, NULL, out.scalar_type, None)
    copy_elements(one, wrap_number(True))
    k = min(n, m)
    for i in range(k):
        memcpy(out.data() + (i * m + i) * out.itemsize, one.data(), out.itemsize)
    return out
