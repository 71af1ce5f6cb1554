"""float16 for handwritten CPU kernels: widen to float32, run the float32 kernel, round once.

PyTorch's CPU kernels compute float16 in float (opmath) and round when they store; for the
reductions, normalisations, matmul and nn kernels here that is what running the float32 kernel
on exact float32 copies of the operands and rounding its floating results gives. Kernels opt in
with `@float16_via_float32`; generated pointwise loops and dtype-agnostic kernels (views, copies,
cat) handle float16 natively instead.

Only calls whose floating operands are all float16 (or that ask for float16 with dtype=) are
widened: a call mixing float16 with float32/float64 tensors of one or more dims reaches the
kernel as it is, so the kernel's own dtype checks and promotion apply as in PyTorch.
"""
from c10.scalar_type cimport dtype, dtype_of, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport cast_contiguous, copy_into
from aten.native.meta.memory_overlap cimport assert_no_internal_overlap

cdef dtype _HALF = dtype_of(ST_FLOAT16)
cdef dtype _FLOAT = dtype_of(ST_FLOAT32)

cdef enum:
    SEEN_HALF = 1      # a float16 tensor operand
    SEEN_WIDE = 2      # a float32/float64 tensor operand
    ASKS_HALF = 4      # a dtype=torch.float16 argument
    ASKS_OTHER = 8     # a dtype argument naming another dtype: results keep it


cdef int _scan(object v) noexcept:
    cdef int st
    if isinstance(v, TensorImpl):
        st = (<TensorImpl>v).scalar_type
        if st == ST_FLOAT16:
            return SEEN_HALF
        # A 0-dim operand (a value, a wrapped number) does not decide the computation dtype.
        return SEEN_WIDE if (st == ST_FLOAT32 or st == ST_FLOAT64) and (<TensorImpl>v).nd > 0 else 0
    if v is _HALF:
        return ASKS_HALF
    if isinstance(v, dtype):
        return ASKS_OTHER
    if isinstance(v, (tuple, list)):
        return _scan_all(v)
    return 0


cdef int _scan_all(object values) noexcept:
    cdef int seen = 0
    for item in values:
        if isinstance(item, (TensorImpl, dtype, tuple, list)):
            seen |= _scan(item)
    return seen


cdef class _Widening:
    """One call's float32 copies of its float16 operands, and what the results become."""
    cdef dict originals        # id(copy) -> (copy, original, version of the copy when made)
    cdef bint asks_half        # dtype=torch.float16: every tensor operand is float16 first
    cdef bint narrow           # float32 results round to float16 (no other dtype was asked for)

    def __init__(self, bint asks_half, bint narrow):
        self.originals = {}
        self.asks_half = asks_half
        self.narrow = narrow

    cdef object widen(self, object v):
        cdef TensorImpl t, wide
        if isinstance(v, TensorImpl):
            t = <TensorImpl>v
            if t.scalar_type != ST_FLOAT16:
                if not self.asks_half:
                    return v
                # PyTorch converts the input to the requested dtype before the op.
                return cast_contiguous(cast_contiguous(t, ST_FLOAT16), ST_FLOAT32)
            wide = cast_contiguous(t, ST_FLOAT32)
            self.originals[id(wide)] = (wide, t, wide.version_counter.version)
            return wide
        if v is _HALF:
            return _FLOAT
        if isinstance(v, tuple):
            return tuple([self.widen(item) for item in v])
        if isinstance(v, list):
            return [self.widen(item) for item in v]
        return v

    cdef object settle(self, object result):
        """Write mutated operands back and round float32 results to float16."""
        cdef TensorImpl wide, original
        cdef object entry
        for entry in self.originals.values():
            wide, original = entry[0], entry[1]
            if wide.version_counter.version != entry[2]:
                self._write_back(wide, original)
        return self.narrow_result(result)

    cdef int _write_back(self, TensorImpl wide, TensorImpl original) except -1:
        assert_no_internal_overlap(original)      # a write-back would give each shared element several values
        if wide.nd != original.nd or any([wide.sizes[d] != original.sizes[d] for d in range(wide.nd)]):
            original.resize(wide.nd, wide.sizes)
        copy_into(original, wide)
        original.version_counter.version += 1
        return 0

    cdef object narrow_result(self, object v):
        cdef object entry
        if isinstance(v, TensorImpl):
            entry = self.originals.get(id(v))
            if entry is not None and entry[0] is v:
                if (<TensorImpl>v).version_counter.version == entry[2]:
                    self._write_back(<TensorImpl>v, <TensorImpl>entry[1])
                return entry[1]          # an in-place or out= kernel returns the operand itself
            if self.narrow and (<TensorImpl>v).scalar_type == ST_FLOAT32:
                return cast_contiguous(<TensorImpl>v, ST_FLOAT16)
            return v
        if isinstance(v, tuple):
            return tuple([self.narrow_result(item) for item in v])
        if isinstance(v, list):
            return [self.narrow_result(item) for item in v]
        return v


cdef class float16_via_float32:
    """Decorator for a CPU kernel without float16 loops: a call whose floating operands are all
    float16 (tensors, also inside tuples and lists), or that asks for dtype=torch.float16, runs
    on float32 copies; float32 results round to float16; operands the kernel wrote (in-place,
    out=, running statistics) get the rounded values written back."""
    cdef object kernel
    cdef readonly object __wrapped__
    cdef readonly str __name__

    def __init__(self, kernel):
        self.kernel = self.__wrapped__ = kernel
        self.__name__ = getattr(kernel, "__name__", "kernel")

    def __call__(self, *args, **kwargs):
        cdef int seen = _scan_all(args)
        cdef _Widening w
        if kwargs:
            seen |= _scan_all(kwargs.values())
        if not (seen & (SEEN_HALF | ASKS_HALF)):
            return self.kernel(*args, **kwargs)
        if (seen & SEEN_WIDE) and not (seen & ASKS_HALF):
            return self.kernel(*args, **kwargs)     # mixed dtypes: the kernel's checks and promotion
        w = _Widening(seen & ASKS_HALF, not (seen & ASKS_OTHER))
        wide_args = w.widen(args)
        wide_kwargs = {k: w.widen(v) for k, v in kwargs.items()}
        return w.settle(self.kernel(*wide_args, **wide_kwargs))

    def __repr__(self):
        return f"<float16_via_float32 {self.__name__}>"
