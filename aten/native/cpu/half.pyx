# cython: language_level=3
"""float16 for handwritten CPU kernels: widen to float32, run the float32 kernel, round once.

PyTorch's CPU kernels compute float16 in float (opmath) and round when they store; for the
reductions, normalisations, matmul and nn kernels here that is what running the float32 kernel
on exact float32 copies of the operands and rounding its floating results gives. Kernels opt in
with `@float16_via_float32`; generated pointwise loops and dtype-agnostic kernels (views, copies,
cat) handle float16 natively instead.
"""
from c10.scalar_type cimport dtype, dtype_of, ST_FLOAT16, ST_FLOAT32
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport cast_contiguous, copy_into

cdef dtype _HALF = dtype_of(ST_FLOAT16)
cdef dtype _FLOAT = dtype_of(ST_FLOAT32)


cdef bint _is_half(object v):
    if isinstance(v, TensorImpl):
        return (<TensorImpl>v).scalar_type == ST_FLOAT16
    if isinstance(v, (tuple, list)):
        for item in v:
            if isinstance(item, TensorImpl) and (<TensorImpl>item).scalar_type == ST_FLOAT16:
                return True
    return False


cdef class _Widening:
    """One call's float32 copies of its float16 operands, and what the results become."""
    cdef dict originals        # id(copy) -> (copy, original, version of the copy when made)
    cdef bint narrow           # float32 results round back to float16 (no other dtype was asked for)

    def __init__(self):
        self.originals = {}
        self.narrow = True

    cdef object widen(self, object v):
        cdef TensorImpl t, wide
        if isinstance(v, TensorImpl):
            t = <TensorImpl>v
            if t.scalar_type != ST_FLOAT16:
                return v
            wide = cast_contiguous(t, ST_FLOAT32)
            self.originals[id(wide)] = (wide, t, wide.version_counter.version)
            return wide
        if isinstance(v, dtype):
            # A dtype argument names the result dtype: float16 computes as float32 and rounds;
            # any other dtype is what the caller gets.
            if v is _HALF:
                return _FLOAT
            self.narrow = False
            return v
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
    """Decorator for a CPU kernel without float16 loops: float16 operands (tensors, also inside
    tuples and lists) run as float32 copies; float32 results round to float16; operands the
    kernel wrote (in-place, out=, running statistics) get the rounded values written back."""
    cdef object kernel
    cdef readonly object __wrapped__
    cdef readonly str __name__

    def __init__(self, kernel):
        self.kernel = self.__wrapped__ = kernel
        self.__name__ = getattr(kernel, "__name__", "kernel")

    def __call__(self, *args, **kwargs):
        cdef bint half = False
        cdef _Widening w
        for a in args:
            if _is_half(a):
                half = True
                break
        if not half and kwargs:
            for a in kwargs.values():
                if _is_half(a):
                    half = True
                    break
        if not half:
            return self.kernel(*args, **kwargs)
        w = _Widening()
        wide_args = w.widen(args)
        wide_kwargs = {k: w.widen(v) for k, v in kwargs.items()}
        return w.settle(self.kernel(*wide_args, **wide_kwargs))

    def __repr__(self):
        return f"<float16_via_float32 {self.__name__}>"
