"""TensorImpl: the metadata of a tensor over a Storage, as c10::TensorImpl.

torch.Tensor subclasses TensorImpl (torch registers it with set_tensor_type), so every tensor
an aten kernel makes is a torch.Tensor without a wrapper object per call.
"""
import numpy as np

from libc.stdint cimport uint16_t, uint32_t, uint64_t
from c10.scalar_type cimport (dtype, dtype_of, itemsize_of, ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32,
                              ST_INT64, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_BFLOAT16, ST_FLOAT8_E5M2,
                              ST_FLOAT8_E4M3FN, ST_FLOAT8_E5M2FNUZ, ST_FLOAT8_E4M3FNUZ, ST_UINT16, ST_UINT32, ST_UINT64,
                              ST_COMPLEX64, ST_COMPLEX128, has_cuda_type)
from c10.half cimport half
from c10.bfloat16 cimport bfloat16, bf16_to_float
from c10.float8 cimport (float8_e5m2, float8_e4m3fn, float8_e5m2fnuz, float8_e4m3fnuz, e5m2_to_float, e4m3fn_to_float,
                         e5m2fnuz_to_float, e4m3fnuz_to_float)
from c10.storage cimport Storage, cpu_storage, borrowed_storage
from c10.dispatch_key cimport backend_key_set, DK_AUTOGRAD_CPU, DK_AUTOGRAD_CUDA, DK_FUNCTORCH_BATCHED, DK_FORWARD_AD
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_RECORDS_RO
from cpython.long cimport PyLong_AsSsize_t, PyLong_CheckExact, PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong

from c10 import device as _device_mod
from c10 import layout as _layout
from c10.scalar_type import dtype_from_numpy

_CPU = _device_mod.CPU
_CHANNELS_LAST = _layout.channels_last
cdef type _tensor_type = None      # set by torch at import (set_tensor_type)
cdef type _size_type = tuple       # torch.Size, set by torch at import (set_size_type)

cdef extern from *:
    """
    /* A tuple (or tuple subclass: torch.Size) of n sizes, built in place as tuple's own
       subtype constructor does, without the intermediate list and tuple. */
    static PyObject* ember_new_size(PyObject* type, const Py_ssize_t* sizes, int n) {
        PyObject* t = ((PyTypeObject*)type)->tp_alloc((PyTypeObject*)type, n);
        if (t == NULL) return NULL;
        for (int i = 0; i < n; i++) {
            PyObject* v = PyLong_FromSsize_t(sizes[i]);
            if (v == NULL) { Py_DECREF(t); return NULL; }
            PyTuple_SET_ITEM(t, i, v);
        }
        return t;
    }
    """
    object ember_new_size(object size_type, const Py_ssize_t* sizes, int n)


def set_tensor_type(type cls):
    """Make every tensor created from now on an instance of cls (a TensorImpl subclass)."""
    global _tensor_type
    if not issubclass(cls, TensorImpl):
        raise TypeError(f"set_tensor_type: {cls!r} is not a subclass of TensorImpl")
    _tensor_type = cls


def set_size_type(type cls):
    """The tuple subclass `shape` and `size()` return (torch.Size)."""
    global _size_type
    if not issubclass(cls, tuple):
        raise TypeError(f"set_size_type: {cls!r} is not a subclass of tuple")
    _size_type = cls


cdef class VersionCounter:
    """Shared by a tensor and its views; bumped by every in-place write."""
    pass


cdef class TensorImpl:
    """Sizes, strides (in elements), storage offset, dtype, device and version of a tensor."""

    def __init__(self, *args, **kwargs):
        raise TypeError("TensorImpl cannot be constructed directly; use torch.tensor, torch.empty or torch.from_numpy")

    cdef int refresh_metadata(self) except -1:
        cdef Py_ssize_t expected = 1
        cdef int i
        cdef bint contiguous = True
        self.n_elem = checked_numel(self.nd, self.sizes)
        for i in range(self.nd - 1, -1, -1):
            if self.sizes[i] != 1:
                if self.strides[i] != expected:
                    contiguous = False
                expected *= self.sizes[i]
        self.contiguous = contiguous or self.n_elem == 0
        return 0

    cdef int resize(self, int ndim, const Py_ssize_t* sizes) except -1:
        """Give self these sizes and contiguous strides, growing its storage when needed (resize_)."""
        cdef Py_ssize_t strides[MAX_DIMS]
        cdef Py_ssize_t nbytes
        cdef int i
        if ndim > MAX_DIMS:
            raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {ndim}")
        checked_numel(ndim, sizes)          # c10's order: numel, then strides, then the storage size
        nbytes = contiguous_layout(ndim, sizes, strides, self.itemsize, self.offset)
        if nbytes > self.offset * self.itemsize:
            self.storage.grow(nbytes)
        self.nd = ndim
        for i in range(ndim):
            self.sizes[i] = sizes[i]
            self.strides[i] = strides[i]
        self.refresh_metadata()
        return 0

    # -- metadata, read by torch.Tensor ---------------------------------------------------
    def dim(self):
        return self.nd

    @property
    def ndim(self):
        return self.nd

    def numel(self):
        return self.n_elem

    def _sizes(self):
        return tuple([self.sizes[i] for i in range(self.nd)])

    @property
    def shape(self):
        return ember_new_size(_size_type, self.sizes, self.nd)

    def size(self, dim=None):
        if dim is None:
            return ember_new_size(_size_type, self.sizes, self.nd)
        return self.sizes[self._wrap_dim(dim)]

    def stride(self, dim=None):
        if dim is None:
            return tuple([self.strides[i] for i in range(self.nd)])
        return self.strides[self._wrap_dim(dim)]

    def _size_at(self, dim):
        return self.sizes[self._wrap_dim(dim)]

    cpdef int _wrap_dim(self, object dim) except -1:
        cdef int n = self.nd if self.nd > 0 else 1
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"dim must be an int, got {type(dim).__name__}")
        if dim < -n or dim >= n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return dim + n if dim < 0 else dim

    def storage_offset(self):
        return self.offset

    @staticmethod
    def _layouts_hold(tuple tensors not None, tuple expected not None):
        """Whether each tensors[i] has the layout expected[i] = (dtype, device, sizes, strides, requires_grad,
        hookless: no gradient hooks either, and the attribute names it may carry, or None): a compiled graph's
        guard on the tensors it holds (its parameters, an optimizer's state) in one call."""
        cdef Py_ssize_t i
        cdef TensorImpl t
        cdef tuple e
        if len(tensors) != len(expected):
            return False
        for i in range(len(tensors)):
            t = <TensorImpl?>tensors[i]
            e = <tuple>expected[i]
            if not t._layout_is(e[0], e[1], e[2], e[3]):
                return False
            if (bool(t._requires_grad) or t._grad_fn is not None) is not e[4]:
                return False
            if e[5] and (<object>t).__dict__.get("_leaf_hooks"):
                return False
            if e[6] is not None and not (<object>t).__dict__.keys() <= e[6]:
                return False
        return True

    def _layout_is(self, dtype dt not None, object device, tuple sizes not None, tuple strides not None):
        """Whether this tensor has exactly this dtype, device, sizes and strides: a compiled graph's
        guard (torch._dynamo.guards) in one call instead of five attribute reads."""
        cdef int i
        if self.scalar_type != dt.scalar_type or len(sizes) != self.nd or len(strides) != self.nd:
            return False
        for i in range(self.nd):
            if self.sizes[i] != <Py_ssize_t>sizes[i] or self.strides[i] != <Py_ssize_t>strides[i]:
                return False
        return self.device_obj is device or self.device_obj == device

    def is_contiguous(self, memory_format=None):
        if memory_format is None or memory_format is not _CHANNELS_LAST:
            return self.contiguous   # contiguous_format, and preserve_format as PyTorch answers it
        return _channels_last_contiguous(self)

    @property
    def dtype(self):
        return dtype_of(self.scalar_type)

    @property
    def device(self):
        return self.device_obj

    @property
    def is_cuda(self):
        return self.device_type == 1

    @property
    def _version(self):
        return self.version_counter.version

    def _bump_version(self):
        self.version_counter.version += 1

    @property
    def _base(self):
        """The tensor this one is a view of (its storage and version counter), or None."""
        return self.view_base

    def _is_view(self):
        return self.view_base is not None

    @property
    def _is_wrapped_number(self):
        return self.is_wrapped_number

    @property
    def _untyped_storage(self):
        if self.key_set & BATCHED_BIT:
            raise RuntimeError("Cannot access storage of BatchedTensorImpl")
        return self.storage

    def _shallow_copy_from(self, TensorImpl other not None):
        """`x.data = y`: self takes y's storage, geometry, dtype and device and keeps its own
        version counter (c10's TensorImpl::shallow_copy_from)."""
        cdef int i
        if (self.key_set | other.key_set) & BATCHED_BIT:
            raise RuntimeError("accessing `data` under vmap transform is not allowed")
        self.storage = other.storage
        self.offset = other.offset
        self.nd = other.nd
        for i in range(other.nd):
            self.sizes[i] = other.sizes[i]
            self.strides[i] = other.strides[i]
        self.scalar_type = other.scalar_type
        self.itemsize = other.itemsize
        # The backend keys are other's; whether self requires grad (its Autograd key) stays.
        had_autograd = (self.key_set & ~(backend_key_set(self.device_type) | FORWARD_AD_BIT)) != 0
        self.key_set = backend_key_set(other.device_type) | (self.key_set & FORWARD_AD_BIT)
        self.device_type = other.device_type
        self.device_obj = other.device_obj
        if had_autograd:
            self._set_autograd_key(True)
        self.refresh_metadata()

    def _variable_data(self):
        """What `.data` returns (c10's variable_data): self's memory and geometry, with a version
        counter of its own and no view base, so writes through it are invisible to autograd's
        saved-tensor checks, as PyTorch's."""
        if self.key_set & BATCHED_BIT:
            raise RuntimeError("accessing `data` under vmap transform is not allowed")
        return make_tensor(self.storage, self.offset, self.nd, self.sizes, self.strides, self.scalar_type)

    def item(self):
        """The one element as a Python number (read in C: `loss.item()` is on every training step)."""
        if self.key_set & BATCHED_BIT:
            raise RuntimeError(VMAP_ITEM_MESSAGE)
        if self.n_elem != 1:
            raise RuntimeError(f"a Tensor with {self.n_elem} elements cannot be converted to Scalar")
        if self.device_type != 0:
            return self._host_view().reshape(()).item()
        return _read_scalar(self.data(), self.scalar_type)

    def tolist(self):
        """Nested lists of Python numbers (a number for a 0-dim tensor), read in C."""
        _refuse_batched(self)
        if self.device_type != 0:
            return self._host_view().tolist()
        if self.nd == 0:
            return _read_scalar(self.data(), self.scalar_type)
        return _to_list(self, 0, self.data())

    def _set_autograd_key(self, bint on):
        """Put this tensor's Autograd key (AutogradCPU or AutogradCUDA) in its key set, or take it
        out: set while it requires grad, so the dispatcher runs autograd kernels only for them."""
        cdef uint64_t bit = (<uint64_t>1) << (DK_AUTOGRAD_CPU if self.device_type == 0 else DK_AUTOGRAD_CUDA)
        if on:
            self.key_set |= bit
        else:
            self.key_set &= ~bit

    def _set_forward_ad_key(self, bint on):
        """Put the ForwardAD key in this tensor's key set, or take it out: set while it has a tangent at some
        forward-AD level (torch.autograd.forward_ad), so only such tensors' calls run tangent formulas."""
        if on:
            self.key_set |= FORWARD_AD_BIT
        else:
            self.key_set &= ~FORWARD_AD_BIT

    def _has_forward_ad_key(self):
        return (self.key_set & FORWARD_AD_BIT) != 0

    def data_ptr(self):
        _refuse_batched(self)
        return <Py_ssize_t>self.data()

    def _is_batched(self):
        """Whether this is one of vmap's batched tensors (torch._functorch.batched): its geometry is one
        example's, its values live in the physical tensor it was made from."""
        return (self.key_set & BATCHED_BIT) != 0

    def element_size(self):
        return self.itemsize

    def _numpy_view(self, bint raw=False):
        """A numpy array over this tensor's memory (CPU only): no copy, writes are shared. raw: as
        unsigned integers of the element's width (the bits, for any dtype, bfloat16 included)."""
        _refuse_batched(self)
        if self.device_type != 0:
            raise TypeError(f"can't convert {self.device_obj.type}:{self.device_obj.index} device type tensor to numpy. "
                            "Use Tensor.cpu() to copy the tensor to host memory first.")
        # raw: 16-byte elements (complex128) have no unsigned integer of their width
        np_dtype = (np.dtype(f"u{self.itemsize}") if self.itemsize <= 8 else np.dtype(f"V{self.itemsize}")) if raw \
            else dtype_of(self.scalar_type).numpy_dtype
        if np_dtype is None:
            raise TypeError(f"Got unsupported ScalarType {dtype_of(self.scalar_type).type_name}")
        if self.n_elem == 0:
            return np.empty(self._sizes(), dtype=np_dtype)
        return np.ndarray(self._sizes(), dtype=np_dtype, buffer=self.storage,
                          offset=self.offset * self.itemsize,
                          strides=tuple([self.strides[i] * self.itemsize for i in range(self.nd)]))


cdef object _read_scalar(const char* p, int st):
    if st == ST_FLOAT32:
        return (<const float*>p)[0]
    if st == ST_FLOAT64:
        return (<const double*>p)[0]
    if st == ST_INT64:
        return (<const long long*>p)[0]
    if st == ST_INT32:
        return (<const int*>p)[0]
    if st == ST_BOOL:
        return (<const unsigned char*>p)[0] != 0
    if st == ST_UINT8:
        return (<const unsigned char*>p)[0]
    if st == ST_INT8:
        return (<const signed char*>p)[0]
    if st == ST_INT16:
        return (<const short*>p)[0]
    if st == ST_FLOAT16:
        return <float>(<const half*>p)[0]
    if st == ST_BFLOAT16:
        return bf16_to_float((<const bfloat16*>p)[0])
    if st == ST_UINT16:
        return (<const uint16_t*>p)[0]
    if st == ST_UINT32:
        return (<const uint32_t*>p)[0]
    if st == ST_UINT64:
        return (<const uint64_t*>p)[0]
    if st == ST_FLOAT8_E5M2:
        return e5m2_to_float((<const float8_e5m2*>p)[0])
    if st == ST_FLOAT8_E4M3FN:
        return e4m3fn_to_float((<const float8_e4m3fn*>p)[0])
    if st == ST_FLOAT8_E5M2FNUZ:
        return e5m2fnuz_to_float((<const float8_e5m2fnuz*>p)[0])
    if st == ST_FLOAT8_E4M3FNUZ:
        return e4m3fnuz_to_float((<const float8_e4m3fnuz*>p)[0])
    if st == ST_COMPLEX64:
        return complex((<const float*>p)[0], (<const float*>p)[1])
    if st == ST_COMPLEX128:
        return complex((<const double*>p)[0], (<const double*>p)[1])
    raise TypeError(f"no Python number for scalar type {st}")


cdef list _to_list(TensorImpl t, int d, const char* p):
    cdef Py_ssize_t i, n = t.sizes[d]
    cdef Py_ssize_t step = t.strides[d] * t.itemsize
    cdef list out = [None] * n
    for i in range(n):
        out[i] = _read_scalar(p + i * step, t.scalar_type) if d == t.nd - 1 else _to_list(t, d + 1, p + i * step)
    return out


cdef bint _channels_last_contiguous(TensorImpl t):
    """Dense in N, H, W, C order (c10's is_channels_last_contiguous); size-1 dims are free."""
    cdef Py_ssize_t expected = 1
    cdef int d
    if t.nd != 4:
        return False
    for d in (1, 3, 2, 0):
        if t.sizes[d] != 1:
            if t.strides[d] != expected:
                return False
            expected *= t.sizes[d]
    return True


cdef uint64_t BATCHED_BIT = (<uint64_t>1) << DK_FUNCTORCH_BATCHED
cdef uint64_t FORWARD_AD_BIT = (<uint64_t>1) << DK_FORWARD_AD
VMAP_ITEM_MESSAGE = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() "
                     "on a Tensor, please try to rewrite what you're doing with other operations. If error is occurring "
                     "somewhere inside PyTorch internals, please file a bug report.")


cdef int _refuse_batched(TensorImpl t) except -1:
    """A batched tensor has no memory of its own to read (PyTorch's BatchedTensorImpl has no storage)."""
    if t.key_set & BATCHED_BIT:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
    return 0


def batched_shell(TensorImpl value not None, int bdim, TensorImpl base=None):
    """The tensor vmap hands the function for one batch dimension of value (torch._functorch.batched):
    value's geometry without dimension bdim, and the FuncTorchBatched key, under which every operator
    call goes to a batching rule that works on value itself. It points at value's memory so that any
    read that does not go through the dispatcher stays in bounds; the ones Tensor offers refuse. It shares
    value's version counter (writes go to value), and base, when given, is the batched tensor it is a view of
    (autograd's views: an in-place write to it rebases base's history)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int i, j = 0
    if not 0 <= bdim < value.nd:
        raise IndexError(f"batch dimension {bdim} out of range for a tensor of dimension {value.nd}")
    for i in range(value.nd):
        if i != bdim:
            sizes[j] = value.sizes[i]
            strides[j] = value.strides[i]
            j += 1
    cdef TensorImpl t = make_tensor(value.storage, value.offset, value.nd - 1, sizes, strides, value.scalar_type,
                                    value.version_counter)
    t.key_set |= BATCHED_BIT
    if base is not None:
        t.view_base = base.view_base if base.view_base is not None else base
    return t


cdef TensorImpl make_view(TensorImpl base, Py_ssize_t offset, int ndim, const Py_ssize_t* sizes,
                          const Py_ssize_t* strides, int scalar_type):
    """A view of base: its storage and version counter, the given geometry, and base (or base's
    own base) as `_base`, which autograd needs for in-place ops on views."""
    cdef TensorImpl t = make_tensor(base.storage, offset, ndim, sizes, strides, scalar_type, base.version_counter)
    t.view_base = base.view_base if base.view_base is not None else base
    if _view_recorder is not None:
        _view_recorder(t.view_base, t)
    return t


# While a forward-AD level is live (torch/csrc/autograd/forward_grad.py sets it): told of each view, so that a
# tangent its base gets later, or gets anew (under vmap, where tangents cannot be viewed), reaches the view.
cdef object _view_recorder = None


def set_view_recorder(recorder):
    global _view_recorder
    _view_recorder = recorder


cdef TensorImpl make_tensor(Storage storage, Py_ssize_t offset, int ndim, const Py_ssize_t* sizes,
                            const Py_ssize_t* strides, int scalar_type, VersionCounter version=None):
    cdef TensorImpl t
    cdef int i
    if ndim > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {ndim}")
    if itemsize_of(scalar_type) == 0:       # a dtype Ember only names (complex32): no tensors of it
        raise RuntimeError(f"Ember has no {dtype_of(scalar_type)} tensors yet (complex arithmetic is not "
                           "implemented)")
    if storage.device_type != 0 and not has_cuda_type(scalar_type):
        raise NotImplementedError(f"Ember has no {dtype_of(scalar_type)} tensors on CUDA yet (its CUDA kernels "
                                  "have no type for it)")
    if _tensor_type is None:
        t = TensorImpl.__new__(TensorImpl)
    else:
        t = TensorImpl.__new__(_tensor_type)
    t.storage = storage
    t.offset = offset
    t.nd = ndim
    for i in range(ndim):
        t.sizes[i] = sizes[i]
        t.strides[i] = strides[i]
    t.scalar_type = scalar_type
    t.itemsize = itemsize_of(scalar_type)
    t.device_obj = storage.device
    t.device_type = storage.device_type
    t.key_set = backend_key_set(storage.device_type)
    t.version_counter = version if version is not None else VersionCounter.__new__(VersionCounter)
    t.is_wrapped_number = False
    t.refresh_metadata()
    return t


cdef TensorImpl empty_contiguous(int ndim, const Py_ssize_t* sizes, int scalar_type, object device):
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t nbytes
    if ndim > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {ndim}")
    nbytes = contiguous_layout(ndim, sizes, strides, itemsize_of(scalar_type), 0)
    return make_tensor(storage_for(nbytes, device), 0, ndim, sizes, strides, scalar_type)


cdef TensorImpl empty_with_strides(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides, int scalar_type,
                                   object device):
    """A new tensor with the given strides, over just the memory they reach (empty_strided)."""
    if ndim > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {ndim}")
    _check_nonnegative(ndim, sizes)
    cdef Py_ssize_t nbytes = strided_nbytes(ndim, sizes, strides, itemsize_of(scalar_type), 0)
    return make_tensor(storage_for(nbytes, device), 0, ndim, sizes, strides, scalar_type)


# -- overflow-checked geometry ----------------------------------------------------------------------

cdef extern from *:
    """
    /* Products and sums of sizes and strides in 64 bits, with a sticky overflow flag: c10's
       safe_multiplies_u64 / mul_overflows, signed so that anything past INT64_MAX overflows. */
    static inline int ember_numel_overflows(int n, const Py_ssize_t* sizes, Py_ssize_t* out) {
        Py_ssize_t prod = 1;
        int overflow = 0;
        for (int i = 0; i < n; i++) overflow |= __builtin_mul_overflow(prod, sizes[i], &prod);
        *out = prod;
        return overflow;
    }
    static inline int ember_mul_overflows(Py_ssize_t a, Py_ssize_t b, Py_ssize_t* out) {
        return __builtin_mul_overflow(a, b, out);
    }
    static inline int ember_add_overflows(Py_ssize_t a, Py_ssize_t b, Py_ssize_t* out) {
        return __builtin_add_overflow(a, b, out);
    }
    """
    bint ember_numel_overflows(int n, const Py_ssize_t* sizes, Py_ssize_t* out) noexcept nogil
    bint ember_mul_overflows(Py_ssize_t a, Py_ssize_t b, Py_ssize_t* out) noexcept nogil
    bint ember_add_overflows(Py_ssize_t a, Py_ssize_t b, Py_ssize_t* out) noexcept nogil


cdef bint non_overlapping_and_dense(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept:
    """PyTorch's compute_non_overlapping_and_dense: the elements fill a block of memory exactly,
    in some order of the dims."""
    cdef int perm[MAX_DIMS]
    cdef int i, j, a, b
    cdef Py_ssize_t require = 1
    if ndim == 0:
        return True
    if ndim == 1:
        return sizes[0] < 2 or strides[0] == 1
    for i in range(ndim):
        perm[i] = i
    # Insertion sort: dims of size < 2 last, the others by increasing stride.
    for i in range(1, ndim):
        j = i
        while j > 0:
            a = perm[j - 1]
            b = perm[j]
            if not (sizes[b] >= 2 and (sizes[a] < 2 or strides[b] < strides[a])):
                break
            perm[j - 1] = b
            perm[j] = a
            j -= 1
    for i in range(ndim):
        a = perm[i]
        if sizes[a] < 2:
            return True
        if strides[a] != require:
            return False
        require *= sizes[a]
    return True


cdef str sizes_text(int ndim, const Py_ssize_t* values):
    """An int array as PyTorch prints an IntArrayRef: [2, 3]."""
    return "[" + ", ".join([str(values[i]) for i in range(ndim)]) + "]"


cdef int _check_nonnegative(int ndim, const Py_ssize_t* sizes) except -1:
    cdef int i
    for i in range(ndim):
        if sizes[i] < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {sizes[i]}: {sizes_text(ndim, sizes)}")
    return 0


cdef Py_ssize_t checked_numel(int ndim, const Py_ssize_t* sizes) except? -1:
    """The element count of a shape (c10's safe_compute_numel)."""
    cdef Py_ssize_t n
    if ember_numel_overflows(ndim, sizes, &n):
        raise RuntimeError("numel: integer multiplication overflow")
    return n


cdef Py_ssize_t contiguous_layout(int ndim, const Py_ssize_t* sizes, Py_ssize_t* strides,
                                  Py_ssize_t itemsize, Py_ssize_t offset) except -1:
    """Fill contiguous strides for sizes; returns the bytes a storage needs for them after
    `offset` elements (computeStorageNbytesContiguous, then empty_tensor_restride's check)."""
    cdef Py_ssize_t n, stride = 1
    cdef bint overflow
    cdef int i
    _check_nonnegative(ndim, sizes)
    overflow = ember_numel_overflows(ndim, sizes, &n)
    overflow |= ember_add_overflows(n, offset, &n)
    overflow |= ember_mul_overflows(n, itemsize, &n)
    if overflow:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={sizes_text(ndim, sizes)}")
    for i in range(ndim - 1, -1, -1):
        strides[i] = stride
        if ember_mul_overflows(stride, sizes[i] if sizes[i] > 1 else 1, &stride):
            raise RuntimeError("Stride calculation overflowed")
    return n


cdef Py_ssize_t strided_nbytes(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                               Py_ssize_t itemsize, Py_ssize_t offset) except -1:
    """The bytes a geometry reaches from the start of its storage (c10's computeStorageNbytes):
    0 when it has no elements; negative strides overflow, as c10's unsigned arithmetic makes them."""
    cdef Py_ssize_t n = offset + 1, reach
    cdef bint overflow = offset < 0
    cdef int i
    for i in range(ndim):
        if sizes[i] == 0:
            return 0
    for i in range(ndim):
        overflow |= sizes[i] < 0 or strides[i] < 0
        overflow |= ember_mul_overflows(strides[i], sizes[i] - 1, &reach)
        overflow |= ember_add_overflows(n, reach, &n)
    overflow |= ember_mul_overflows(n, itemsize, &n)
    if overflow:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={sizes_text(ndim, sizes)} and "
                           f"strides={sizes_text(ndim, strides)}")
    return n


cdef Storage storage_for(Py_ssize_t nbytes, object device):
    """New uninitialised memory on device (None means CPU)."""
    if device is None or device is _CPU or device.type == "cpu":
        return cpu_storage(nbytes)
    from c10 import cuda as _cuda     # only when a CUDA tensor is made
    address, owner = _cuda.allocate(nbytes, device)
    return borrowed_storage(address, nbytes, owner, device)


cdef int sizes_from_sequence(object seq, Py_ssize_t* out, str what) except -1:
    """Copy a sequence of ints into out; TypeError naming `what` for anything else."""
    cdef Py_ssize_t n = len(seq)
    cdef Py_ssize_t i
    if n > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {n}")
    for i in range(n):
        v = seq[i]
        if PyLong_CheckExact(v):                # the common case: no __index__ lookup
            out[i] = PyLong_AsSsize_t(v)
            continue
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{what} must be a tuple of ints, but got {type(v).__name__} at position {i}")
        out[i] = v.__index__()
    return <int>n


def empty(sizes, dtype dt, device=None):
    """A new uninitialised contiguous tensor (device None means CPU)."""
    cdef Py_ssize_t c_sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(sizes, c_sizes, "size")
    return empty_contiguous(ndim, c_sizes, dt.scalar_type, device)


cdef TensorImpl wrap_number(object value):
    """A 0-dim CPU tensor for a Python number, marked as a wrapped number for type promotion."""
    cdef int st
    cdef TensorImpl t
    if isinstance(value, bool):
        st = ST_BOOL
    elif isinstance(value, int):
        st = ST_INT64
    elif isinstance(value, float):
        st = ST_FLOAT64
    elif isinstance(value, complex):
        st = ST_COMPLEX128
    else:
        raise TypeError(f"expected a Python number, got {type(value).__name__}")
    t = empty_contiguous(0, NULL, st, None)
    if st == ST_BOOL:
        (<unsigned char*>t.data())[0] = 1 if value else 0
    elif st == ST_INT64:
        (<long long*>t.data())[0] = unpack_long(value)
    elif st == ST_COMPLEX128:
        (<double*>t.data())[0] = value.real
        (<double*>t.data())[1] = value.imag
    else:
        (<double*>t.data())[0] = value
    t.is_wrapped_number = True
    return t


cpdef long long unpack_long(object value) except? -1:
    """A Python int as an int64. Beyond int64 PyTorch reads it as a uint64 Scalar, and raises
    OverflowError ("int too big to convert", "can't convert negative int to unsigned") beyond
    that, as here; a uint64 value Ember cannot hold yet (no uint64 dtype) is refused, never
    wrapped."""
    cdef int overflow = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(value, &overflow)
    if overflow == 0:
        return v
    PyLong_AsUnsignedLongLong(value)          # PyTorch's OverflowError beyond uint64
    raise RuntimeError(f"value cannot be converted to type int64 without overflow: {value}")


def scalar_to_tensor(value):
    """Python-level access to wrap_number (used by torch for reflected operators)."""
    return wrap_number(value)


cdef Py_ssize_t _first_element_address(object arr) except? -1:
    """The address of arr[0, ..., 0] through the buffer protocol (numpy's __array_interface__
    builds a dict per call: 4 us)."""
    cdef Py_buffer view
    PyObject_GetBuffer(arr, &view, PyBUF_RECORDS_RO)
    cdef Py_ssize_t address = <Py_ssize_t>view.buf
    PyBuffer_Release(&view)
    return address


def over_shared_block(object block, dtype dt, sizes, strides, Py_ssize_t offset):
    """A CPU tensor over a SharedBlock's memory (c10.storage): what a tensor sent to this process
    through shared memory is rebuilt as."""
    return over_storage(borrowed_storage(block.address, block.nbytes, block, _CPU), dt, sizes, strides, offset)


def over_storage(Storage storage not None, dtype dt, sizes, strides, Py_ssize_t offset):
    """A tensor of dt over an existing storage (its geometry checked against the storage's bytes)."""
    cdef Py_ssize_t c_sizes[MAX_DIMS]
    cdef Py_ssize_t c_strides[MAX_DIMS]
    cdef int i, ndim = len(sizes)
    if ndim > MAX_DIMS or len(strides) != ndim:
        raise RuntimeError("over_storage: sizes and strides must have the same length, at most MAX_DIMS")
    for i in range(ndim):
        c_sizes[i] = sizes[i]
        c_strides[i] = strides[i]
    if offset < 0 or strided_nbytes(ndim, c_sizes, c_strides, itemsize_of(dt.scalar_type), offset) \
            > storage.size_bytes:
        raise RuntimeError(f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset {offset}, "
                           f"and itemsize {dt.itemsize} requiring a storage size larger than the storage's "
                           f"{storage.size_bytes} bytes")
    return make_tensor(storage, offset, ndim, c_sizes, c_strides, dt.scalar_type)


def from_numpy(object arr):
    """A tensor sharing memory with a numpy array (the array is kept alive by the storage)."""
    cdef Py_ssize_t c_sizes[MAX_DIMS]
    cdef Py_ssize_t c_strides[MAX_DIMS]
    cdef int i, ndim
    cdef dtype dt
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    dt = dtype_from_numpy(arr.dtype)
    ndim = arr.ndim
    if ndim > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {ndim}")
    if not arr.flags.writeable:
        import warnings
        warnings.warn("The given NumPy array is not writable, and Ember does not support non-writable tensors. "
                      "Writing to the tensor is undefined behaviour.", UserWarning, stacklevel=2)
    # The lowest and highest byte any element touches: the borrowed range.
    for i in range(ndim):
        c_sizes[i] = arr.shape[i]
        if arr.strides[i] < 0:
            raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                             "strides are not currently supported. (You can probably work around this by making a "
                             "copy of your array  with array.copy().)")
        if arr.strides[i] % dt.itemsize != 0:
            raise ValueError("given numpy array strides not a multiple of the element byte size. "
                             "Copy the numpy array to reallocate the memory.")
        c_strides[i] = arr.strides[i] // dt.itemsize
    address = _first_element_address(arr)
    nbytes = arr.nbytes if arr.size else 0
    if arr.size:
        extent = 1
        for i in range(ndim):
            extent += (c_sizes[i] - 1) * c_strides[i]
        nbytes = extent * dt.itemsize
    storage = borrowed_storage(address, nbytes, arr, _CPU)
    return make_tensor(storage, 0, ndim, c_sizes, c_strides, dt.scalar_type)
