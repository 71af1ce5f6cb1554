"""Match a Python call against an op's signatures, in order, like PyTorch's PythonArgParser.

The generated bindings (torch/_C/_gen_*.pyx) build one ArgParser per function or method from
the schema; parse() returns (index of the matching signature, converted argument values).
A Tensor parameter of a pointwise op also takes a Python number, wrapped as a 0-dim tensor
that type promotion ranks below tensors (PyTorch's wrapped numbers), but only when no signature
matches the call as it is: `torch.lerp(x, y, 0.5)` picks lerp.Scalar, `torch.eq(x, 1)` (which
has no bound eq.Scalar) wraps the 1 for eq.Tensor.
"""
cimport cython
from libc.stdint cimport uint64_t
from cpython.float cimport PyFloat_CheckExact
from cpython.list cimport PyList_CheckExact
from cpython.long cimport PyLong_CheckExact, PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong
from cpython.tuple cimport PyTuple_CheckExact
from c10.scalar_type cimport dtype
from c10.scalar_type cimport is_integral
from c10.tensor_impl cimport TensorImpl, wrap_number
from c10.dispatch_key cimport DK_CPU, DK_CUDA, DK_FUNCTORCH_BATCHED
from c10.generator cimport Generator

cdef extern from "Python.h":
    bint PyType_HasFeature(type t, unsigned long feature)
    unsigned long Py_TPFLAGS_HEAPTYPE

from c10 import layout as _layout
from c10.scalar_type import dtype_from_name as _dtype_from_name
from c10.device import canonical, device as _device

_TYPE_NAMES = {P_TENSOR: "Tensor", P_OPT_TENSOR: "Tensor", P_SCALAR: "Number", P_OPT_SCALAR: "Number",
               P_INT: "int", P_OPT_INT: "int", P_FLOAT: "float", P_OPT_FLOAT: "float", P_BOOL: "bool",
               P_OPT_BOOL: "bool", P_INT_LIST: "tuple of ints", P_OPT_INT_LIST: "tuple of ints",
               P_DTYPE: "torch.dtype", P_OPT_DTYPE: "torch.dtype", P_LAYOUT: "torch.layout",
               P_DEVICE: "torch.device", P_MEMORY_FORMAT: "torch.memory_format", P_STRING: "str",
               P_OPT_STRING: "str", P_TENSOR_LIST: "tuple of Tensors", P_OPT_TENSOR_LIST: "tuple of Tensors",
               P_FLOAT_LIST: "tuple of floats", P_GENERATOR: "torch.Generator", P_BOOL_LIST: "tuple of bools"}
_OPTIONAL = {P_OPT_TENSOR, P_OPT_SCALAR, P_OPT_INT, P_OPT_FLOAT, P_OPT_BOOL, P_OPT_INT_LIST, P_OPT_DTYPE,
             P_LAYOUT, P_DEVICE, P_MEMORY_FORMAT, P_OPT_STRING, P_FLOAT_LIST, P_GENERATOR}

# torch.set_default_device: where the factories below create a tensor when no device is given
# (PyTorch's torch.utils._device list; *_like and new_* follow their tensor). None: the CPU.
cdef object _default_device = None
cdef frozenset _DEVICE_CONSTRUCTORS = frozenset({
    "empty", "empty_permuted", "empty_strided", "zeros", "ones", "full", "arange", "range", "eye", "linspace",
    "logspace", "rand", "randn", "randint", "randperm", "scalar_tensor", "tril_indices", "triu_indices",
    "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"})


def set_default_device(device):
    global _default_device
    _default_device = device


def get_default_device():
    """The default device set for factories, or None for the CPU."""
    return _default_device


cdef void _apply_default_device(Signature sig, list values):
    cdef Param p
    cdef Py_ssize_t i = 0
    for p in sig.params:
        if p.type == P_DEVICE and values[i] is None:
            values[i] = _default_device
        i += 1


# __torch_function__ (torch.overrides). A call dispatches to __torch_function__ when a TorchFunctionMode
# is active, or when an argument is not an exact torch.Tensor yet defines __torch_function__ (a Tensor
# subclass, or any object), unless that is _disabled_torch_function_impl (nn.Parameter's). parse()
# then returns index -1 with the overloaded arguments, and the binding calls handle_torch_function.
# Per thread, as PyTorch's, in one C thread-local (one read on the parser's hot path): whether
# TorchFunctionModes are active (torch.overrides keeps each thread's stack), whether this thread is
# inside DisableTorchFunctionSubclass (modes still run), and inside DisableTorchFunction.
cdef extern from *:
    """
    static __thread int ember_tf_flags = 0;
    """
    int ember_tf_flags

cdef enum:
    TF_MODES = 1
    TF_NO_SUBCLASSES = 2
    TF_DISABLED = 4
cdef object _tensor_type = None           # torch.Tensor
cdef object _handler = None               # torch.overrides' dispatch(public_api, overloaded, args, kwargs)


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The __torch_function__ of a Tensor subclass that opts out (nn.Parameter): calls are not
    dispatched to it, and results stay plain tensors."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def set_torch_function_support(tensor_type, handler):
    """torch.Tensor, and the function that runs a dispatch (set once by torch._tensor)."""
    global _tensor_type, _handler
    _tensor_type = tensor_type
    _handler = handler


def set_torch_function_mode_count(int count):
    """The number of modes on this thread's stack (torch.overrides keeps it in step)."""
    global ember_tf_flags
    ember_tf_flags = (ember_tf_flags & ~TF_MODES) | (TF_MODES if count else 0)


def is_torch_function_enabled():
    return not (ember_tf_flags & TF_DISABLED)


def is_torch_function_mode_enabled():
    return (ember_tf_flags & TF_MODES) > 0 and not (ember_tf_flags & TF_DISABLED)


def is_torch_function_subclass_enabled():
    return not ember_tf_flags & (TF_DISABLED | TF_NO_SUBCLASSES)


cdef class DisableTorchFunctionSubclass:
    """Inside, arguments' __torch_function__ are not called (modes still are)."""
    cdef bint previous

    def __enter__(self):
        global ember_tf_flags
        self.previous = (ember_tf_flags & TF_NO_SUBCLASSES) != 0
        ember_tf_flags |= TF_NO_SUBCLASSES

    def __exit__(self, *exc):
        global ember_tf_flags
        ember_tf_flags = (ember_tf_flags & ~TF_NO_SUBCLASSES) | (TF_NO_SUBCLASSES if self.previous else 0)


cdef class DisableTorchFunction:
    """Inside, neither arguments' __torch_function__ nor modes are called."""
    cdef bint previous

    def __enter__(self):
        global ember_tf_flags
        self.previous = (ember_tf_flags & TF_DISABLED) != 0
        ember_tf_flags |= TF_DISABLED

    def __exit__(self, *exc):
        global ember_tf_flags
        ember_tf_flags = (ember_tf_flags & ~TF_DISABLED) | (TF_DISABLED if self.previous else 0)


cpdef bint overrides_torch_function(object obj):
    """Whether obj takes part in dispatch: not an exact Tensor, with a __torch_function__ that is not
    _disabled_torch_function_impl."""
    if type(obj) is _tensor_type:
        return False
    impl = getattr(type(obj), "__torch_function__", None)
    return impl is not None and impl is not _disabled_torch_function_impl


cdef void _add_overloaded(list found, object obj):
    """Append obj unless an object of its type is there; a subclass goes before its parents (the
    order PyTorch tries them)."""
    cdef Py_ssize_t i
    cdef type cls = type(obj)
    for existing in found:
        if type(existing) is cls:
            return
    for i in range(len(found)):
        if issubclass(cls, type(found[i])):
            found.insert(i, obj)
            return
    found.append(obj)


cdef inline bint _overloads(object obj):
    return obj is not None and type(obj) is not _tensor_type and overrides_torch_function(obj)


cpdef bint wants_torch_function(tuple args):
    """Whether a Python-level function called with args goes to __torch_function__: a mode is active, or
    an argument overrides it (torch.overrides.has_torch_function, cheap enough for torch.nn.functional)."""
    return _wants(args, None)


cdef bint _wants(tuple args, dict kwargs):
    cdef int flags = ember_tf_flags
    if flags & TF_DISABLED:
        return False
    if flags & TF_MODES:
        return True
    if flags & TF_NO_SUBCLASSES:
        return False
    for a in args:
        if _overloads(a):
            return True
    if kwargs:
        for a in kwargs.values():
            if _overloads(a):
                return True
    return False


cdef class Overridable:
    """A Python-level function taking part in __torch_function__ as itself (torch.nn.functional's): a
    call wanting it (wants_torch_function) goes to the handler with this object as the public API and
    the arguments split(args, kwargs) gives ((relevant objects), (positional), {keyword}); any other call
    runs the function. Written here, not in Python, so that it adds no frame: the function's warnings
    still point at its caller's line (their stacklevel)."""
    cdef readonly object __wrapped__
    cdef object _split
    cdef dict __dict__

    def __init__(self, function, split):
        self.__wrapped__ = function
        self._split = split

    def __call__(self, *args, **kwargs):
        if not _wants(args, kwargs):
            return self.__wrapped__(*args, **kwargs)
        relevant, positional, keyword = self._split(args, kwargs)
        return _handler(self, overloaded_among(relevant), positional, keyword)

    def __repr__(self):
        return f"<function {getattr(self, '__qualname__', self.__wrapped__.__name__)}>"

    def __reduce__(self):
        # pickled, and copied, by name as a function is: torch.nn.functional.relu is itself again
        return getattr(self, "__qualname__")


cdef list _overloaded_values(Signature sig, list values):
    """The overloaded arguments among a matched call's Tensor parameters, or None: the hot path,
    which allocates nothing unless one is found."""
    cdef list found = None
    cdef Param p
    cdef Py_ssize_t i = 0
    for p in sig.params:
        x = values[i]
        i += 1
        if p.type == P_TENSOR or p.type == P_OPT_TENSOR:
            if _overloads(x):
                found = _with(found, x)
        elif (p.type == P_TENSOR_LIST or p.type == P_OPT_TENSOR_LIST) and x is not None:
            for item in x:
                if _overloads(item):
                    found = _with(found, item)
    return found


cdef list _with(list found, object obj):
    if found is None:
        found = []
    _add_overloaded(found, obj)
    return found


cdef list _overloaded_anywhere(tuple args, dict kwargs):
    """The overloaded objects among the arguments (and inside lists and tuples of them)."""
    cdef list flat = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, (list, tuple)):
            flat.extend(a)
        else:
            flat.append(a)
    return overloaded_among(tuple(flat))


cdef bint torch_function_wanted(object obj):
    """Whether a call on obj (a Tensor method's self, an index) must go to __torch_function__."""
    if (ember_tf_flags & TF_DISABLED):
        return False
    if (ember_tf_flags & TF_MODES):
        return True
    return type(obj) is not _tensor_type and not ember_tf_flags & TF_NO_SUBCLASSES and overrides_torch_function(obj)


cpdef list overloaded_among(tuple objs):
    """The overloaded objects among objs, subclasses before their parents (none when subclass
    dispatch is off)."""
    cdef list found = []
    if ember_tf_flags & (TF_NO_SUBCLASSES | TF_DISABLED):
        return found
    for obj in objs:
        if overrides_torch_function(obj):
            _add_overloaded(found, obj)
    return found


cpdef object handle_torch_function(object public_api, list overloaded, tuple args, dict kwargs):
    """Run a call that parse() found overloaded (or made under a mode) through torch.overrides."""
    return _handler(public_api, overloaded, args, kwargs)


cdef class _NoMatch:
    pass


cdef _NoMatch NO_MATCH = _NoMatch()


cdef inline str _type_name(object obj):
    """The name PyTorch's messages give a type: its tp_name, which for a type defined in C
    outside the builtins carries its module ("numpy.ndarray"), and for a Python class does not."""
    if isinstance(obj, TensorImpl):
        return "Tensor"
    cdef type cls = type(obj)
    # (built on every signature a call does not match, the numbers' first pass included: cheap first)
    if cls is float or cls is int or cls is bool or PyType_HasFeature(cls, Py_TPFLAGS_HEAPTYPE) \
            or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


cdef inline bint _is_int(object obj):
    # Exact ints, tuples, lists and floats first: the common cases, without a hasattr probe.
    if PyLong_CheckExact(obj):
        return True
    if PyTuple_CheckExact(obj) or PyList_CheckExact(obj) or PyFloat_CheckExact(obj):
        return False
    if isinstance(obj, TensorImpl):     # a 0-dim integer tensor is an int, as PyTorch's parser takes it
        return (<TensorImpl>obj).nd == 0 and is_integral((<TensorImpl>obj).scalar_type, False)
    if _foreign(obj):
        return False
    return not isinstance(obj, bool) and (isinstance(obj, int) or hasattr(obj, "__index__"))


cdef inline bint _foreign(object obj):
    """An object that is not a tensor but defines __torch_function__ (an fx Proxy for `x.size(1)`): never
    a number here, so the call goes to its __torch_function__, as PyTorch's parser sends it."""
    return not isinstance(obj, TensorImpl) and overrides_torch_function(obj)


cdef class _Overflow:
    """What converting an int-list argument gives when an element is beyond int64 (PyTorch
    unpacks ints as int64_t): its position, for the parser's error naming the function."""
    cdef Py_ssize_t position        # 0-based; -1 for a single int given for the list


cdef _Overflow _overflow_at(Py_ssize_t position):
    cdef _Overflow found = _Overflow.__new__(_Overflow)
    found.position = position
    return found


cdef inline bint _beyond_int64(object value):
    cdef int overflow = 0
    PyLong_AsLongLongAndOverflow(value, &overflow)
    return overflow != 0


cdef object _int_list(object obj, bint allow_single):
    cdef bint exact = True
    cdef Py_ssize_t i = 0
    if _is_int(obj):
        if not allow_single:
            return NO_MATCH
        value = obj.__index__()
        return _overflow_at(-1) if _beyond_int64(value) else (value,)
    if isinstance(obj, (tuple, list)):
        for v in obj:
            if PyLong_CheckExact(v):
                if _beyond_int64(v):
                    return _overflow_at(i)
            elif not _is_int(v):
                return NO_MATCH
            else:
                exact = False
            i += 1
        if exact:
            # Exact ints are their own __index__(); a tuple of them is passed as it is.
            return obj if PyTuple_CheckExact(obj) else tuple(obj)
        values = tuple([v.__index__() for v in obj])
        for i in range(len(values)):
            if _beyond_int64(values[i]):
                return _overflow_at(i)
        return values
    return NO_MATCH


cdef object _convert(Param p, object obj, bint numbers):
    """The value a kernel receives for obj, or NO_MATCH."""
    cdef int t = p.type
    if obj is None:
        return None if t in _OPTIONAL else NO_MATCH
    if t == P_TENSOR or t == P_OPT_TENSOR:
        if isinstance(obj, TensorImpl):
            return obj
        if numbers and p.allow_numbers:
            if isinstance(obj, (bool, int, float, complex)):
                return wrap_number(obj)
            number = _numpy_number(obj)
            if number is not None:
                return wrap_number(number)
        return NO_MATCH
    if t == P_SCALAR or t == P_OPT_SCALAR:
        if PyLong_CheckExact(obj):
            return _scalar_int(obj)
        if isinstance(obj, (bool, int, float, complex)):
            return obj
        number = _numpy_number(obj)
        if number is not None:
            return number
        if _is_int(obj):
            return obj.__index__()
        if hasattr(obj, "__float__") and not isinstance(obj, (TensorImpl, str)) and not _foreign(obj):
            return float(obj)
        if _zero_dim_constant(obj):
            return obj.item()       # a 0-dim tensor is a Scalar, as PyTorch's parser takes it
        return NO_MATCH
    if t == P_INT or t == P_OPT_INT:
        if not _is_int(obj):
            return NO_MATCH
        value = obj.__index__()
        if _beyond_int64(value):
            raise ValueError("Overflow when unpacking long long")
        return value
    if t == P_FLOAT or t == P_OPT_FLOAT:
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            return float(obj)
        if _numpy_kind(obj) in ("i", "u", "f", "b"):
            return float(obj)
        if _zero_dim_constant(obj):
            return float(obj.item())
        return NO_MATCH
    if t == P_BOOL or t == P_OPT_BOOL:
        return obj if isinstance(obj, bool) else NO_MATCH      # (PyTorch refuses np.bool_ here)
    if t == P_INT_LIST:
        return _int_list(obj, False)
    if t == P_OPT_INT_LIST:
        return _int_list(obj, True)
    if t == P_DTYPE or t == P_OPT_DTYPE:
        if isinstance(obj, dtype):
            return obj
        return python_type_dtype(obj)
    if t == P_LAYOUT:
        return obj if isinstance(obj, _layout.layout) else NO_MATCH
    if t == P_DEVICE:
        if isinstance(obj, (str, _device)) or _is_int(obj):
            return canonical(obj)
        return NO_MATCH
    if t == P_MEMORY_FORMAT:
        return obj if isinstance(obj, _layout.memory_format) else NO_MATCH
    if t == P_STRING or t == P_OPT_STRING:
        return obj if isinstance(obj, str) else NO_MATCH
    if t == P_TENSOR_LIST or t == P_OPT_TENSOR_LIST:
        return _tensor_list(obj, t == P_OPT_TENSOR_LIST)
    if t == P_FLOAT_LIST:
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            return (float(obj),)
        if isinstance(obj, (tuple, list)) and all([isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   for v in obj]):
            return tuple([float(v) for v in obj])
        return NO_MATCH
    if t == P_BOOL_LIST:
        if isinstance(obj, (tuple, list)) and all([isinstance(v, bool) for v in obj]):
            return tuple(obj)
        return NO_MATCH
    if t == P_GENERATOR:
        return obj if isinstance(obj, Generator) else NO_MATCH
    return NO_MATCH


cdef bint _zero_dim_constant(object obj):
    """A tensor PyTorch's parser takes for a number: 0-dim, not requiring grad (its gradient would be
    lost) and not one of vmap's batched tensors (a number per example)."""
    return (isinstance(obj, TensorImpl) and (<TensorImpl>obj).nd == 0 and not obj.requires_grad
            and not (<TensorImpl>obj).key_set & ((<uint64_t>1) << DK_FUNCTORCH_BATCHED))


cdef object _scalar_int(object value):
    """A Python int Scalar as PyTorch's holds it: an int64, else a uint64 (kept whole: a kernel
    converting it says whether it fits its dtype), else PyTorch's OverflowError."""
    cdef int overflow = 0
    PyLong_AsLongLongAndOverflow(value, &overflow)
    if overflow != 0:
        PyLong_AsUnsignedLongLong(value)       # PyTorch's OverflowError beyond uint64 (or below int64)
    return value


cdef object _numpy_number(object obj):
    """A NumPy scalar as the Python number PyTorch takes it for, which type promotion ranks below
    tensors (not a 0-dim tensor): an int for NumPy's integers, else a float (PyTorch's
    THPUtils_checkLong excludes np.bool_, which then unpacks as a double: np.bool_(True) is 1.0)."""
    kind = _numpy_kind(obj)
    if kind == "i" or kind == "u":
        return int(obj)
    if kind == "f" or kind == "b":
        return float(obj)
    if kind == "c":
        return complex(obj)
    return None


cdef str _numpy_kind(object obj):
    """The dtype kind of a NumPy scalar (a numpy.generic, recognised without importing NumPy; not
    an array, which PyTorch refuses where a number goes), else None."""
    cdef type cls = type(obj)
    if cls.__module__ != "numpy":
        return None
    for base in cls.__mro__:
        if base.__name__ == "generic" and base.__module__ == "numpy":
            return obj.dtype.kind
    return None


cdef object _tensor_list(object obj, bint allow_none):
    """A tuple of tensors (and Nones when allowed) from a list or tuple, or NO_MATCH."""
    if not isinstance(obj, (tuple, list)):
        return NO_MATCH
    for v in obj:
        if not (isinstance(v, TensorImpl) or (allow_none and v is None)):
            return NO_MATCH
    return tuple(obj)


cdef bint _all_ints(tuple args):
    for a in args:
        if not _is_int(a):
            return False
    return True


# The NumPy spellings PyTorch's parser also takes for these parameters (torch.all(x, axis=-1, keepdims=True)):
# each is read only where the parameter's own name is absent, so giving both leaves the alias unexpected.
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}


cdef class Param:
    def __init__(self, str name, int type, bint kwonly, bint has_default, object default, bint allow_numbers):
        self.name = name
        self.numpy_names = _NUMPY_NAMES.get(name, ())
        self.type = type
        self.kwonly = kwonly
        self.has_default = has_default
        self.default = default
        self.allow_numbers = allow_numbers

    def __repr__(self):
        text = f"{_TYPE_NAMES[self.type]} {self.name}"
        return text + (f" = {self.default!r}" if self.has_default else "")


cdef class Signature:
    def __init__(self, str name, list params):
        cdef Param p
        self.name = name
        self.params = params
        self.npositional = 0
        parts = []
        star = False
        self.allow_numbers = False
        for p in params:
            self.allow_numbers = self.allow_numbers or p.allow_numbers
            if p.kwonly and not star:
                parts.append("*")
                star = True
            if not p.kwonly:
                self.npositional += 1
            parts.append(repr(p))
        self.display = f"({', '.join(parts)})"

    cdef list parse(self, tuple args, dict kwargs, list errors, bint numbers):
        """Converted values in parameter order, or None (appending why to errors). With numbers,
        Tensor parameters that allow it take Python numbers."""
        cdef Py_ssize_t nargs = len(args), i = 0, used = 0
        cdef list out = []
        cdef Param p
        cdef Param first
        first = self.params[0] if self.params else None
        # torch.zeros(2, 3): an int-list first parameter also takes its ints as varargs.
        if first is not None and first.type == P_INT_LIST and self.npositional == 1 and nargs >= 1 \
                and _all_ints(args):
            args = (args,)
            nargs = 1
        if nargs > self.npositional:
            errors.append(f"takes {self.npositional} positional argument{'s' if self.npositional != 1 else ''} "
                          f"but {nargs} {'were' if nargs != 1 else 'was'} given")
            return None
        for p in self.params:
            if i < nargs:
                obj = args[i]
                if kwargs and p.name in kwargs:
                    errors.append(f"got multiple values for argument '{p.name}'")
                    return None
            elif kwargs and p.name in kwargs:
                obj = kwargs[p.name]
                used += 1
            elif kwargs and p.numpy_names and (alias := _given_alias(p, kwargs)) is not None:
                obj = kwargs[alias]
                used += 1
            elif p.has_default:
                out.append(p.default)
                i += 1
                continue
            else:
                errors.append(f"missing required argument '{p.name}'")
                return None
            if obj is None and p.has_default and p.default == () and (p.type == P_INT_LIST or
                                                                     p.type == P_OPT_INT_LIST):
                value = p.default       # PyTorch: None for an int list that defaults to [] is []
            else:
                value = _convert(p, obj, numbers)
            if value is NO_MATCH:
                where = f"(position {i + 1})" if i < nargs else ""
                errors.append(f"argument '{p.name}' {where} must be {_TYPE_NAMES[p.type]}, not {_type_name(obj)}"
                              .replace("  ", " "))
                return None
            if type(value) is _Overflow:
                if (<_Overflow>value).position < 0:
                    raise ValueError("Overflow when unpacking long long")
                raise TypeError(f"{self.name}(): argument '{p.name}' failed to unpack the object at pos "
                                f"{(<_Overflow>value).position + 1} with error \"Overflow when unpacking long long\"")
            out.append(value)
            i += 1
        if kwargs and used != len(kwargs):
            names = {p.name for p in self.params}
            taken = {_given_alias(p, kwargs) for p in self.params[nargs:] if p.name not in kwargs}
            extra = [k for k in kwargs if k not in names and k not in taken]
            errors.append(f"got an unexpected keyword argument '{extra[0] if extra else next(iter(kwargs))}'")
            return None
        return out


cdef object _given_alias(Param p, dict kwargs):
    for alias in p.numpy_names:
        if alias in kwargs:
            return alias
    return None


@cython.final
cdef class ArgParser:
    """The signatures of one function or method; parse() picks the first that matches."""

    def __init__(self, str name, list signatures):
        cdef Signature sig
        self.name = name
        self.signatures = signatures
        self.allow_numbers = False
        for sig in signatures:
            self.allow_numbers = self.allow_numbers or sig.allow_numbers

    cpdef tuple parse(self, tuple args, dict kwargs):
        """(index of the matching signature, its converted values), or (-1, the overloaded
        arguments) when the call goes to __torch_function__ (see handle_torch_function): a matched
        call with an overloaded Tensor argument or under a mode, or a call no signature matches
        whose arguments include objects that define __torch_function__."""
        cdef list errors = []
        cdef list values
        cdef list overloaded
        cdef Signature sig
        cdef int index = 0
        cdef int numbers, flags
        for numbers in range(2 if self.allow_numbers else 1):
            # The second pass lets Python numbers stand for the Tensor parameters of pointwise ops.
            if numbers:
                errors = []
                index = 0
            for sig in self.signatures:
                values = sig.parse(args, kwargs, errors, numbers)
                if values is not None:
                    flags = ember_tf_flags
                    if not flags & TF_DISABLED:
                        overloaded = None if flags & TF_NO_SUBCLASSES else _overloaded_values(sig, values)
                        if overloaded is not None:
                            return -1, overloaded
                        if flags & TF_MODES:
                            return -1, []
                    if _default_device is not None and self.name in _DEVICE_CONSTRUCTORS:
                        _apply_default_device(sig, values)
                    return index, values
                index += 1
        if not ember_tf_flags & (TF_NO_SUBCLASSES | TF_DISABLED):
            overloaded = _overloaded_anywhere(args, kwargs)    # objects that are not tensors at all
            if overloaded:
                return -1, overloaded
        _raise_no_match(self, args, kwargs, errors)

    cpdef tuple parse_self(self, object obj, tuple args, dict kwargs):
        """parse() for a method: obj (self) can make the call overloaded too (after its arguments
        matched, so invalid calls raise the parser's error, as in PyTorch)."""
        cdef list overloaded
        result = self.parse(args, kwargs)
        if type(obj) is _tensor_type or ember_tf_flags & (TF_NO_SUBCLASSES | TF_DISABLED) \
                or not overrides_torch_function(obj):
            return result
        overloaded = [obj]
        for a in (result[1] if result[0] < 0 else _overloaded_anywhere(args, kwargs)):
            _add_overloaded(overloaded, a)
        return -1, overloaded

    def __repr__(self):
        return f"<ArgParser {self.name}: {len(self.signatures)} signature(s)>"


cdef _raise_no_match(ArgParser parser, tuple args, dict kwargs, list errors):
    if len(parser.signatures) == 1:
        raise TypeError(f"{parser.name}(): {errors[0]}")
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    options = "\n".join([f" * {(<Signature>s).display}" for s in parser.signatures])
    raise TypeError(f"{parser.name}() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n{options}")


cdef uint64_t device_keys(object dev) noexcept:
    """The backend key for a factory call's device argument (None means CPU)."""
    if dev is not None and dev.type == "cuda":
        return (<uint64_t>1) << DK_CUDA
    return (<uint64_t>1) << DK_CPU


cdef uint64_t list_keys(object tensors) noexcept:
    """The union of the key sets of a tensor list's elements (None elements have none)."""
    cdef uint64_t ks = 0
    for t in tensors:
        if t is not None:
            ks |= (<TensorImpl>t).key_set
    return ks


def python_type_dtype(object obj):
    """The dtype a Python type names where PyTorch takes a dtype (float: float64, int: int64, bool, complex:
    complex128), else NO_MATCH."""
    name = "float64" if obj is float else "int64" if obj is int else "bool" if obj is bool else \
        "complex128" if obj is complex else None
    return NO_MATCH if name is None else _dtype_from_name(name)


cdef int check_out_options(object out, object dtype, object layout, object device) except -1:
    """A factory called with out=: the TensorOptions given must be out's (PyTorch's
    check_out_type_matches)."""
    if dtype is not None and out.dtype != dtype:
        raise RuntimeError(f"dtype {dtype.type_name} does not match dtype of out parameter ({out.dtype.type_name})")
    if layout is not None and out.layout != layout:
        raise RuntimeError(f"layout {_layout_name(layout)} does not match layout of out parameter "
                           f"({_layout_name(out.layout)})")
    if device is not None and out.device.type != device.type:
        raise RuntimeError(f"device type {device.type} does not match device type of out parameter "
                           f"({out.device.type})")
    return 0


cdef str _layout_name(object layout):
    return str(layout).removeprefix("torch.").capitalize()


cdef object set_requires_grad(object result, object flag):
    """A factory's `requires_grad=True`: PyTorch's check, then the flag (torch.Tensor.requires_grad)."""
    if flag:
        dt = (<TensorImpl>result).dtype
        if not (dt.is_floating_point or dt.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        result._requires_grad = True
        result._set_autograd_key(True)
    return result
