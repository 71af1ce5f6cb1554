"""aten::empty on CPU: a new uninitialised contiguous tensor."""
from c10.scalar_type cimport dtype as DType, default_float_type
from c10.tensor_impl cimport MAX_DIMS, empty_contiguous, sizes_from_sequence

from c10 import layout as _layout


def check_tensor_options(layout, pin_memory, memory_format):
    if layout is not None and layout is not _layout.strided:
        raise RuntimeError(f"Ember supports only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError("pin_memory=True needs CUDA, which this CPU kernel cannot use")
    if memory_format is not None and memory_format is not _layout.contiguous_format \
            and memory_format is not _layout.preserve_format:
        raise RuntimeError(f"empty: unsupported memory format {memory_format!r} (only contiguous_format)")


def empty_cpu(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int ndim = sizes_from_sequence(size, sizes, "size")
    check_tensor_options(layout, pin_memory, memory_format)
    return empty_contiguous(ndim, sizes, default_float_type() if dtype is None else (<DType?>dtype).scalar_type, None)
