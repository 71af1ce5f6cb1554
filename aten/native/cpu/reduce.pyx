"""The CPU reduction engine: one driver for every reduction (sum, max, var, norm, argmax ...).

Given an input (any strides, read in place), the set of reduced dims and an op's accumulator
functions (ReduceOps, see reduce.pxd), it:
1. drops size-1 dims, sorts the kept and the reduced dims by input stride (innermost first) and
   merges neighbours that step evenly (a contiguous full reduction becomes one dim);
2. picks the *column* dim (the innermost kept dim: outputs handled together by one leaf call)
   and the *leaf* dim (the reduced dim the op's leaf walks; the innermost reduced dim when it is
   innermost in memory and long, else the longest reduced dim), and splits the outputs into
   units of at most COL_BYTES of accumulators;
3. reduces the other reduced dims by pairwise halving (so float sums stay accurate over any
   number of dims) and lets the leaf reduce its dim (the leaf sums pairwise too);
4. runs without the GIL above NOGIL_MIN elements, and on several threads from 2 * grain size
   elements (32768 per thread, PyTorch's GRAIN_SIZE; below about 64K elements a second thread
   cost more than it saved here): units are split across threads when there are enough;
   otherwise, when the leaf walks rows of columns (a reduction over an outer dim) or there is
   one output, each unit's outermost reduced dim is split into parts, computed across the threads,
   whose partial accumulators are combined in order (so argmax keeps the first index on ties);
   otherwise units are made narrower. How many parts, and how narrow the units, follows from the
   sizes alone (one part per grain, at most MAX_PARTS), never from the thread count: the same
   bits on any number of threads.
Every op's functions run without the GIL and cannot fail: ops validate before calling here.
"""
from libc.stdlib cimport malloc, free
from cython.parallel cimport prange

from c10.scalar_type cimport dtype_of, opmath_type, has_arithmetic, is_barebones
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous

from aten.native.cpu import loops as _loops

cdef enum:
    NOGIL_MIN = 4096        # elements read: below this the GIL is kept (releasing costs more)
    LEAF_MIN_ROW = 16       # a reduced innermost dim at least this long is walked by the leaf
    MAX_PARTS = 64          # the most parts a unit's outermost reduced dim is split into

cdef Py_ssize_t _grain_size = 32768   # elements read per thread, at least (PyTorch's GRAIN_SIZE; measured)


def get_reduce_grain_size():
    return _grain_size


def set_reduce_grain_size(Py_ssize_t n):
    """Elements per thread below which a reduction runs on one thread (tests force 1)."""
    global _grain_size
    if n < 1:
        raise ValueError(f"grain size must be positive, got {n}")
    _grain_size = n


# ---------------------------------------------------------------------------------------------
# Dims

cdef int parse_dims(TensorImpl self, object dim, bint empty_means_all, DimSet* out) except -1:
    cdef int nd = self.nd, d, w
    cdef bint seen[MAX_DIMS]
    out.ndim = nd
    for d in range(MAX_DIMS):
        out.reduce[d] = False
        seen[d] = False
    if dim is None:
        for d in range(nd):
            out.reduce[d] = True
        return 0
    if isinstance(dim, int):
        dims = (dim,)
    else:
        dims = tuple(dim)
    if len(dims) == 0:
        if empty_means_all:
            for d in range(nd):
                out.reduce[d] = True
        return 0
    for x in dims:
        w = self._wrap_dim(x)
        if seen[w]:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen[w] = True
        if w < nd:
            out.reduce[w] = True
    return 0


cdef int all_dims(TensorImpl self, DimSet* out) except -1:
    cdef int d
    out.ndim = self.nd
    for d in range(MAX_DIMS):
        out.reduce[d] = d < self.nd
    return 0


cdef bint dims_given(object dim) except -1:
    if dim is None:
        return False
    if isinstance(dim, int):
        return True
    return len(dim) > 0


cdef Py_ssize_t reduced_count(TensorImpl self, const DimSet* dims) noexcept:
    cdef Py_ssize_t n = 1
    cdef int d
    for d in range(self.nd):
        if dims.reduce[d]:
            n *= self.sizes[d]
    return n


cdef int result_shape(TensorImpl self, const DimSet* dims, bint keepdim, Py_ssize_t* sizes) except -1:
    cdef int d, nd = 0
    for d in range(self.nd):
        if not dims.reduce[d]:
            sizes[nd] = self.sizes[d]
            nd += 1
        elif keepdim:
            sizes[nd] = 1
            nd += 1
    return nd


cdef int check_nonempty(TensorImpl self, const DimSet* dims, str name, bint dim_given) except -1:
    """PyTorch's errors for reductions without an identity (max, amin, argmax ...) on empty input."""
    cdef int d
    if self.n_elem != 0:
        return 0
    if not dim_given:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in range(self.nd):
        if dims.reduce[d] and self.sizes[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return 0


cdef int check_dtype_kernel(int scalar_type, str kernel) except -1:
    """Kernels see the reduced floats only as float32 copies (ember_opmath); a direct call refuses them."""
    if opmath_type(scalar_type) != scalar_type or not has_arithmetic(scalar_type) or is_barebones(scalar_type):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype_of(scalar_type).type_name}\'')
    return 0


# ---------------------------------------------------------------------------------------------
# The plan and the driver

cdef struct Job:
    const ReduceOps* ops
    const ReduceCtx* ctx
    const char* in_data
    int nouter                      # kept dims other than the column dim
    Py_ssize_t osize[MAX_DIMS]
    Py_ssize_t oin[MAX_DIMS]        # input strides, bytes
    Py_ssize_t oout[MAX_DIMS]       # output strides, elements
    Py_ssize_t ncols                # the column dim (1 when every dim is reduced)
    Py_ssize_t cs                   # its input stride, bytes
    Py_ssize_t cout                 # its output stride, elements
    Py_ssize_t block                # columns per unit
    Py_ssize_t nblocks
    Py_ssize_t nunits
    int nred                        # reduced levels; level 0 is the leaf's dim, the last the outermost
    Py_ssize_t rsize[MAX_DIMS]
    Py_ssize_t rin[MAX_DIMS]        # bytes
    Py_ssize_t acc_bytes            # block * acc_size
    Py_ssize_t scratch_bytes        # per thread


cdef struct Unit:
    Py_ssize_t n                    # columns in this unit
    Py_ssize_t out_index            # output element of column 0
    Py_ssize_t out_step             # output elements between columns
    const char* base                # input element of column 0, row 0 of every reduced dim


cdef void _rec(const Job* j, const Unit* u, char* acc, int level, Py_ssize_t start, Py_ssize_t count,
               const char* base, char* scratch) noexcept nogil:
    """acc <- acc combined with reduced dim `level` over [start, start+count) and all dims below."""
    cdef Py_ssize_t i, h
    if level == 0:
        j.ops.leaf(acc, base + start * j.rin[0], u.n, j.cs, count, j.rin[0], start, j.ctx)
        return
    if count <= 2:
        for i in range(start, start + count):
            _rec(j, u, acc, level - 1, 0, j.rsize[level - 1], base + i * j.rin[level], scratch)
        return
    h = count // 2
    _rec(j, u, acc, level, start, h, base, scratch)
    j.ops.init(scratch, u.n, u.out_index, u.out_step, j.ctx)
    _rec(j, u, scratch, level, start + h, count - h, base, scratch + j.acc_bytes)
    j.ops.combine(acc, scratch, u.n, j.ctx)


cdef void _unit(const Job* j, Py_ssize_t index, Unit* u) noexcept nogil:
    cdef Py_ssize_t b = index % j.nblocks, rest = index // j.nblocks, i, off, oi
    cdef int d
    off = b * j.block * j.cs
    oi = b * j.block * j.cout
    for d in range(j.nouter):
        i = rest % j.osize[d]
        rest = rest // j.osize[d]
        off += i * j.oin[d]
        oi += i * j.oout[d]
    u.n = j.block if j.ncols - b * j.block > j.block else j.ncols - b * j.block
    u.out_index = oi
    u.out_step = j.cout
    u.base = j.in_data + off


cdef void _run_units(const Job* j, Py_ssize_t begin, Py_ssize_t end, char* scratch) noexcept nogil:
    cdef Unit u
    cdef Py_ssize_t index
    for index in range(begin, end):
        _unit(j, index, &u)
        j.ops.init(scratch, u.n, u.out_index, u.out_step, j.ctx)
        if j.nred > 0:
            _rec(j, &u, scratch, j.nred - 1, 0, j.rsize[j.nred - 1], u.base, scratch + j.acc_bytes)
        j.ops.project(scratch, u.n, u.out_index, u.out_step, j.ctx)


cdef void _thread_units(const Job* j, Py_ssize_t t, Py_ssize_t chunk, char* scratch) noexcept nogil:
    cdef Py_ssize_t begin = t * chunk, end = (t + 1) * chunk
    if end > j.nunits:
        end = j.nunits
    if begin < end:
        _run_units(j, begin, end, scratch)


cdef void _part(const Job* j, const Unit* u, Py_ssize_t t, Py_ssize_t chunk, char* scratch) noexcept nogil:
    """Part t, [t*chunk, (t+1)*chunk) of the outermost reduced dim, into scratch."""
    cdef int top = j.nred - 1
    cdef Py_ssize_t start = t * chunk, count = chunk
    j.ops.init(scratch, u.n, u.out_index, u.out_step, j.ctx)
    if start + count > j.rsize[top]:
        count = j.rsize[top] - start
    if count > 0:
        _rec(j, u, scratch, top, start, count, u.base, scratch + j.acc_bytes)


cdef void _run_split(const Job* j, Py_ssize_t parts, Py_ssize_t nt, char* scratch) noexcept nogil:
    """Few units: each unit's outermost reduced dim split into parts (computed across nt threads), combined in
    order."""
    cdef Unit u
    cdef Py_ssize_t index, t, chunk = (j.rsize[j.nred - 1] + parts - 1) // parts
    for index in range(j.nunits):
        _unit(j, index, &u)
        if nt > 1:
            for t in prange(parts, schedule="static", num_threads=nt):
                _part(j, &u, t, chunk, scratch + t * j.scratch_bytes)
        else:
            for t in range(parts):
                _part(j, &u, t, chunk, scratch + t * j.scratch_bytes)
        for t in range(1, parts):
            if t * chunk < j.rsize[j.nred - 1]:
                j.ops.combine(scratch, scratch + t * j.scratch_bytes, u.n, j.ctx)
        j.ops.project(scratch, u.n, u.out_index, u.out_step, j.ctx)


cdef inline int _bit_length(Py_ssize_t n) noexcept:
    cdef int b = 0
    while n > 0:
        b += 1
        n >>= 1
    return b


cdef int reduce_into(TensorImpl out, TensorImpl src, const DimSet* dims, const ReduceOps* ops,
                     ReduceCtx* ctx) except -1:
    cdef Job j
    cdef int nd = src.nd, d, e, nkeep = 0, nred = 0, leaf, depth
    cdef Py_ssize_t ksize[MAX_DIMS]
    cdef Py_ssize_t kin[MAX_DIMS]
    cdef Py_ssize_t kout[MAX_DIMS]
    cdef Py_ssize_t rsize[MAX_DIMS]
    cdef Py_ssize_t rin[MAX_DIMS]
    cdef Py_ssize_t ostride = 1, n_out = 1, n_red = 1, total, nt, chunk, tmp, outer, parts
    cdef Py_ssize_t itemsize = src.itemsize
    cdef char* scratch
    cdef bint split
    if dims.ndim != nd:
        raise RuntimeError(f"reduction dims were parsed for {dims.ndim} dims, the input has {nd}")
    if ops.acc_size <= 0 or ops.acc_size > ACC_MAX:
        raise RuntimeError(f"reduction accumulator of {ops.acc_size} bytes (at most {ACC_MAX})")
    # Kept and reduced dims, inner logical dims first; output strides of the kept dims.
    for d in range(nd - 1, -1, -1):
        if dims.reduce[d]:
            n_red *= src.sizes[d]
            if src.sizes[d] != 1:
                rsize[nred] = src.sizes[d]
                rin[nred] = src.strides[d] * itemsize
                nred += 1
        else:
            n_out *= src.sizes[d]
            if src.sizes[d] != 1:
                ksize[nkeep] = src.sizes[d]
                kin[nkeep] = src.strides[d] * itemsize
                kout[nkeep] = ostride
                nkeep += 1
            ostride *= src.sizes[d]
    if out.n_elem != n_out or not out.contiguous:
        raise RuntimeError(f"reduction output has {out.n_elem} elements, expected {n_out} (contiguous)")
    ctx.count = n_red
    if n_out == 0:
        return 0
    # Sort by input stride (stable insertion sort), then merge neighbours that step evenly.
    for d in range(1, nkeep):
        e = d
        while e > 0 and kin[e - 1] > kin[e]:
            ksize[e], ksize[e - 1] = ksize[e - 1], ksize[e]
            kin[e], kin[e - 1] = kin[e - 1], kin[e]
            kout[e], kout[e - 1] = kout[e - 1], kout[e]
            e -= 1
    for d in range(1, nred):
        e = d
        while e > 0 and rin[e - 1] > rin[e]:
            rsize[e], rsize[e - 1] = rsize[e - 1], rsize[e]
            rin[e], rin[e - 1] = rin[e - 1], rin[e]
            e -= 1
    e = 0
    for d in range(nkeep):
        if e > 0 and kin[d] == kin[e - 1] * ksize[e - 1] and kout[d] == kout[e - 1] * ksize[e - 1]:
            ksize[e - 1] *= ksize[d]
            continue
        ksize[e], kin[e], kout[e] = ksize[d], kin[d], kout[d]
        e += 1
    nkeep = e
    e = 0
    for d in range(nred):
        if e > 0 and rin[d] == rin[e - 1] * rsize[e - 1]:
            rsize[e - 1] *= rsize[d]
            continue
        rsize[e], rin[e] = rsize[d], rin[d]
        e += 1
    nred = e
    if nred == 0:                     # nothing reduced (size-1 dims or a 0-dim input): one row each
        rsize[0] = 1
        rin[0] = 0
        nred = 1
    # The leaf's dim goes to level 0; the others keep their order (outermost last).
    leaf = 0
    if not ((nkeep == 0 or rin[0] < kin[0]) and rsize[0] >= LEAF_MIN_ROW):
        for d in range(1, nred):
            if rsize[d] > rsize[leaf]:
                leaf = d
    if leaf != 0:
        tmp = rsize[leaf]
        total = rin[leaf]
        for d in range(leaf, 0, -1):
            rsize[d], rin[d] = rsize[d - 1], rin[d - 1]
        rsize[0], rin[0] = tmp, total
    # The job.
    j.ops = ops
    j.ctx = ctx
    ctx.out = out.data()
    j.in_data = src.data()
    if nkeep > 0:
        j.ncols, j.cs, j.cout = ksize[0], kin[0], kout[0]
    else:
        j.ncols, j.cs, j.cout = 1, 0, 0
    j.nouter = nkeep - 1 if nkeep > 0 else 0
    for d in range(j.nouter):
        j.osize[d], j.oin[d], j.oout[d] = ksize[d + 1], kin[d + 1], kout[d + 1]
    # Parts: one per grain of elements (at most MAX_PARTS), from the sizes alone. Units across threads when
    # there are as many as parts; else, when the leaf walks rows of columns (it reads each row once for all its
    # columns), each unit's outermost reduced dim is split into the parts; else narrower units, split or not.
    total = n_out * n_red
    parts = total // _grain_size
    if parts > MAX_PARTS:
        parts = MAX_PARTS
    if parts < 1:
        parts = 1
    nt = _loops.get_num_threads()
    if nt > parts:
        nt = parts
    outer = n_out // j.ncols
    j.block = COL_BYTES // ops.acc_size
    if j.block > j.ncols:
        j.block = j.ncols
    j.nblocks = (j.ncols + j.block - 1) // j.block
    split = False
    if parts > 1 and outer * j.nblocks < parts:
        if not (nkeep > 0 and rin[0] >= kin[0]):
            tmp = (parts + outer - 1) // outer                  # blocks wanted per outer index
            j.block = (j.ncols + tmp - 1) // tmp
            j.nblocks = (j.ncols + j.block - 1) // j.block
        if outer * j.nblocks < parts and n_red > 0 and rsize[nred - 1] >= 2:
            split = True
            if parts > rsize[nred - 1]:                         # a part per entry of that dim, at most
                parts = rsize[nred - 1]
                if nt > parts:
                    nt = parts
    j.nunits = j.nblocks * outer
    j.nred = nred if n_red > 0 else 0
    for d in range(nred):
        j.rsize[d], j.rin[d] = rsize[d], rin[d]
    j.acc_bytes = j.block * ops.acc_size
    depth = 2
    for d in range(1, nred):
        depth += _bit_length(rsize[d])
    j.scratch_bytes = j.acc_bytes * (depth + 1)
    j.scratch_bytes = (j.scratch_bytes + 63) & ~63
    scratch = <char*>malloc(j.scratch_bytes * (parts if split else nt))
    if scratch == NULL:
        raise MemoryError()
    try:
        if split:
            with nogil:
                _run_split(&j, parts, nt, scratch)
        elif nt == 1 and total < NOGIL_MIN:
            _run_units(&j, 0, j.nunits, scratch)
        elif nt == 1:
            with nogil:
                _run_units(&j, 0, j.nunits, scratch)
        else:
            chunk = (j.nunits + nt - 1) // nt
            with nogil:
                for d in prange(<int>nt, schedule="static", num_threads=nt):
                    _thread_units(&j, d, chunk, scratch + d * j.scratch_bytes)
    finally:
        free(scratch)
    return 0


cdef TensorImpl reduce(TensorImpl src, const DimSet* dims, bint keepdim, int out_type,
                       const ReduceOps* ops, ReduceCtx* ctx):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int nd = result_shape(src, dims, keepdim, sizes)
    cdef TensorImpl out = empty_contiguous(nd, sizes, out_type, None)
    reduce_into(out, src, dims, ops, ctx)
    return out
