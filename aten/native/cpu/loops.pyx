"""The CPU loop engine for pointwise ops (PyTorch's TensorIterator, in small).

Given an output and inputs of one dtype, it broadcasts the inputs to the output's shape
(stride 0 on broadcast dims), coalesces dimensions that are contiguous in every operand,
then calls the op's inner loop once per innermost row: one call in total for contiguous
operands. Above 4096 elements the GIL is released; above the grain size (32768, PyTorch's
GRAIN_SIZE) the rows are split across OpenMP threads.
"""
import os

from cython.parallel cimport prange
from libc.string cimport memcpy

from c10.scalar_type cimport dtype_of, castable
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.loop_types cimport loop_fn, MAX_OPERANDS
from aten.native.cpu._gen_cast cimport cast_loop
from aten.native.meta.pointwise cimport broadcast_shape
from aten.native.meta.errors import device_mismatch_error, output_cast_error, output_shape_error, warn_resized

cdef enum:
    NOGIL_THRESHOLD = 4096

cdef Py_ssize_t _grain_size = 32768


def _env_num_threads(str name, value, int default):
    """A thread count from the environment variable `name`, as PyTorch's get_env_num_threads: the
    leading integer (OpenMP's "4,2" means 4 at the outer level); a warning and the default for
    anything else."""
    if value is None or value.strip() == "":
        return default
    try:
        n = int(value.split(",", 1)[0])
        if n > 0:
            return n
    except ValueError:
        pass
    import warnings
    warnings.warn(f"Invalid {name} variable value, {value!r} is not a positive integer", UserWarning, stacklevel=2)
    return default


def _default_num_threads():
    """PyTorch's: MKL_NUM_THREADS, else OMP_NUM_THREADS, at most the machine's cores; else the
    cores this process may run on. ATEN_NUM_THREADS (Ember's own, what `make test` sets) comes
    first and is taken as it is, as set_num_threads is."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = _MACHINE_CORES
    n = _env_num_threads("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS"), 0)
    n = _env_num_threads("MKL_NUM_THREADS", os.environ.get("MKL_NUM_THREADS"), n)
    n = min(n, _MACHINE_CORES)
    n = _env_num_threads("ATEN_NUM_THREADS", os.environ.get("ATEN_NUM_THREADS"), n)
    return n if n > 0 else max(1, usable)


cdef int _MACHINE_CORES = os.cpu_count() or 1
cdef int _num_threads = _default_num_threads()
cdef int _num_interop_threads = 0      # 0: not set yet (the default is the machine's cores, as PyTorch's)


def get_num_threads():
    """The threads every parallel CPU kernel splits its work across (each passes this count to
    OpenMP explicitly, so it is exactly what runs)."""
    return _num_threads


def set_num_threads(int n):
    global _num_threads
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    _num_threads = n


def get_num_interop_threads():
    """Ember runs no inter-op parallel work (no torch.jit.fork): this is the setting PyTorch would
    size that pool with, the machine's cores unless set."""
    return _num_interop_threads if _num_interop_threads > 0 else _MACHINE_CORES


def set_num_interop_threads(int n):
    """PyTorch's rule: positive, and settable once."""
    global _num_interop_threads
    if n < 1:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _num_interop_threads > 0:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _num_interop_threads = n


def get_grain_size():
    return _grain_size


def set_grain_size(Py_ssize_t n):
    global _grain_size
    if n < 1:
        raise ValueError(f"grain size must be positive, got {n}")
    _grain_size = n


cdef struct Plan:
    int ndim                                   # after coalescing; dim 0 is the innermost
    int nops
    Py_ssize_t sizes[MAX_DIMS]
    Py_ssize_t strides[MAX_DIMS][MAX_OPERANDS]  # bytes
    char* data[MAX_OPERANDS]


cdef void run_rows(loop_fn fn, const Plan* plan, Py_ssize_t begin, Py_ssize_t end,
                   const void* extra) noexcept nogil:
    """Run rows [begin, end) of the plan: a row is one innermost-dimension run."""
    cdef Py_ssize_t counter[MAX_DIMS]
    cdef char* ptrs[MAX_OPERANDS]
    cdef Py_ssize_t inner_strides[MAX_OPERANDS]
    cdef Py_ssize_t rest, row
    cdef int d, k
    for k in range(plan.nops):
        inner_strides[k] = plan.strides[0][k]
    # The multi-index of row `begin` over dims 1..ndim-1.
    rest = begin
    for d in range(1, plan.ndim):
        counter[d] = rest % plan.sizes[d]
        rest = rest // plan.sizes[d]
    for row in range(begin, end):
        for k in range(plan.nops):
            ptrs[k] = plan.data[k]
            for d in range(1, plan.ndim):
                ptrs[k] += counter[d] * plan.strides[d][k]
        fn(ptrs, inner_strides, plan.sizes[0], extra)
        for d in range(1, plan.ndim):
            counter[d] += 1
            if counter[d] < plan.sizes[d]:
                break
            counter[d] = 0


cdef void run_split_row(loop_fn fn, const Plan* plan, Py_ssize_t begin, Py_ssize_t end,
                        const void* extra) noexcept nogil:
    """Run elements [begin, end) of a one-row plan."""
    cdef char* ptrs[MAX_OPERANDS]
    cdef int k
    for k in range(plan.nops):
        ptrs[k] = plan.data[k] + begin * plan.strides[0][k]
    fn(ptrs, plan.strides[0], end - begin, extra)


cdef int run_loop(loop_fn fn, TensorImpl out, tuple inputs, const void* extra) except -1:
    """out[...] = fn(inputs broadcast to out's shape); all operands already of the loop's dtype."""
    cdef Plan plan
    cdef int nops = 1 + len(inputs)
    cdef int ndim = out.nd, d, k, j, src
    cdef TensorImpl t
    cdef Py_ssize_t rows, numel, chunk, nthreads, i
    if nops > MAX_OPERANDS:
        raise RuntimeError(f"the loop engine takes at most {MAX_OPERANDS - 1} inputs, got {nops - 1}")
    numel = out.n_elem
    if numel == 0:
        return 0
    plan.nops = nops
    plan.data[0] = out.data()
    # Reverse dims so that dim 0 is the innermost; inputs align to the right and broadcast.
    for d in range(ndim):
        plan.sizes[d] = out.sizes[ndim - 1 - d]
        plan.strides[d][0] = out.strides[ndim - 1 - d] * out.itemsize
    for k in range(1, nops):
        t = <TensorImpl>inputs[k - 1]
        if t.nd > ndim:
            raise RuntimeError(f"input of {t.nd} dims cannot broadcast to an output of {ndim} dims")
        plan.data[k] = t.data()
        for d in range(ndim):
            if d < t.nd:
                src = t.nd - 1 - d
                if t.sizes[src] == plan.sizes[d]:
                    plan.strides[d][k] = t.strides[src] * t.itemsize
                elif t.sizes[src] == 1:
                    plan.strides[d][k] = 0
                else:
                    raise RuntimeError(f"The size of tensor a ({t.sizes[src]}) must match the size of tensor b "
                                       f"({plan.sizes[d]}) at non-singleton dimension {ndim - 1 - d}")
            else:
                plan.strides[d][k] = 0
    # Coalesce: drop size-1 dims, merge dim d+1 into d when every operand steps evenly across them.
    j = 0
    for d in range(ndim):
        if plan.sizes[d] == 1:
            continue
        if j > 0 and _mergeable(&plan, j - 1, d):
            plan.sizes[j - 1] *= plan.sizes[d]
            continue
        plan.sizes[j] = plan.sizes[d]
        for k in range(nops):
            plan.strides[j][k] = plan.strides[d][k]
        j += 1
    if j == 0:
        plan.sizes[0] = 1
        for k in range(nops):
            plan.strides[0][k] = 0
        j = 1
    plan.ndim = j
    rows = numel // plan.sizes[0]
    nthreads = _num_threads
    if numel < NOGIL_THRESHOLD:
        run_rows(fn, &plan, 0, rows, extra)
    elif numel < _grain_size or nthreads < 2:
        with nogil:
            run_rows(fn, &plan, 0, rows, extra)
    elif rows >= nthreads:
        chunk = (rows + nthreads - 1) // nthreads
        for i in prange(nthreads, nogil=True, schedule="static", num_threads=nthreads):
            if i * chunk < rows:
                run_rows(fn, &plan, i * chunk, min(rows, (i + 1) * chunk), extra)
    else:
        # Few long rows (typically one): split each row's elements across threads.
        chunk = (plan.sizes[0] + nthreads - 1) // nthreads
        for i in range(rows):
            _run_row_parallel(fn, &plan, i, chunk, nthreads, extra)
    return 0


cdef void _run_row_parallel(loop_fn fn, Plan* plan, Py_ssize_t row, Py_ssize_t chunk, Py_ssize_t nthreads,
                            const void* extra) noexcept:
    cdef Plan one
    cdef Py_ssize_t rest = row, i
    cdef int d, k
    memcpy(&one, plan, sizeof(Plan))
    for d in range(1, plan.ndim):
        for k in range(plan.nops):
            one.data[k] += (rest % plan.sizes[d]) * plan.strides[d][k]
        rest = rest // plan.sizes[d]
    one.ndim = 1
    for i in prange(nthreads, nogil=True, schedule="static", num_threads=nthreads):
        if i * chunk < one.sizes[0]:
            run_split_row(fn, &one, i * chunk, min(one.sizes[0], (i + 1) * chunk), extra)


cdef inline bint _mergeable(const Plan* plan, int inner, int outer) noexcept:
    cdef int k
    for k in range(plan.nops):
        if plan.strides[outer][k] != plan.strides[inner][k] * plan.sizes[inner]:
            return False
    return True


cdef TensorImpl cast_contiguous(TensorImpl src, int scalar_type):
    """A contiguous copy of src converted to scalar_type (CPU)."""
    cdef TensorImpl out = empty_contiguous(src.nd, src.sizes, scalar_type, None)
    run_loop(cast_loop(src.scalar_type, scalar_type), out, (src,), NULL)
    return out


cdef int copy_into(TensorImpl dst, TensorImpl src) except -1:
    """dst[...] = src, broadcasting src and converting its dtype (CPU)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = broadcast_shape((dst, src), sizes)
    cdef int d
    if ndim != dst.nd or any([sizes[d] != dst.sizes[d] for d in range(ndim)]):
        raise output_shape_error(dst._sizes(), [sizes[d] for d in range(ndim)])
    run_loop(cast_loop(src.scalar_type, dst.scalar_type), dst, (src,), NULL)
    return 0


cdef TensorImpl pointwise(loop_fn fn, tuple inputs, int compute_type, int out_type, const void* extra):
    """A new tensor: fn over inputs converted to compute_type, broadcast; written as out_type."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = broadcast_shape(inputs, sizes)
    cdef TensorImpl t, out, result
    cdef list converted = []
    for obj in inputs:
        t = <TensorImpl>obj
        if t.device_type != 0:
            raise device_mismatch_error("cpu", t.device_obj)
        converted.append(t if t.scalar_type == compute_type else cast_contiguous(t, compute_type))
    out = empty_contiguous(ndim, sizes, out_type, None)
    run_loop(fn, out, tuple(converted), extra)
    return out


cdef TensorImpl pointwise_out(loop_fn fn, tuple inputs, int compute_type, int out_type, const void* extra,
                              TensorImpl out, bint inplace):
    """fn over inputs (converted to compute_type, broadcast) written into `out`, cast from out_type.

    In-place (`inplace`, out is the first input) the broadcast shape must be out's own; out=
    tensors of another shape are resized (with PyTorch's warning when they held elements)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = broadcast_shape(inputs, sizes)
    cdef TensorImpl t, tmp
    cdef list converted = []
    if out is None:
        raise TypeError("the out= variant needs an `out` tensor")
    if out.device_type != 0:
        raise device_mismatch_error("cpu", out.device_obj)
    if inplace and not _has_shape(out, ndim, sizes):
        raise output_shape_error(out._sizes(), [sizes[d] for d in range(ndim)])
    if not castable(out_type, out.scalar_type):
        raise output_cast_error(dtype_of(out_type).type_name, dtype_of(out.scalar_type).type_name)
    resize_output(out, ndim, sizes)
    for obj in inputs:
        t = <TensorImpl>obj
        if t.device_type != 0:
            raise device_mismatch_error("cpu", t.device_obj)
        if t.scalar_type != compute_type:
            t = cast_contiguous(t, compute_type)
        converted.append(t)
    if out.scalar_type == out_type:
        run_loop(fn, out, tuple(converted), extra)
    else:
        tmp = empty_contiguous(ndim, sizes, out_type, None)
        run_loop(fn, tmp, tuple(converted), extra)
        run_loop(cast_loop(out_type, out.scalar_type), out, (tmp,), NULL)
    out.version_counter.version += 1
    return out


cdef inline bint _has_shape(TensorImpl t, int ndim, const Py_ssize_t* sizes) noexcept:
    cdef int d
    if t.nd != ndim:
        return False
    for d in range(ndim):
        if t.sizes[d] != sizes[d]:
            return False
    return True


cdef int resize_output(TensorImpl out, int ndim, const Py_ssize_t* sizes) except -1:
    """Resize an out= tensor to the result's shape, warning as PyTorch when it held elements."""
    if _has_shape(out, ndim, sizes):
        return 0
    if out.n_elem != 0:
        warn_resized(out._sizes(), [sizes[d] for d in range(ndim)])
    out.resize(ndim, sizes)
    return 0


cdef bint any_zero(TensorImpl t) except -1:
    """Whether a CPU tensor holds a zero (divisor checks before integral division loops)."""
    if t.n_elem == 0:
        return False
    return bool((t._numpy_view() == 0).any())


def _cast(TensorImpl src, dt):
    """Test hook: a contiguous copy of src converted to dtype dt."""
    return cast_contiguous(src, dt.scalar_type)


def _copy(TensorImpl dst, TensorImpl src):
    """Test hook: copy src into dst with broadcasting and conversion."""
    copy_into(dst, src)
    return dst
