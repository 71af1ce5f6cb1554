"""Tensor.__getitem__ and Tensor.__setitem__, as PyTorch's python_variable_indexing.cpp and
ATen's TensorIndexing.h.

Basic indices (ints, slices, None, Ellipsis) only change a view's geometry, so they are folded
into one (sizes, strides, offset) here, in C, and the result is a single view of self's storage
sharing its version counter: no dispatcher call and no intermediate tensor per index. The steps
and their checks are PyTorch's, in PyTorch's order (select / slice / unsqueeze per index), so the
errors are the same. Tensor indices (int/bool tensors, lists, numpy arrays, True/False) are
collected per dim as PyTorch's applySlicing does and handed to the `index.Tensor` operator (or
`index_put_` for assignment) on the view.
"""
import warnings

from c10.dispatch_key cimport DK_AUTOGRAD_CPU, DK_AUTOGRAD_CUDA, DK_FUNCTORCH_BATCHED, DK_FORWARD_AD
from c10.grad_mode cimport grad_enabled
from cpython.bool cimport PyBool_Check
from cpython.complex cimport PyComplex_Check
from cpython.float cimport PyFloat_Check, PyFloat_CheckExact
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_Check, PyLong_CheckExact
from cpython.object cimport PyObject, PyTypeObject, Py_TYPE
from cpython.sequence cimport PySequence_Check
from cpython.slice cimport PySlice_Check, PySlice_Unpack
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.stdint cimport int64_t, uint64_t

from c10.scalar_type cimport (ST_BOOL, ST_FLOAT32, ST_FLOAT64, ST_INT8, ST_INT16, ST_INT32, ST_INT64,
                              ST_UINT8, dtype_of, is_integral)
from c10.tensor_impl cimport MAX_DIMS, TensorImpl, empty_contiguous, make_tensor, make_view, wrap_number
from aten.dispatcher cimport OperatorHandle, find_operator, python_key_active
from torch._C.arg_parser cimport handle_torch_function, overloaded_among, torch_function_wanted
from aten.native.meta.views cimport index_in_range, read_index, select_in_place, slice_in_place, unsqueeze_in_place

from aten.native.meta.pointwise import check_fits as _check_fits

cdef extern from "Python.h":
    Py_ssize_t PY_SSIZE_T_MAX
    Py_ssize_t PY_SSIZE_T_MIN

cdef OperatorHandle _op_index = find_operator("index.Tensor")
cdef OperatorHandle _op_index_put = find_operator("index_put_")
cdef OperatorHandle _op_copy = find_operator("copy_")
# NumPy's integer scalar and array types, and the conversion of a sequence (nested lists, an
# array) to an index tensor: torch._indexing installs them (this layer does not import numpy).
cdef object _np_integer = None
cdef object _np_ndarray = None
cdef object _convert_sequence = None
cdef object _expand = None            # aten.native.meta.views.expand, imported on first use

# c10::SymInt's smallest representable value: PyTorch clips slice bounds below it, with a warning.
cdef Py_ssize_t _SYMINT_MIN = -(<Py_ssize_t>1 << 62)

cdef str _INVALID = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     "indices (got {})")


# -- geometry of the view being built -------------------------------------------------------------

cdef struct Geo:
    int nd
    Py_ssize_t offset
    Py_ssize_t sizes[MAX_DIMS]
    Py_ssize_t strides[MAX_DIMS]


cdef inline void _load(Geo* g, TensorImpl t) noexcept:
    cdef int i
    g.nd = t.nd
    g.offset = t.offset
    for i in range(t.nd):
        g.sizes[i] = t.sizes[i]
        g.strides[i] = t.strides[i]


cdef inline TensorImpl _view(TensorImpl base, Geo* g):
    return make_view(base, g.offset, g.nd, g.sizes, g.strides, base.scalar_type)


cdef int _check_dim(Geo* g, int dim) except -1:
    """select/slice's maybe_wrap_dim for a dim the index walk reached (only past the end after two
    Ellipses, which PyTorch accepts and then fails on here)."""
    cdef int n
    if dim >= g.nd:
        if g.nd == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        n = g.nd
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return 0


cdef int _select(Geo* g, int dim, Py_ssize_t index, Py_ssize_t real_dim) except -1:
    """PyTorch's applySelect: bounds-check against the current size, then select (a view)."""
    if g.nd == 0:
        if index == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size 0")
    _check_dim(g, dim)
    if not index_in_range(index, g.sizes[dim]):
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {g.sizes[dim]}")
    g.offset += select_in_place(g.nd, g.sizes, g.strides, dim, index)
    g.nd -= 1
    return 0


cdef int _slice(Geo* g, int dim, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t step) except -1:
    """PyTorch's applySlice and slice(): bounds clamped to the dim, positive steps only."""
    if step <= 0:
        raise ValueError("step must be greater than zero")
    if g.nd == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    _check_dim(g, dim)
    g.offset += slice_in_place(g.sizes, g.strides, dim, start, stop, step)
    return 0


cdef int _unsqueeze(Geo* g, int dim) except -1:
    if g.nd >= MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {g.nd + 1}")
    if dim > g.nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-g.nd - 1}, {g.nd}], "
                         f"but got {dim})")
    unsqueeze_in_place(g.nd, g.sizes, g.strides, dim)
    g.nd += 1
    return 0


# -- Python values as indices ---------------------------------------------------------------------

cdef inline bint _is_long(object obj):
    """THPUtils_checkLong: an int that is not a bool, or a numpy integer scalar."""
    if PyLong_CheckExact(obj):
        return True
    if PyLong_Check(obj):
        return not PyBool_Check(obj)
    return _np_integer is not None and isinstance(obj, _np_integer)


cdef Py_ssize_t _unpack_long(object obj) except? -1:
    """THPUtils_unpackLong."""
    cdef int overflow = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(obj, &overflow)
    if overflow:
        raise ValueError("Overflow when unpacking long long")
    return <Py_ssize_t>v


cdef int _unpack_slice(object s, Py_ssize_t* start, Py_ssize_t* stop, Py_ssize_t* step) except -1:
    """__PySlice_Unpack: None as the defaults, __index__ for the bounds (else CPython's TypeError),
    zero steps refused (ValueError), bounds clipped to c10::SymInt's range with PyTorch's warning.
    Negative steps fail later (applySlice), after this unpacking as in PyTorch."""
    PySlice_Unpack(s, start, stop, step)
    if step[0] > 0 and (start[0] < _SYMINT_MIN or stop[0] < _SYMINT_MIN):
        warnings.warn("Truncating the start/stop/step of slice. This is likely because of saved old models when the "
                      "start/stop/step were larger.", UserWarning, stacklevel=1)
        if start[0] < _SYMINT_MIN:
            start[0] = _SYMINT_MIN
        if stop[0] < _SYMINT_MIN:
            stop[0] = _SYMINT_MIN
    return 0


cdef bint _treat_sequence_as_tuple(object index) except -1:
    """PyTorch's (and NumPy's old) heuristic: a short non-tuple sequence holding a sequence, slice,
    tensor, None or Ellipsis is a tuple of indices (deprecated, with PyTorch's warning)."""
    cdef Py_ssize_t n, i
    if isinstance(index, TensorImpl) or type(index) is _np_ndarray or not PySequence_Check(index):
        return False
    try:
        n = len(index)
    except Exception:
        return False
    if n >= 32:
        return False
    for i in range(n):
        try:
            obj = index[i]
        except Exception:
            return False
        if (isinstance(obj, TensorImpl) or PySequence_Check(obj) or PySlice_Check(obj) or obj is None
                or obj is Ellipsis):
            warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
                          "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
                          "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
                          "or a different result", UserWarning, stacklevel=1)
            return True
    return False


cdef tuple _wrap_tuple(object index):
    if isinstance(index, tuple):
        return <tuple>index
    if _treat_sequence_as_tuple(index):
        return tuple(index)
    return (index,)


cdef object _autograd_getitem = None
cdef object _autograd_setitem = None
cdef uint64_t _AUTOGRAD_KEYS = ((<uint64_t>1) << DK_AUTOGRAD_CPU) | ((<uint64_t>1) << DK_AUTOGRAD_CUDA)


# Indexing as operator calls (torch/_indexing_dispatched.py), for when a TorchDispatchMode must see them:
# the folded views above never reach the dispatcher.
cdef object _dispatched_getitem = None
cdef object _dispatched_setitem = None


# vmap's batched tensors and forward AD's dual tensors: indexing them must reach their batching rules and tangent
# formulas as operator calls.
cdef uint64_t _BATCHED_KEY = ((<uint64_t>1) << DK_FUNCTORCH_BATCHED) | ((<uint64_t>1) << DK_FORWARD_AD)


cdef bint _any_batched(TensorImpl self, object index, object value):
    """Whether vmap's batched tensors or dual tensors take part (self, the value, an index or one in an index
    tuple): then indexing must be operator calls."""
    if self.key_set & _BATCHED_KEY or (isinstance(value, TensorImpl) and (<TensorImpl>value).key_set & _BATCHED_KEY):
        return True
    if isinstance(index, TensorImpl):
        return ((<TensorImpl>index).key_set & _BATCHED_KEY) != 0
    if type(index) is tuple:
        for item in <tuple>index:
            if isinstance(item, TensorImpl) and (<TensorImpl>item).key_set & _BATCHED_KEY:
                return True
    return False


def install_dispatched(getitem, setitem):
    global _dispatched_getitem, _dispatched_setitem
    _dispatched_getitem, _dispatched_setitem = getitem, setitem


def install_autograd(getitem, setitem):
    """Called once by torch._indexing_autograd: indexing of tensors that require grad (in grad
    mode) goes there, which records history around these functions run under no_grad."""
    global _autograd_getitem, _autograd_setitem
    _autograd_getitem = getitem
    _autograd_setitem = setitem


def install(np_integer, np_ndarray, convert_sequence):
    """Called once by torch._indexing: numpy's types, and sequenceToVariable for what the flat
    int list fast path below does not cover."""
    global _np_integer, _np_ndarray, _convert_sequence
    _np_integer = np_integer
    _np_ndarray = np_ndarray
    _convert_sequence = convert_sequence


cdef TensorImpl _sequence_to_index(object seq):
    """sequenceToVariable: a list (nested lists, numpy array, range ...) as an index tensor, bool or
    uint8 when its data is, else int64."""
    cdef Py_ssize_t n, i
    cdef TensorImpl t
    cdef int64_t* p
    if type(seq) is list:
        # Common case, kept in C: a flat list of Python ints.
        n = len(<list>seq)
        for i in range(n):
            if not PyLong_CheckExact((<list>seq)[i]):
                break
        else:
            t = empty_contiguous(1, &n, ST_INT64, None)
            p = <int64_t*>t.data()
            for i in range(n):
                p[i] = _unpack_long((<list>seq)[i])
            return t
    return <TensorImpl?>_convert_sequence(seq)


cdef TensorImpl _bool_index(bint value):
    """boolToIndexingTensor: [0] for True, an empty long tensor for False."""
    cdef Py_ssize_t n = 1 if value else 0
    cdef TensorImpl t = empty_contiguous(1, &n, ST_INT64, None)
    if value:
        (<int64_t*>t.data())[0] = 0
    return t


cdef Py_ssize_t _read_int(TensorImpl t) except? -1:
    """The value of a 0-dim integral tensor (Tensor.item<int64_t>())."""
    if t.device_type != 0:
        return int(t.item())
    return read_index(t)


cdef inline void _record(list outs, int* dim, TensorImpl t):
    """recordTensorIndex: t indexes the dims from dim on (a mask as many as it has). outs is the
    `indices` list of index.Tensor, where a mask is ONE entry covering its dims: t's entry is
    dim less the dims earlier masks cover beyond their first, None entries for the dims between."""
    cdef int pos = dim[0]
    for obj in outs:
        if obj is not None and ((<TensorImpl>obj).scalar_type == ST_BOOL or (<TensorImpl>obj).scalar_type == ST_UINT8):
            pos -= (<TensorImpl>obj).nd - 1
    while len(outs) < pos:
        outs.append(None)
    outs.append(t)
    if t.scalar_type == ST_BOOL or t.scalar_type == ST_UINT8:
        dim[0] += t.nd
    else:
        dim[0] += 1


cdef int _tensor_index(Geo* g, TensorImpl t, int* dim, Py_ssize_t real_dim, list outs) except -1:
    """handleDimInMultiDimIndexing's tensor case: a 0-dim integer tensor selects, a 0-dim bool
    tensor adds a dim of size 1 or 0, any other tensor is an advanced index."""
    if t.nd == 0 and is_integral(t.scalar_type, True):
        if t.scalar_type != ST_UINT8 and t.scalar_type != ST_BOOL:
            _select(g, dim[0], _read_int(t), real_dim)
        else:
            _unsqueeze(g, dim[0])
            _record(outs, dim, _bool_index(_read_int(t) != 0))
    else:
        _record(outs, dim, t)
    return 0


cdef Py_ssize_t _count_specified(tuple index) except -1:
    """count_specified_dimensions: the dims the index consumes (not None, Ellipsis, True, False)."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(index), i, count = 0
    cdef object obj
    cdef TensorImpl t
    for i in range(n):
        obj = <object>PyTuple_GET_ITEM(index, i)
        if PyLong_CheckExact(obj) or PySlice_Check(obj):
            count += 1
        elif obj is None or obj is Ellipsis:
            pass
        elif isinstance(obj, TensorImpl):
            t = <TensorImpl>obj
            if t.scalar_type == ST_UINT8 or t.scalar_type == ST_BOOL:
                count += t.nd
            else:
                count += 1
        elif obj is not True and obj is not False:
            count += 1
    return count


cdef TensorImpl _apply_slicing(TensorImpl self, tuple index, list outs):
    """applySlicing: the view the basic indices give (one tensor made at the end), with the tensor
    indices collected in outs by the dim of that view they index."""
    cdef Geo g
    cdef Py_ssize_t specified = _count_specified(index)
    cdef Py_ssize_t n = PyTuple_GET_SIZE(index), i, start, stop, step
    cdef int dim = 0, orig_nd = self.nd
    cdef object obj
    if specified > self.nd:
        raise IndexError(f"too many indices for tensor of dimension {self.nd}")
    _load(&g, self)
    for i in range(n):
        obj = <object>PyTuple_GET_ITEM(index, i)
        if PyLong_CheckExact(obj):
            _select(&g, dim, _unpack_long(obj), i)
        elif PySlice_Check(obj):
            _unpack_slice(obj, &start, &stop, &step)
            _slice(&g, dim, start, stop, step)
            dim += 1
        elif obj is Ellipsis:
            dim += orig_nd - specified
        elif obj is None:
            _unsqueeze(&g, dim)
            dim += 1
        elif _is_long(obj):
            _select(&g, dim, _unpack_long(obj), i)
        elif PyBool_Check(obj):
            _unsqueeze(&g, dim)
            _record(outs, &dim, _bool_index(obj is True))
        elif isinstance(obj, TensorImpl):
            _tensor_index(&g, <TensorImpl>obj, &dim, i, outs)
        elif PySequence_Check(obj):
            _tensor_index(&g, _sequence_to_index(obj), &dim, i, outs)
        else:
            if not hasattr(type(obj), "__index__"):
                raise IndexError(_INVALID.format(_type_name(obj)))
            try:
                obj = obj.__index__()
            except TypeError:
                raise IndexError(_INVALID.format(_type_name(obj))) from None
            _select(&g, dim, _unpack_long(obj), i)
    return _view(self, &g)


cdef str _type_name(object obj):
    """Py_TYPE(obj)->tp_name, as PyTorch's messages print it."""
    return (<bytes>(<PyTypeObject*>Py_TYPE(obj)).tp_name).decode()


cdef inline object _index(TensorImpl sliced, list outs):
    return _op_index.lookup(sliced.key_set)(sliced, tuple(outs))


# -- __getitem__ ----------------------------------------------------------------------------------

cdef inline bint _plain(object obj):
    """A value that cannot define __torch_function__ (the common ones, checked first)."""
    return PyLong_CheckExact(obj) or PyFloat_CheckExact(obj) or PySlice_Check(obj) or obj is None


def getitem(TensorImpl self, index):
    """Tensor.__getitem__ (THPVariable_getitem)."""
    if torch_function_wanted(self) or (not _plain(index) and torch_function_wanted(index)):
        return handle_torch_function(getitem, overloaded_among((self, index)), (self, index), {})
    if (python_key_active() or _any_batched(self, index, None)) and _dispatched_getitem is not None:
        return _dispatched_getitem(self, index)
    return _getitem(self, index)


def getitem_unobserved(TensorImpl self, index):
    """getitem without handing the call to an active TorchDispatchMode: the dispatched path's fallback
    for the index forms it does not take apart, which are refused here with PyTorch's errors."""
    return _getitem(self, index)


cdef object _getitem(TensorImpl self, object index):
    cdef Geo g
    cdef Py_ssize_t start, stop, step
    cdef list outs
    cdef TensorImpl sliced
    if self.key_set & _AUTOGRAD_KEYS and _autograd_getitem is not None and grad_enabled():
        return _autograd_getitem(self, index)
    if PyLong_CheckExact(index):
        _load(&g, self)
        _select(&g, 0, _unpack_long(index), 0)
        return _view(self, &g)
    if PySlice_Check(index):
        _load(&g, self)
        _unpack_slice(index, &start, &stop, &step)
        _slice(&g, 0, start, stop, step)
        return _view(self, &g)
    if index is None:
        _load(&g, self)
        _unsqueeze(&g, 0)
        return _view(self, &g)
    if index is Ellipsis:
        _load(&g, self)
        return _view(self, &g)
    if _is_long(index):
        _load(&g, self)
        _select(&g, 0, _unpack_long(index), 0)
        return _view(self, &g)
    outs = []
    sliced = _apply_slicing(self, _wrap_tuple(index), outs)
    if not outs:
        return sliced
    return _index(sliced, outs)


# -- __setitem__ ----------------------------------------------------------------------------------

cdef dict _C_TYPE_NAMES = {ST_BOOL: "bool", ST_UINT8: "uint8_t", ST_INT8: "int8_t", ST_INT16: "int16_t",
                           ST_INT32: "int", ST_INT64: "int64_t", ST_FLOAT32: "float", ST_FLOAT64: "double"}


cdef str _options_str(TensorImpl t):
    return ("torch.cuda." if t.device_type == 1 else "torch.") + dtype_of(t.scalar_type).type_name + "Tensor"


cdef object _value_scalar(TensorImpl self, object value):
    """valueToTensor for a Python value that is not a tensor: the number it assigns (checked to
    fit self's dtype), or PyTorch's TypeError."""
    if _is_long(value) or PyBool_Check(value):
        value = _unpack_long(value)
    elif PyFloat_Check(value):
        value = float(value)
    elif PyComplex_Check(value) and dtype_of(self.scalar_type).is_complex:
        return complex(value)
    elif PyComplex_Check(value):
        if (<complex>value).imag != 0:
            raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES.get(self.scalar_type, 'float')} "
                               "without overflow")
        value = (<complex>value).real
    else:
        raise TypeError(f"can't assign a {_type_name(value)} to a {_options_str(self)}")
    _check_fits(value, dtype_of(self.scalar_type))
    return value


cdef TensorImpl _scalar_tensor(TensorImpl self, object value):
    """scalarToTensor: a 0-dim tensor of self's dtype holding value (already checked)."""
    cdef TensorImpl t = empty_contiguous(0, NULL, self.scalar_type, self.device_obj)
    _op_copy.lookup(t.key_set)(t, wrap_number(value))
    return t


cdef TensorImpl _strip_leading_ones(TensorImpl t):
    """slicePrefix1sSize: a view of t without its leading size-1 dims."""
    cdef int k = 0
    while k < t.nd and t.sizes[k] == 1:
        k += 1
    if k == 0:
        return t
    return make_view(t, t.offset, t.nd - k, t.sizes + k, t.strides + k, t.scalar_type)


cdef int _copy_to(TensorImpl dst, TensorImpl src) except -1:
    """at::indexing::copy_to: src broadcast to dst (leading 1s of src dropped first), then copy_."""
    global _expand
    cdef int i
    cdef bint same = dst.nd == src.nd
    if same:
        for i in range(dst.nd):
            if dst.sizes[i] != src.sizes[i]:
                same = False
                break
    if not same and not (src.nd == 0 and src.device_type == 0):
        if _expand is None:
            from aten.native.meta.views import expand
            _expand = expand
        src = _expand(_strip_leading_ones(src), dst._sizes())
    _op_copy.lookup(dst.key_set)(dst, src)
    return 0


cdef int _assign(TensorImpl dst, object scalar, TensorImpl value) except -1:
    if value is None:
        _op_copy.lookup(dst.key_set)(dst, wrap_number(scalar))
    else:
        _copy_to(dst, value)
    return 0


cdef int _index_put(TensorImpl sliced, list outs, object scalar, TensorImpl value) except -1:
    """dispatch_index_put_, with _index_put_impl_'s masked_fill_ shortcut: a one-element CPU value
    (a number included) and a single mask fill whatever the value's dtype (uint8 masks fail there)."""
    cdef TensorImpl mask = None, t
    cdef int n_masks = 0, n_other = 0
    if value is None or (value.n_elem == 1 and value.device_type == 0):
        for obj in outs:
            if obj is None:
                continue
            t = <TensorImpl>obj
            if t.scalar_type == ST_BOOL or t.scalar_type == ST_UINT8:
                n_masks += 1
                mask = t
            else:
                n_other += 1
        if n_masks == 1 and n_other == 0:
            if mask.scalar_type == ST_UINT8:
                _check_mask_shape(sliced, outs)
                raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
            if value is not None:
                scalar = value.item()
                _check_fits(scalar, dtype_of(sliced.scalar_type))
                value = None
    if value is None:
        value = _scalar_tensor(sliced, scalar)
    else:
        value = _strip_leading_ones(value)
    _op_index_put.lookup(sliced.key_set)(sliced, tuple(outs), value, False)
    return 0


cdef int _check_mask_shape(TensorImpl self, list outs) except -1:
    """canDispatchToMaskedFill's mask shape check (before masked_fill_'s dtype check)."""
    cdef int src = 0, j
    cdef TensorImpl t
    for obj in outs:
        if obj is None:
            src += 1
            continue
        t = <TensorImpl>obj
        for j in range(t.nd):
            if src + j >= self.nd or t.sizes[j] != self.sizes[src + j]:
                raise IndexError(f"The shape of the mask {list(t._sizes())} at index {j} does not match the shape "
                                 f"of the indexed tensor {list(self._sizes())} at index {src + j}")
        src += t.nd
    return 0


def setitem(TensorImpl self, index, value):
    """Tensor.__setitem__ (THPVariable_setitem)."""
    cdef Geo g
    cdef Py_ssize_t start, stop, step
    cdef list outs
    cdef TensorImpl sliced, tvalue = None
    cdef object scalar = None
    if torch_function_wanted(self) or (not _plain(value) and torch_function_wanted(value)):   # PyTorch's two
        return handle_torch_function(setitem, overloaded_among((self, value)), (self, index, value), {})
    if (python_key_active() or _any_batched(self, index, value)) and _dispatched_setitem is not None:
        return _dispatched_setitem(self, index, value)
    if isinstance(value, TensorImpl):
        tvalue = <TensorImpl>value
    else:
        scalar = _value_scalar(self, value)
    if ((self.key_set | (tvalue.key_set if tvalue is not None else 0)) & _AUTOGRAD_KEYS
            and _autograd_setitem is not None and grad_enabled()):
        return _autograd_setitem(self, index, value)
    if index is False:
        return
    _load(&g, self)
    if _is_long(index):
        _select(&g, 0, _unpack_long(index), 0)
    elif PySlice_Check(index):
        _unpack_slice(index, &start, &stop, &step)
        _slice(&g, 0, start, stop, step)
    elif index is None or index is True:
        _unsqueeze(&g, 0)
    elif index is not Ellipsis:
        outs = []
        sliced = _apply_slicing(self, _wrap_tuple(index), outs)
        if outs:
            _index_put(sliced, outs, scalar, tvalue)
        else:
            _assign(sliced, scalar, tvalue)
        return
    _assign(_view(self, &g), scalar, tvalue)
