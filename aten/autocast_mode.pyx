"""Autocast: the Autocast dispatch keys' kernels and their per-thread state (ATen's autocast_mode).

An operator declares its cast policy per device in the schema (`ember_autocast:` in
native_functions.yaml, from PyTorch's lists); torchgen registers an AutocastKernel at that device's
Autocast key. While autocast is enabled for a device, the dispatcher adds the device's Autocast key
to every call whose tensors are on it (the key sits above Autograd, so the casts are recorded by
autograd and a lower-precision op saves lower-precision tensors for backward). Every other operator
falls through to the keys below. The kernel casts the eligible arguments (floating tensors on its
device, float64 excepted) and calls the operator again with autocast excluded, as PyTorch's
ExcludeDispatchKeyGuard does:

- lower_precision_fp: to the device's autocast dtype (bfloat16 on the CPU, float16 on CUDA by default);
- fp32: to float32;
- fp32_set_opt_dtype: when the first argument is eligible, dtype=float32 unless the call gives one;
- fp32_append_dtype: calls the overload that takes a dtype, with float32 (or the first argument's
  dtype when it is not eligible);
- promote: to the widest dtype among the eligible Tensor and Tensor[] arguments;
- banned: raises, naming the safe replacement (binary_cross_entropy on CUDA).

lower_precision_fp casts of float32 leaf tensors that require grad (weights) are cached until the
outermost autocast region exits, so a weight used by several ops is cast once.
"""
import threading
import warnings

from libc.stdint cimport uint64_t
from c10.dispatch_key cimport DK_AUTOCAST_CPU, DK_AUTOCAST_CUDA
from c10.scalar_type cimport (dtype, dtype_of, is_floating, ST_BFLOAT16, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64,
                              ST_UNDEFINED)
from c10.tensor_impl cimport TensorImpl
from c10.grad_mode cimport grad_enabled, set_grad_enabled_flag, inference_enabled

from c10.device import KNOWN_TYPES

cdef extern from *:
    """
    static __thread unsigned long long ember_autocast_enabled = 0;
    static __thread unsigned long long ember_autocast_excluded = 0;   /* keys whose kernels are running */
    static __thread int ember_autocast_dtype_cpu = 15;   /* bfloat16 */
    static __thread int ember_autocast_dtype_cuda = 5;   /* float16 */
    static __thread int ember_autocast_cache_enabled = 1;
    static __thread int ember_autocast_nesting = 0;
    """
    unsigned long long ember_autocast_enabled
    unsigned long long ember_autocast_excluded
    int ember_autocast_dtype_cpu
    int ember_autocast_dtype_cuda
    int ember_autocast_cache_enabled
    int ember_autocast_nesting

cdef enum:
    DEVICE_CPU = 0          # c10.device.DeviceType numbers, as TensorImpl.device_type holds them
    DEVICE_CUDA = 1

cdef enum Policy:
    LOWER_PRECISION_FP = 0
    FP32 = 1
    FP32_SET_OPT_DTYPE = 2
    FP32_APPEND_DTYPE = 3
    PROMOTE = 4
    BANNED = 5

POLICIES = {"lower_precision_fp": LOWER_PRECISION_FP, "fp32": FP32, "fp32_set_opt_dtype": FP32_SET_OPT_DTYPE,
            "fp32_append_dtype": FP32_APPEND_DTYPE, "promote": PROMOTE, "banned": BANNED}

cdef enum Kind:
    OTHER = 0
    TENSOR = 1
    OPTIONAL_TENSOR = 2
    TENSOR_LIST = 3         # Tensor[]; a Tensor?[] is left alone, as PyTorch's templates leave it

BANNED_MESSAGES = {
    "binary_cross_entropy": (
        "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
        "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
        "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
        "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
        "safe to autocast."),
}

# id(source) -> (source, its lower-precision copy). Holding the source keeps its id from being reused
# while the entry lives; the outermost autocast region's exit clears the cache.
cdef dict _cached_casts = {}


cdef uint64_t autocast_keys() noexcept nogil:
    return ember_autocast_enabled & ~ember_autocast_excluded


cdef inline int _lower_dtype(int device_type) noexcept nogil:
    return ember_autocast_dtype_cuda if device_type == DEVICE_CUDA else ember_autocast_dtype_cpu


cdef inline bint _eligible(object value, int device_type):
    """A floating tensor on the kernel's device, not float64 (PyTorch's is_eligible)."""
    cdef TensorImpl t
    if not isinstance(value, TensorImpl):
        return False
    t = <TensorImpl>value
    return t.device_type == device_type and is_floating(t.scalar_type) and t.scalar_type != ST_FLOAT64


cdef class AutocastKernel:
    """One operator's kernel at one device's Autocast key."""
    cdef object op                  # the operator, called again below autocast
    cdef object to_copy             # aten::_to_copy: the casts autograd records
    cdef object redispatch          # fp32_append_dtype: the overload taking a dtype
    cdef int device_type
    cdef Policy policy
    cdef tuple names                # the operator's parameter names, in order
    cdef tuple kinds                # Kind of each parameter
    cdef tuple defaults             # fp32_append_dtype: each parameter's default (None for required ones)
    cdef Py_ssize_t dtype_position  # fp32_set_opt_dtype: where `dtype` is
    cdef str banned_message

    def __init__(self, op, str policy, int device_type, to_copy, tuple names, tuple kinds, redispatch=None,
                 tuple defaults=(), str banned_message=""):
        self.op = op
        self.to_copy = to_copy
        self.redispatch = redispatch
        self.device_type = device_type
        self.policy = POLICIES[policy]
        self.names = names
        self.kinds = kinds
        self.defaults = defaults
        self.dtype_position = names.index("dtype") if "dtype" in names else -1
        self.banned_message = banned_message

    def __call__(self, *args, **kwargs):
        if self.policy == BANNED:
            raise RuntimeError(self.banned_message)
        global ember_autocast_excluded
        # PyTorch's ExcludeDispatchKeyGuard: this device's key, for everything the call runs
        cdef uint64_t key = (<uint64_t>1) << (DK_AUTOCAST_CUDA if self.device_type == DEVICE_CUDA else DK_AUTOCAST_CPU)
        cdef uint64_t before = ember_autocast_excluded
        ember_autocast_excluded |= key
        try:
            if self.policy == LOWER_PRECISION_FP:
                return self._call_cast(args, kwargs, _lower_dtype(self.device_type))
            if self.policy == FP32:
                return self._call_cast(args, kwargs, ST_FLOAT32)
            if self.policy == PROMOTE:
                return self._call_cast(args, kwargs, self._promote_type(args, kwargs))
            if self.policy == FP32_SET_OPT_DTYPE:
                return self._call_set_opt_dtype(args, kwargs)
            return self._call_append_dtype(args, kwargs)
        finally:
            ember_autocast_excluded = before

    cdef int _kind(self, Py_ssize_t position):
        return self.kinds[position] if position < len(self.kinds) else OTHER

    cdef object _call_cast(self, tuple args, dict kwargs, int to_type):
        cdef Py_ssize_t i
        cast_args = [self._cast(a, self._kind(i), to_type) for i, a in enumerate(args)]
        if kwargs:
            kwargs = {k: self._cast(v, self._kind(self.names.index(k)) if k in self.names else OTHER, to_type)
                      for k, v in kwargs.items()}
        return self.op(*cast_args, **kwargs)

    cdef object _cast(self, object value, int kind, int to_type):
        if kind == TENSOR or kind == OPTIONAL_TENSOR:
            return self._cached_cast(value, to_type)
        if kind == TENSOR_LIST and isinstance(value, (list, tuple)):
            return type(value)(self._cached_cast(v, to_type) for v in value)
        return value

    cdef object _cached_cast(self, object value, int to_type):
        cdef TensorImpl t
        if not _eligible(value, self.device_type):
            return value
        t = <TensorImpl>value
        if t.scalar_type == to_type:
            return value
        if (to_type == _lower_dtype(self.device_type) and t.scalar_type == ST_FLOAT32
                and ember_autocast_cache_enabled and not inference_enabled() and t.view_base is None
                and value.requires_grad and value.grad_fn is None):
            entry = _cached_casts.get(id(value))
            if entry is not None and entry[0] is value:
                return entry[1]
            # made with grad mode on, so a cast first made under no_grad still carries the weight's
            # gradient to later ops of the region (PyTorch's fix of the same cache)
            cast = self._cast_recording_grad(value, to_type)
            _cached_casts[id(value)] = (value, cast)
            return cast
        return self.to_copy(value, dtype=dtype_of(to_type))

    cdef object _cast_recording_grad(self, object value, int to_type):
        cdef bint was = grad_enabled()
        set_grad_enabled_flag(True)
        try:
            return self.to_copy(value, dtype=dtype_of(to_type))
        finally:
            set_grad_enabled_flag(was)

    cdef int _promote_type(self, tuple args, dict kwargs) except -2:
        """PyTorch's promote_type: float32 if any eligible Tensor or Tensor[] argument is float32 (the
        autocast dtype if all are it; float64 ones are skipped). Tensor? arguments do not vote."""
        cdef int current = _lower_dtype(self.device_type)
        cdef Py_ssize_t i
        cdef int kind
        for i in range(len(self.names)):
            kind = self.kinds[i]
            if kind != TENSOR and kind != TENSOR_LIST:
                continue
            if i < len(args):
                value = args[i]
            elif self.names[i] in kwargs:
                value = kwargs[self.names[i]]
            else:
                continue
            if kind == TENSOR:
                current = self._prioritize(current, value)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    current = self._prioritize(current, v)
        return current

    cdef int _prioritize(self, int current, object value) except -2:
        cdef int lower = _lower_dtype(self.device_type)
        cdef int st
        if isinstance(value, TensorImpl) and (<TensorImpl>value).device_type == self.device_type \
                and is_floating((<TensorImpl>value).scalar_type):
            st = (<TensorImpl>value).scalar_type
            if st == ST_FLOAT64:
                return current
            if current == ST_FLOAT32 or st == ST_FLOAT32:
                return ST_FLOAT32
            if current == lower and st == lower:
                return lower
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
        return current

    cdef object _first(self, tuple args, dict kwargs):
        if args:
            return args[0]
        return kwargs.get(self.names[0]) if self.names else None

    cdef object _call_set_opt_dtype(self, tuple args, dict kwargs):
        cdef Py_ssize_t p = self.dtype_position
        if _eligible(self._first(args, kwargs), self.device_type):
            if p < len(args):
                if args[p] is None:
                    args = args[:p] + (dtype_of(ST_FLOAT32),) + args[p + 1:]
            elif kwargs.get("dtype") is None:
                kwargs = dict(kwargs)
                kwargs["dtype"] = dtype_of(ST_FLOAT32)
        return self.op(*args, **kwargs)

    cdef object _call_append_dtype(self, tuple args, dict kwargs):
        cdef Py_ssize_t i
        first = self._first(args, kwargs)
        out_type = dtype_of(ST_FLOAT32) if _eligible(first, self.device_type) else \
            dtype_of((<TensorImpl>first).scalar_type)
        bound = []
        for i in range(len(self.names)):
            if i < len(args):
                bound.append(args[i])
            elif self.names[i] in kwargs:
                bound.append(kwargs[self.names[i]])
            else:
                bound.append(self.defaults[i])
        return self.redispatch(*bound, dtype=out_type)

    def __repr__(self):
        name = next(k for k, v in POLICIES.items() if v == self.policy)
        return f"<autocast {name} kernel of {self.op!r}>"


# ---- the state: thread-local, as PyTorch's; Python API in torch.amp -----------------------------

# Autocast dtypes of the device types Ember has no tensors on: only remembered, as PyTorch does for
# devices whose backends are not built (no tensor here can be on them).
cdef dict _OTHER_DEFAULT_DTYPES = {"xla": ST_BFLOAT16, "hpu": ST_BFLOAT16, "maia": ST_BFLOAT16, "hip": ST_FLOAT16,
                                   "xpu": ST_FLOAT16, "mps": ST_FLOAT16, "ipu": ST_FLOAT16, "mtia": ST_FLOAT16,
                                   "privateuseone": ST_FLOAT16}
_other_state = threading.local()      # per thread, as PyTorch's: .enabled and .dtypes, by device type


cdef dict _other(str field):
    if not hasattr(_other_state, field):
        setattr(_other_state, field, {})
    return getattr(_other_state, field)


cdef str _device_type(object device_type, str fn):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not {type(device_type).__name__}")
    name = device_type.split(":", 1)[0]
    if name not in KNOWN_TYPES:     # PyTorch's parse of a device string, which knows every backend's name
        raise RuntimeError(f"Expected one of {', '.join(KNOWN_TYPES)} device type at start of device string: "
                           f"{device_type}")
    return name


cdef uint64_t _key_bit(str device_type) noexcept:
    if device_type == "cpu":
        return (<uint64_t>1) << DK_AUTOCAST_CPU
    if device_type == "cuda":
        return (<uint64_t>1) << DK_AUTOCAST_CUDA
    return 0


def is_autocast_available(str device_type):
    """Whether autocast has kernels for device_type's tensors here (the CPU and CUDA)."""
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type="cuda"):
    cdef str kind = _device_type(device_type, "is_autocast_enabled")
    cdef uint64_t bit = _key_bit(kind)
    if bit:
        return (autocast_keys() & bit) != 0      # off inside its own kernels, as PyTorch's excluded key
    return _other("enabled").get(kind, False)


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled); PyTorch's old one-argument form sets CUDA's."""
    global ember_autocast_enabled
    if enabled is None:
        device_type, enabled = "cuda", device_type
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 1) must be bool, not "
                        f"{type(enabled).__name__}")
    cdef str kind = _device_type(device_type, "set_autocast_enabled")
    cdef uint64_t bit = _key_bit(kind)
    if not bit:
        _other("enabled")[kind] = enabled
    elif enabled:
        ember_autocast_enabled |= bit
    else:
        ember_autocast_enabled &= ~bit


def get_autocast_dtype(device_type):
    cdef str kind = _device_type(device_type, "get_autocast_dtype")
    if kind == "cpu":
        return dtype_of(ember_autocast_dtype_cpu)
    if kind == "cuda":
        return dtype_of(ember_autocast_dtype_cuda)
    st = _other("dtypes").get(kind, _OTHER_DEFAULT_DTYPES.get(kind, ST_UNDEFINED))
    if st == ST_UNDEFINED:
        raise RuntimeError("unsupported scalarType")
    return dtype_of(st)


def set_autocast_dtype(device_type, dtype dtype):
    global ember_autocast_dtype_cpu, ember_autocast_dtype_cuda
    cdef str kind = _device_type(device_type, "set_autocast_dtype")
    if kind == "cpu":
        ember_autocast_dtype_cpu = dtype.scalar_type
    elif kind == "cuda":
        ember_autocast_dtype_cuda = dtype.scalar_type
    else:
        _other("dtypes")[kind] = dtype.scalar_type


def is_autocast_cache_enabled():
    return ember_autocast_cache_enabled != 0


def set_autocast_cache_enabled(bint enabled):
    global ember_autocast_cache_enabled
    ember_autocast_cache_enabled = 1 if enabled else 0


def clear_autocast_cache():
    _cached_casts.clear()


def autocast_increment_nesting():
    global ember_autocast_nesting
    ember_autocast_nesting += 1
    return ember_autocast_nesting


def autocast_decrement_nesting():
    global ember_autocast_nesting
    ember_autocast_nesting -= 1
    return ember_autocast_nesting


def cached_cast_count():
    """How many casts the weight cache holds (for tests)."""
    return len(_cached_casts)


def _deprecated(str old, str new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(bint enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)
