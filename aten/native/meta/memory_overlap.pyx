"""Memory overlap between and within tensors, as ATen's MemoryOverlap.cpp.

A write into a tensor whose elements share memory (an expanded tensor: a stride of 0 on a dim of
size > 1) computes each shared element several times, so every in-place and out= write is refused
on it; and an input that shares part, but not all, of the written memory would be read after
being overwritten, so that is refused too. The dispatcher runs both checks (check_written) before
every aten kernel that writes (aten/dispatcher.pyx), so the kernels themselves do not.
"""
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from c10.tensor_impl cimport TensorImpl, non_overlapping_and_dense

INTERNAL_OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a "
                            "single memory location. Please clone() the tensor before performing the operation.")


cdef MemOverlap has_internal_overlap(TensorImpl t) noexcept:
    """Yes when a dim of size > 1 has stride 0; No for dense layouts; TooHard otherwise (only a
    search could tell, and PyTorch lets those through)."""
    cdef int d
    if t.contiguous or non_overlapping_and_dense(t.nd, t.sizes, t.strides):
        return OVERLAP_NO
    for d in range(t.nd):
        if t.strides[d] == 0 and t.sizes[d] > 1:
            return OVERLAP_YES
    return OVERLAP_TOO_HARD


cpdef int assert_no_internal_overlap(TensorImpl t) except -1:
    if has_internal_overlap(t) == OVERLAP_YES:
        raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
    return 0


def internal_overlap(TensorImpl t not None):
    """"yes", "no" or "too_hard" (tests and Python callers)."""
    cdef MemOverlap found = has_internal_overlap(t)
    return "no" if found == OVERLAP_NO else ("yes" if found == OVERLAP_YES else "too_hard")


cdef inline bint _same_geometry(TensorImpl a, TensorImpl b) noexcept:
    cdef int d
    if a.offset != b.offset or a.nd != b.nd:
        return False
    for d in range(a.nd):
        if a.sizes[d] != b.sizes[d] or (a.strides[d] != b.strides[d] and a.sizes[d] != 1):
            return False
    return True


cpdef int check_no_partial_overlap(TensorImpl out, TensorImpl t) except -1:
    """PyTorch's assert_no_partial_overlap: an input that shares some, but not all, of the
    written memory would be read after being overwritten. Only decidable for dense layouts."""
    cdef Py_ssize_t a0, a1, b0, b1
    if t.storage is not out.storage or t.n_elem == 0 or out.n_elem == 0:
        return 0
    if not non_overlapping_and_dense(t.nd, t.sizes, t.strides) or \
            not non_overlapping_and_dense(out.nd, out.sizes, out.strides):
        return 0
    if _same_geometry(t, out):
        return 0
    a0 = t.offset * t.itemsize
    a1 = a0 + t.n_elem * t.itemsize
    b0 = out.offset * out.itemsize
    b1 = b0 + out.n_elem * out.itemsize
    if a0 < b1 and b0 < a1:
        raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer "
                           "to a single memory location. Please clone() the tensor before performing the operation.")
    return 0


# -- the check of every written argument --------------------------------------------------------

cdef enum:
    REFUSE = 0
    WARN = 1
    SAME_AS_SOURCE = 2      # copy_: refused unless the source is the target itself (a no-op)

# PyTorch's kernels that let an overlapping write through: fill_ with a number and zero_ give every
# element the same value, so sharing is harmless (Fill.cpp; fill_ with a tensor is refused); the
# indexing writes below only warn (TensorAdvancedIndexing.cpp), naming the Python syntax that
# reaches them.
_ALLOWED = frozenset(("fill_.Scalar", "zero_"))
_WARNED = {"index_put_": "tensor[indices] = tensor", "_index_put_impl_": "tensor[indices] = tensor",
           "masked_fill_": "tensor[mask] = scalar", "index_fill_": "tensor[mask] = scalar"}


cdef class WriteChecks:
    """What an operator's call is checked for before its kernel runs: each written argument for
    internal overlap, then against each input for partial overlap. Positions are kept in C
    arrays: this runs before every in-place and out= kernel."""

    def __repr__(self):
        return f"<WriteChecks of {list(self.target_names)} against {list(self.input_names)}>"


def write_checks(str op, list written, list inputs):
    """The checks of an aten operator, written being its Tensor(a!) arguments' (position, name)
    and inputs its other Tensor, Tensor? and Tensor[] arguments' (position, name); None when the
    op may write overlapping memory."""
    cdef WriteChecks checks
    cdef int i
    base = op.split(".", 1)[0]
    if op in _ALLOWED or not written:
        return None
    if len(written) > MAX_CHECKED or len(inputs) > MAX_CHECKED:
        raise RuntimeError(f"aten::{op} has more tensor arguments than the overlap check holds ({MAX_CHECKED})")
    checks = WriteChecks.__new__(WriteChecks)
    checks.op = base
    checks.policy = WARN if base in _WARNED else (SAME_AS_SOURCE if base == "copy_" else REFUSE)
    checks.ntargets = len(written)
    checks.ninputs = len(inputs)
    for i in range(checks.ntargets):
        checks.target_pos[i] = written[i][0]
    for i in range(checks.ninputs):
        checks.input_pos[i] = inputs[i][0]
    checks.target_names = tuple([name for _, name in written])
    checks.input_names = tuple([name for _, name in inputs])
    return checks


cdef inline object _argument(tuple args, dict kwargs, Py_ssize_t position, tuple names, int i):
    if position < PyTuple_GET_SIZE(args):
        return <object>PyTuple_GET_ITEM(args, position)
    return kwargs.get(names[i]) if kwargs else None


cdef int check_written(WriteChecks checks, tuple args, dict kwargs) except -1:
    """Refuse (or warn about) a write into a tensor whose elements share memory, and refuse one
    that an input overlaps in part (it would be read after being written)."""
    cdef TensorImpl written
    cdef int i, j
    for i in range(checks.ntargets):
        target = _argument(args, kwargs, checks.target_pos[i], checks.target_names, i)
        if not isinstance(target, TensorImpl):
            continue
        written = <TensorImpl>target
        if not written.contiguous and has_internal_overlap(written) == OVERLAP_YES:
            _internal_overlap(checks, args, kwargs, target)
        for j in range(checks.ninputs):
            value = _argument(args, kwargs, checks.input_pos[j], checks.input_names, j)
            if isinstance(value, TensorImpl):
                if (<TensorImpl>value).storage is written.storage and value is not target:
                    check_no_partial_overlap(written, <TensorImpl>value)
            elif isinstance(value, (list, tuple)):
                for element in value:
                    if isinstance(element, TensorImpl) and (<TensorImpl>element).storage is written.storage \
                            and element is not target:
                        check_no_partial_overlap(written, <TensorImpl>element)
    return 0


cdef int _internal_overlap(WriteChecks checks, tuple args, dict kwargs, object target) except -1:
    if checks.policy == SAME_AS_SOURCE and _argument(args, kwargs, 1, ("src",), 0) is target:
        return 0                        # copy_ of a tensor into itself: nothing to do
    if checks.policy != WARN:
        raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
    import warnings
    warnings.warn(f"Use of {checks.op} on expanded tensors is deprecated. Please clone() the tensor before "
                  f"performing this operation. This also applies to advanced indexing e.g. {_WARNED[checks.op]}",
                  UserWarning, stacklevel=3)
    return 0
