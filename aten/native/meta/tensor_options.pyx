"""The creation options every backend checks the same way (layout, pinned memory, memory
format), and the allocations that need no kernel: empty_strided, empty_like and new_empty on any
device (c10 allocates per device; the *_like and new_* ops fill what these return)."""
from c10.scalar_type cimport dtype as DType, default_float_type
from c10.tensor_impl cimport (TensorImpl, MAX_DIMS, sizes_from_sequence, empty_contiguous, empty_with_strides)
from aten.native.meta.views cimport format_strides

import math

from c10 import layout as _layout
from c10.device import canonical
from aten.native.meta import context as _context


def check_tensor_options(layout, pin_memory, memory_format):
    if layout is not None and layout is not _layout.strided:
        raise RuntimeError(f"Ember supports only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError("pin_memory=True needs CUDA, which this CPU kernel cannot use")
    if memory_format is not None and memory_format is not _layout.contiguous_format \
            and memory_format is not _layout.preserve_format:
        raise RuntimeError(f"empty: unsupported memory format {memory_format!r} (only contiguous_format)")


def empty_strided_on(device, size, stride, dtype=None, layout=None, pin_memory=None):
    """empty_strided's checks and storage, on device (None: the CPU); the CUDA kernel shares it."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int n = sizes_from_sequence(size, sizes, "size"), m
    cdef int st = default_float_type() if dtype is None else (<DType?>dtype).scalar_type
    m = sizes_from_sequence(stride, strides, "stride")
    if n != m:
        raise RuntimeError(f"dimensionality of sizes ({n}) must match dimensionality of strides ({m})")
    check_tensor_options(layout, pin_memory, None)
    out = empty_with_strides(n, sizes, strides, st, device)
    return fill_uninitialized(out) if _context.filling else out


cdef object _device_for(TensorImpl self, object device, object layout, object pin_memory):
    """Where a tensor made from self goes (None: the CPU), after the checks of that backend's empty."""
    cdef bint on_cpu
    if device is None:
        on_cpu = self.device_type == 0
        device = None if on_cpu else self.device_obj
    else:
        device = canonical(device)
        on_cpu = device.type == "cpu"
        device = None if on_cpu else device
    # pin_memory is the CPU allocator's option; CUDA's empty ignores it, as before.
    check_tensor_options(layout, pin_memory if on_cpu else None, None)
    return device


def empty_like_on(TensorImpl self not None, dtype=None, layout=None, device=None, pin_memory=None,
                  memory_format=None):
    """empty_like: self's shape with empty_like's strides (self's stride order under
    preserve_format, the default), uninitialised, on self's device unless another is given."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef bint strided = format_strides(self, memory_format, "empty_like", strides)   # its errors first
    where = _device_for(self, device, layout, pin_memory)
    cdef int st = self.scalar_type if dtype is None else (<DType?>dtype).scalar_type
    if not strided:
        return empty_contiguous(self.nd, self.sizes, st, where)
    return empty_with_strides(self.nd, self.sizes, strides, st, where)


def new_empty_on(TensorImpl self not None, size, dtype=None, layout=None, device=None, pin_memory=None):
    """new_empty: a contiguous tensor of `size`, self's dtype and device unless others are given."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(size, sizes, "size")
    where = _device_for(self, device, layout, pin_memory)
    return empty_contiguous(ndim, sizes, self.scalar_type if dtype is None else (<DType?>dtype).scalar_type, where)


def fill_uninitialized(TensorImpl t not None):
    """What an empty op allocated, filled as PyTorch fills it while deterministic algorithms are on
    (callers check context.filling first): NaN for floating and complex dtypes, the largest value for
    integers, True for bool. Its version stays 0."""
    dt = t.dtype
    if dt.is_complex:
        value = complex(math.nan, math.nan)
    elif dt.is_floating_point:
        value = math.nan
    elif dt.name == "bool":
        value = True
    else:
        bits = dt.itemsize * 8
        value = (1 << bits) - 1 if dt.name.startswith("uint") else (1 << (bits - 1)) - 1
    return fresh(t.fill_(value))


def fresh(TensorImpl t not None):
    """A tensor a factory made and then filled or copied into (those kernels count a version, as
    in-place ops do): version 0, as every new tensor has (PyTorch counts only writes a user sees)."""
    t.version_counter.version = 0
    return t
