"""Reduced-precision floating dtypes on kernels without loops of their own: compute in the dtype's
opmath type (float32, c10/dtype_table.py) and round once, as PyTorch's kernels do.

An operator declares it in the schema (`ember_opmath: CPU, CUDA` in native_functions.yaml names the
backends whose kernels need it); the dispatcher wraps those kernels in ComputeInOpmath when it
registers them, handing in the operators that convert on any device, so the rule below is one code
path for every backend:

- Only a call whose floating tensor operands are all reduced-precision (or that asks for a reduced
  dtype with dtype=) is widened. One that mixes them with float32/float64 tensors of one or more dims,
  or float16 with bfloat16, reaches the kernel as it is, so the kernel's own dtype checks and
  promotion apply as in PyTorch; a 0-dim operand (a value, a wrapped number) does not decide the
  computation dtype.
- Except PyTorch's mixed-type normalisation (the schema's `ember_opmath_mixed: {params, float_results}`):
  a call whose operands named in params are float32 (one at least; an autocast region's activations
  through a float32 model's norm) and whose other floating operands are of one reduced dtype computes
  in float32 on float32 copies of those, and only its results outside float_results (the statistics,
  the parameters' gradients, which stay float32) round to the reduced dtype.
- dtype=<reduced> converts every tensor operand to that dtype first (as PyTorch converts the input
  before the op) and asks the kernel for the opmath dtype; the results round to the asked dtype.
- Floating results round to the reduced dtype, unless another dtype was asked for, or reduced
  operands of different dtypes met (float16 with bfloat16 promotes to float32).
- Operands the kernel wrote (in-place, out=) get the rounded values back; an in-place kernel's result
  is the operand itself. A kernel that writes operands its schema does not mark, without a version
  bump (native_batch_norm its running statistics in training, as PyTorch's), says which in its
  `writes_quietly` attribute, a function of the call's (args, kwargs): those get the values back
  without a bump either.
- A storage dtype (float8; complex64/128 until their loops come), which no op computes in, and the
  barebones unsigned types (uint16/32/64),
  which these kernels have no loops for, are refused with PyTorch's NotImplementedError, unless the
  schema's `ember_storage_dtypes` says how the op serves them where PyTorch does:
  - widen: on float32 copies of float8 operands (int64 copies of unsigned ones), the results of the
    copy dtype converted back (index_put, which adds when accumulating: every such result is data);
  - bits (float8): on uint8 views, the uint8 results viewed back (indexing, which moves elements
    bit for bit, NaN payloads included); a call with accumulate=True (index_put), which adds, widens;
    complex64 moves as int64 views (an int64 data operand beside it goes to the kernel's own dtype checks,
    not through the views, which would copy its bits); complex operands are refused by every other mode (float32
    copies would drop the imaginary parts) and complex128, 16 bytes wide, by bits too;
  - promote (unsigned): on int64 copies, the results kept (sum, prod, cumsum: PyTorch's integral
    results are int64);
  - order (unsigned): on int64 copies that order as the unsigned values (uint64's with the sign bit
    flipped), the first result (the values: sort, unique) converted back, the others (indices,
    counts) kept.
  One call mixing two such dtypes, or naming one in a dtype= argument, is refused.
"""
from c10.scalar_type cimport (dtype, dtype_of, opmath_type, is_floating, is_complex, has_arithmetic, is_barebones,
                              itemsize_of, ST_FLOAT32, ST_INT64, ST_UINT64, ST_UINT8, ST_BOOL)
from c10.tensor_impl cimport TensorImpl

cdef enum:
    SEEN_REDUCED = 1     # a reduced-precision floating tensor operand
    SEEN_WIDE = 2        # a float32/float64 tensor operand of one or more dims
    ASKS_REDUCED = 4     # a dtype argument naming a reduced dtype
    ASKS_OTHER = 8       # a dtype argument naming another dtype: results keep it
    SEEN_NO_LOOP = 16    # a storage (float8) or barebones (uint16/32/64) dtype: these kernels have no loop
    ASKS_NO_LOOP = 32    # a dtype argument naming one of those
    MIXED_NO_LOOP = 64   # operands of two of those dtypes

cdef enum:
    REFUSE = 0           # ember_storage_dtypes modes (see the module's docstring)
    WIDEN = 1
    PROMOTE = 2
    ORDER = 3
    BITS = 4

STORAGE_MODES = {"refuse": REFUSE, "widen": WIDEN, "promote": PROMOTE, "order": ORDER, "bits": BITS}
cdef object SIGN_BIT = -(1 << 63)    # int64's sign bit: XOR maps uint64's order onto int64's

cdef enum:
    NONE = -1            # no reduced dtype seen yet
    MIXED = -2           # reduced operands of different dtypes


cdef inline bint _reduced(int st) noexcept:
    return opmath_type(st) != st


cdef class _Scan:
    """What one call's arguments hold: the flags above, the one reduced dtype of its tensors and
    the reduced dtype a dtype argument asks for."""
    cdef int seen
    cdef int tensors_type       # the reduced dtype of the operands of one or more dims
    cdef int scalars_type       # the reduced dtype of the 0-dim operands (deciding only without the others)
    cdef int asked_type
    cdef int no_loop_type

    cdef void scan(self, object v):
        cdef int st
        if isinstance(v, TensorImpl):
            st = (<TensorImpl>v).scalar_type
            if _no_kernel_loop(st):
                if self.seen & SEEN_NO_LOOP and self.no_loop_type != st:
                    self.seen |= MIXED_NO_LOOP
                self.seen |= SEEN_NO_LOOP
                self.no_loop_type = st
            elif _reduced(st):
                self.seen |= SEEN_REDUCED
                if (<TensorImpl>v).nd > 0:
                    self.tensors_type = _joined(self.tensors_type, st)
                else:
                    self.scalars_type = _joined(self.scalars_type, st)
            elif is_floating(st) and (<TensorImpl>v).nd > 0:
                self.seen |= SEEN_WIDE
        elif isinstance(v, dtype):
            st = (<dtype>v).scalar_type
            if _no_kernel_loop(st):         # dtype=torch.float8_e4m3fn: no kernel writes one
                self.seen |= SEEN_NO_LOOP | ASKS_NO_LOOP
                self.no_loop_type = st
            elif _reduced(st):
                self.seen |= ASKS_REDUCED
                self.asked_type = _joined(self.asked_type, st)
            else:
                self.seen |= ASKS_OTHER
        elif isinstance(v, (tuple, list)):
            for item in v:
                self.scan(item)


cdef bint _other_data(tuple values, int st):
    """Whether a tensor operand (outside the index lists) holds data of a dtype other than st: an
    index (int64), a mask (bool) or a wrapped number does not count."""
    cdef int other
    for v in values:
        if isinstance(v, TensorImpl):
            other = (<TensorImpl>v).scalar_type
            if other != st and other != ST_INT64 and other != ST_BOOL and not (<TensorImpl>v).is_wrapped_number:
                return True
    return False


cdef bint _mixes_data(tuple args, dict kwargs, int st, bint takes_index):
    """Whether a direct tensor operand (outside the index lists) holds data of a dtype other than
    st: anything but st and bool masks, an int64 too unless the op takes a direct index tensor
    (index_select's)."""
    cdef int other
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, TensorImpl):
            other = (<TensorImpl>v).scalar_type
            if other != st and other != ST_BOOL and not (other == ST_INT64 and takes_index):
                return True
    return False


cdef int _mixed_operand(object v, bint param):
    """For a mixed-type call: 1 a float32 param, 0 an operand that fits (a reduced one, or no floating
    tensor), -1 one that does not (a param of another floating dtype, a wide operand beside them)."""
    cdef int st
    if not isinstance(v, TensorImpl):
        return 0
    st = (<TensorImpl>v).scalar_type
    if not is_floating(st):
        return 0
    if param:
        return 1 if st == ST_FLOAT32 else -1
    return 0 if _reduced(st) else -1


cdef inline int _joined(int known, int st) noexcept:
    return st if known == NONE or known == st else MIXED


cdef inline bint _no_kernel_loop(int st) noexcept:
    """The storage dtypes (float8) and the barebones unsigned ones: these kernels have no loops for them."""
    return not has_arithmetic(st) or is_barebones(st)


def write_quietly(write, TensorImpl target, *args):
    """write(target, *args) (copy_ below autograd) without moving target's version: for operands written
    where the schema does not mark them, as native_batch_norm's running statistics."""
    cdef Py_ssize_t version = target.version_counter.version
    write(target, *args)
    target.version_counter.version = version


cdef class _Widening:
    """One call's wider copies of its operands (opmath copies of reduced ones, or copies of the one
    storage dtype), and what the results become."""
    cdef ComputeInOpmath op
    cdef dict originals        # id(copy) -> (copy, original, version of the copy when made)
    cdef set quiet             # id(copy) of the operands the kernel writes quietly (writes_quietly)
    cdef int asked             # the reduced dtype dtype= asked for, or NONE
    cdef int narrow_to         # the dtype results of narrow_from convert to, or NONE
    cdef int narrow_from
    cdef int storage           # the storage dtype whose operands are copied to `wide`, or NONE (opmath)
    cdef int wide
    cdef tuple keep            # the positions of results left as they are (a mixed-type call's float_results)

    cdef object widen(self, object v):
        cdef TensorImpl t, wide
        cdef int st
        if isinstance(v, TensorImpl):
            t = <TensorImpl>v
            st = t.scalar_type
            if self.storage != NONE:
                if st != self.storage:
                    return v
                wide = self.op.convert(t, self.wide)
                self.originals[id(wide)] = (wide, v, wide.version_counter.version)
                return wide
            if self.asked != NONE and st != self.asked:
                t = self.op.convert(t, self.asked)      # PyTorch converts the input to the asked dtype first
                st = self.asked
            elif not _reduced(st):
                return v
            wide = self.op.convert(t, opmath_type(st))
            # an operand the kernel writes gets the values back, converted to its own dtype by copy_
            self.originals[id(wide)] = (wide, v, wide.version_counter.version)
            return wide
        if isinstance(v, dtype):
            st = (<dtype>v).scalar_type
            return dtype_of(opmath_type(st)) if _reduced(st) else v
        if isinstance(v, tuple):
            return tuple([self.widen(item) for item in v])
        if isinstance(v, list):
            return [self.widen(item) for item in v]
        return v

    cdef object settle(self, object result):
        """Write mutated operands back and round the opmath results."""
        cdef TensorImpl wide
        cdef TensorImpl original
        cdef Py_ssize_t version
        for key, entry in self.originals.items():
            wide = <TensorImpl>entry[0]
            if self.quiet and key in self.quiet:
                original = <TensorImpl>entry[1]
                version = original.version_counter.version
                self.op.write_back(original, wide)
                original.version_counter.version = version
            elif wide.version_counter.version != entry[2]:
                self.op.write_back(<TensorImpl>entry[1], wide)
        if self.keep:
            if isinstance(result, tuple):
                return tuple([item if i in self.keep else self.narrow(item) for i, item in enumerate(result)])
            return result           # (one result, kept)
        return self.narrow(result)

    cdef void mark_quiet(self, object written):
        """The copies among the operands the kernel says it writes quietly."""
        self.quiet = {id(t) for t in written if id(t) in self.originals}

    cdef object narrow(self, object v):
        cdef TensorImpl t
        if isinstance(v, TensorImpl):
            t = <TensorImpl>v
            entry = self.originals.get(id(t))
            if entry is not None and entry[0] is t:
                if t.version_counter.version == entry[2]:
                    self.op.write_back(<TensorImpl>entry[1], t)
                return entry[1]          # an in-place or out= kernel returns the operand itself
            if self.narrow_to != NONE and t.scalar_type == self.narrow_from:
                return self.op.convert(t, self.narrow_to)
            return v
        if isinstance(v, tuple):
            return tuple([self.narrow(item) for item in v])
        if isinstance(v, list):
            return [self.narrow(item) for item in v]
        return v


cdef class ComputeInOpmath:
    """A backend kernel that computes reduced-precision floating dtypes in their opmath type (see the
    module's docstring). `kernel` is a callable, or an object whose resolve() gives one on the first
    call (the dispatcher's lazily imported kernels); `to_copy`, `copy_` and `resize_` are called as
    the operators aten::_to_copy, aten::copy_ and aten::resize_ below autograd."""
    cdef object kernel
    cdef object to_copy
    cdef object copy_
    cdef object resize_
    cdef object bitwise_xor
    cdef object view_dtype
    cdef Py_ssize_t accumulate_at   # the position of a `bool accumulate` parameter, or -1
    cdef str label
    cdef bint reduced           # widen float16/bfloat16 operands (the schema's ember_opmath)
    cdef int float8_mode        # how float8 operands are served (ember_storage_dtypes)
    cdef int unsigned_mode      # how uint16/32/64 operands are served
    cdef bint complex_kernel    # the kernel computes in complex64/complex128 itself (complex: kernel)
    cdef object writes_quietly  # the kernel's (args, kwargs) -> the operands it writes without a version bump
    cdef tuple mixed_at         # ember_opmath_mixed: the positions of the params, their names, the float results
    cdef frozenset mixed_names
    cdef tuple float_results

    def __init__(self, kernel, to_copy, copy_, resize_, str label="kernel", bint reduced=True,
                 str float8="refuse", str unsigned="refuse", str complex="refuse", bitwise_xor=None,
                 view_dtype=None, Py_ssize_t accumulate_at=-1, tuple mixed_at=(), tuple mixed_names=(),
                 tuple float_results=()):
        self.kernel = kernel
        self.to_copy = to_copy
        self.copy_ = copy_
        self.resize_ = resize_
        self.bitwise_xor = bitwise_xor     # aten::bitwise_xor.Tensor, for the order mode
        self.view_dtype = view_dtype       # aten::view.dtype, for the bits mode
        self.accumulate_at = accumulate_at
        self.label = label          # the kernel PyTorch's dtype errors name: "sum_cpu"
        self.reduced = reduced
        self.float8_mode = STORAGE_MODES[float8]
        self.unsigned_mode = STORAGE_MODES[unsigned]
        if complex not in ("refuse", "kernel"):
            raise ValueError(f"complex: unknown mode {complex!r}")
        self.complex_kernel = complex == "kernel"
        self.mixed_at = mixed_at
        self.mixed_names = frozenset(mixed_names)
        self.float_results = float_results

    @property
    def __wrapped__(self):
        return self._resolved()

    cdef object _resolved(self):
        if not callable(self.kernel):
            self.kernel = self.kernel.resolve()
        if self.writes_quietly is None:
            self.writes_quietly = getattr(self.kernel, "writes_quietly", False)
        return self.kernel

    cdef TensorImpl convert(self, TensorImpl t, int st):
        return <TensorImpl>self.to_copy(t, dtype=dtype_of(st))

    cdef int write_back(self, TensorImpl original, TensorImpl wide) except -1:
        cdef Py_ssize_t d
        if wide.nd != original.nd or any([wide.sizes[d] != original.sizes[d] for d in range(wide.nd)]):
            self.resize_(original, [wide.sizes[d] for d in range(wide.nd)])
        self.copy_(original, wide)
        return 0

    def __call__(self, *args, **kwargs):
        cdef _Scan scan = _Scan.__new__(_Scan)
        cdef _Widening w
        kernel = self._resolved()
        scan.tensors_type = scan.scalars_type = scan.asked_type = NONE
        scan.scan(args)
        if kwargs:
            scan.scan(tuple(kwargs.values()))
        if scan.seen & SEEN_NO_LOOP:
            return self._storage_call(kernel, scan, args, kwargs)
        if not self.reduced or not (scan.seen & (SEEN_REDUCED | ASKS_REDUCED)):
            return kernel(*args, **kwargs)
        if scan.tensors_type == NONE:
            scan.tensors_type = scan.scalars_type       # only 0-dim operands: they decide
        if self.mixed_at and scan.seen & SEEN_WIDE and scan.tensors_type >= 0 and \
                not scan.seen & (ASKS_REDUCED | ASKS_OTHER):
            if self._mixed_operands(args, kwargs):
                return self._mixed_call(kernel, scan.tensors_type, args, kwargs)
            if self._params_disagree(args, kwargs, scan.tensors_type):
                raise RuntimeError(f"expected scalar type {dtype_of(scan.tensors_type).type_name} but found Float")
        if ((scan.seen & SEEN_WIDE) or scan.tensors_type == MIXED) and not (scan.seen & ASKS_REDUCED):
            return kernel(*args, **kwargs)     # mixed dtypes: the kernel's checks and promotion
        w = _Widening.__new__(_Widening)
        w.op = self
        w.originals = {}
        w.asked = scan.asked_type if scan.asked_type >= 0 else NONE
        w.storage = NONE
        if scan.seen & ASKS_REDUCED:
            w.narrow_to = w.asked
        else:
            w.narrow_to = NONE if (scan.seen & ASKS_OTHER) or scan.tensors_type < 0 else scan.tensors_type
        w.narrow_from = opmath_type(w.narrow_to) if w.narrow_to != NONE else NONE
        wide_args = w.widen(args)
        wide_kwargs = {k: w.widen(v) for k, v in kwargs.items()}
        if self.writes_quietly:
            w.mark_quiet(self.writes_quietly(wide_args, wide_kwargs))
        return w.settle(kernel(*wide_args, **wide_kwargs))

    cdef bint _mixed_operands(self, tuple args, dict kwargs):
        """Whether the params' floating operands are float32 (one at least) and the others reduced."""
        cdef bint found = False
        cdef Py_ssize_t i
        cdef int fits
        for i, v in enumerate(args):
            fits = _mixed_operand(v, i in self.mixed_at)
            if fits < 0:
                return False
            found = found or fits == 1
        for name, v in kwargs.items():
            fits = _mixed_operand(v, name in self.mixed_names)
            if fits < 0:
                return False
            found = found or fits == 1
        return found

    cdef bint _params_disagree(self, tuple args, dict kwargs, int st):
        """Whether the params hold float32 tensors beside tensors of the input's reduced dtype st (PyTorch
        refuses them)."""
        cdef set seen = set()
        cdef Py_ssize_t i
        for i, v in enumerate(args):
            if i in self.mixed_at and isinstance(v, TensorImpl):
                seen.add((<TensorImpl>v).scalar_type)
        for name, v in kwargs.items():
            if name in self.mixed_names and isinstance(v, TensorImpl):
                seen.add((<TensorImpl>v).scalar_type)
        return ST_FLOAT32 in seen and st in seen

    cdef object _mixed_call(self, object kernel, int st, tuple args, dict kwargs):
        """A mixed-type call (see the module's docstring): the reduced operands widened, the results but
        float_results rounded to st."""
        cdef _Widening w = _Widening.__new__(_Widening)
        w.op = self
        w.originals = {}
        w.asked = NONE
        w.storage = NONE
        w.narrow_to = st
        w.narrow_from = ST_FLOAT32
        w.keep = self.float_results
        wide_args = w.widen(args)
        wide_kwargs = {k: w.widen(v) for k, v in kwargs.items()}
        if self.writes_quietly:
            w.mark_quiet(self.writes_quietly(wide_args, wide_kwargs))
        return w.settle(kernel(*wide_args, **wide_kwargs))

    cdef object _storage_call(self, object kernel, _Scan scan, tuple args, dict kwargs):
        """A call with float8 or uint16/32/64 operands: refused, or served on wider copies."""
        cdef int st = scan.no_loop_type
        cdef int mode = self.unsigned_mode if is_barebones(st) else self.float8_mode
        cdef _Widening w
        if is_complex(st) and self.complex_kernel:
            return kernel(*args, **kwargs)
        if mode == BITS and scan.seen & MIXED_NO_LOOP and not scan.seen & ASKS_NO_LOOP:
            return kernel(*args, **kwargs)     # two storage dtypes: the kernel's own dtype checks
        if mode == REFUSE or scan.seen & (ASKS_NO_LOOP | MIXED_NO_LOOP) or (
                is_complex(st) and not self._moves_complex(mode, st, args, kwargs)):
            raise NotImplementedError(f'"{self.label}" not implemented for \'{dtype_of(st).type_name}\'')
        if mode == ORDER:
            return self._order_call(kernel, st, args, kwargs)
        if mode == BITS and not self._accumulates(args, kwargs):
            return self._bits_call(kernel, st, args, kwargs)
        w = _Widening.__new__(_Widening)
        w.op = self
        w.originals = {}
        w.asked = NONE
        w.storage = st
        w.wide = ST_INT64 if is_barebones(st) else ST_FLOAT32
        w.narrow_to = NONE if mode == PROMOTE else st     # widen, or bits accumulating
        w.narrow_from = w.wide
        wide_args = w.widen(args)
        wide_kwargs = {k: w.widen(v) for k, v in kwargs.items()}
        return w.settle(kernel(*wide_args, **wide_kwargs))

    cdef bint _moves_complex(self, int mode, int st, tuple args, dict kwargs):
        """Whether a complex operand can be served: only by bits (float32 copies would drop the
        imaginary parts), as same-width integers, which complex128 (16 bytes) has none of."""
        return mode == BITS and itemsize_of(st) == 8 and not self._accumulates(args, kwargs)

    cdef bint _accumulates(self, tuple args, dict kwargs):
        if self.accumulate_at < 0:
            return False
        if self.accumulate_at < len(args):
            return bool(args[self.accumulate_at])
        return bool(kwargs.get("accumulate", False))

    cdef object _bits_call(self, object kernel, int st, tuple args, dict kwargs):
        cdef dict views = {}         # id(view) -> (view, the operand it views): in-place results
        if _other_data(args, st) or _other_data(tuple(kwargs.values()), st):
            return kernel(*args, **kwargs)     # mixed data dtypes: the kernel's own dtype checks
        cdef int bits = ST_UINT8 if itemsize_of(st) == 1 else ST_INT64      # float8, or complex64
        if is_complex(st) and _mixes_data(args, kwargs, st, "index_select" in self.label):
            return kernel(*args, **kwargs)     # complex64 with other data: the kernel's own dtype checks
        args = tuple([self._viewed(a, st, bits, views) for a in args])
        kwargs = {k: self._viewed(v, st, bits, views) for k, v in kwargs.items()}
        return self._viewed(kernel(*args, **kwargs), bits, st, views)

    cdef object _viewed(self, object v, int src, int dst, dict views):
        """v's tensors of dtype src viewed as dtype dst (looking into lists and tuples); a view made
        of an operand comes back as the operand itself."""
        if isinstance(v, TensorImpl):
            entry = views.get(id(v))
            if entry is not None and entry[0] is v:
                return entry[1]
            if (<TensorImpl>v).scalar_type != src:
                return v
            view = self.view_dtype(v, dtype_of(dst))
            views[id(view)] = (view, v)
            return view
        if isinstance(v, (tuple, list)):
            return type(v)([self._viewed(item, src, dst, views) for item in v])
        return v

    cdef object _order_call(self, object kernel, int st, tuple args, dict kwargs):
        args = tuple([self._ordered(a, st) for a in args])
        kwargs = {k: self._ordered(v, st) for k, v in kwargs.items()}
        result = kernel(*args, **kwargs)
        first = result[0] if isinstance(result, tuple) else result
        if st == ST_UINT64:
            first = self.bitwise_xor(first, SIGN_BIT)
        first = self.to_copy(first, dtype=dtype_of(st))
        return (first,) + tuple(result[1:]) if isinstance(result, tuple) else first

    cdef object _ordered(self, object v, int st):
        """An int64 copy of an operand of dtype st, ordered as its unsigned values."""
        if not isinstance(v, TensorImpl) or (<TensorImpl>v).scalar_type != st:
            return v
        wide = self.convert(<TensorImpl>v, ST_INT64)
        return self.bitwise_xor(wide, SIGN_BIT) if st == ST_UINT64 else wide

    def __repr__(self):
        return f"<ComputeInOpmath {self._resolved()!r}>"
