"""DLPack capsules: export a tensor's memory to another library, or wrap one another library exported.

The C structs below are DLPack's ABI (dlpack.h, 0.x "legacy" and 1.x "versioned" forms), declared
here so the module needs no header. A capsule is a PyCapsule named "dltensor" (legacy) or
"dltensor_versioned" around a DLManagedTensor(Versioned); whoever consumes it renames it to
"used_dltensor"/"used_dltensor_versioned" and, from then on, owes one call of its deleter.

Export: the managed tensor holds a reference to the tensor's Storage (and pins it against resize)
until the consumer calls the deleter, or until the capsule dies unconsumed.
Import: the tensor gets a Storage that borrows the producer's memory; its owner object calls the
producer's deleter when the last tensor over that storage is gone.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from cpython.ref cimport PyObject, Py_INCREF, Py_DECREF
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_IsValid, PyCapsule_GetPointer, PyCapsule_SetName
from cpython.exc cimport PyErr_Fetch, PyErr_Restore

from c10.storage cimport Storage, cpu_storage, borrowed_storage
from c10.tensor_impl cimport TensorImpl, make_tensor, MAX_DIMS

from c10 import device as _device_mod
from c10.dtype_table import DTYPES as _DTYPE_ROWS

cdef extern from "Python.h":
    int Py_IsInitialized() nogil


# -- DLPack's ABI ---------------------------------------------------------------------------
cdef enum:
    kDLCPU = 1
    kDLCUDA = 2

cdef enum:
    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLBfloat = 4
    kDLComplex = 5
    kDLBool = 6

cdef enum:
    # The DLPack version this module's structs follow (PyTorch 2.13 reports the same).
    DLPACK_MAJOR_VERSION = 1
    DLPACK_MINOR_VERSION = 3

cdef struct DLDevice:
    int device_type                  # DLDeviceType, a C enum (int-sized)
    int32_t device_id

cdef struct DLDataType:
    uint8_t code
    uint8_t bits
    uint16_t lanes

cdef struct DLTensor:
    void* data
    DLDevice device
    int32_t ndim
    DLDataType dtype
    int64_t* shape
    int64_t* strides                 # in elements; NULL means compact row-major
    uint64_t byte_offset

cdef struct DLManagedTensor:
    DLTensor dl_tensor
    void* manager_ctx
    void (*deleter)(DLManagedTensor*) noexcept nogil

cdef struct DLPackVersion:
    uint32_t major
    uint32_t minor

cdef struct DLManagedTensorVersioned:
    DLPackVersion version
    void* manager_ctx
    void (*deleter)(DLManagedTensorVersioned*) noexcept nogil
    uint64_t flags
    DLTensor dl_tensor


cdef const char* NAME_LEGACY = "dltensor"
cdef const char* NAME_VERSIONED = "dltensor_versioned"
cdef const char* NAME_USED_LEGACY = "used_dltensor"
cdef const char* NAME_USED_VERSIONED = "used_dltensor_versioned"

_INVALID_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only "
                    "once, so you might have already constructed a tensor from it once.")


# -- export ---------------------------------------------------------------------------------
cdef void _drop_storage(void* ctx) noexcept with gil:
    """Give back the export's reference to the storage (and its resize pin)."""
    cdef Storage storage = <Storage>ctx
    storage.view_count -= 1
    Py_DECREF(storage)           # the reference taken at export; `storage` holds its own until return


cdef void _release_legacy(DLManagedTensor* m) noexcept nogil:
    """The deleter of exported legacy tensors: any thread, with or without the GIL."""
    if m == NULL:
        return
    if m.manager_ctx != NULL and Py_IsInitialized():
        _drop_storage(m.manager_ctx)
    m.manager_ctx = NULL
    free(m)


cdef void _release_versioned(DLManagedTensorVersioned* m) noexcept nogil:
    if m == NULL:
        return
    if m.manager_ctx != NULL and Py_IsInitialized():
        _drop_storage(m.manager_ctx)
    m.manager_ctx = NULL
    free(m)


cdef void _capsule_destructor_legacy(object capsule) noexcept:
    # A consumed capsule was renamed, and its consumer owns the deleter call: do nothing then.
    cdef PyObject* etype
    cdef PyObject* evalue
    cdef PyObject* etb
    cdef DLManagedTensor* m
    if PyCapsule_IsValid(capsule, NAME_LEGACY):
        PyErr_Fetch(&etype, &evalue, &etb)
        m = <DLManagedTensor*>PyCapsule_GetPointer(capsule, NAME_LEGACY)
        if m != NULL and m.deleter != NULL:
            m.deleter(m)
        PyErr_Restore(etype, evalue, etb)


cdef void _capsule_destructor_versioned(object capsule) noexcept:
    cdef PyObject* etype
    cdef PyObject* evalue
    cdef PyObject* etb
    cdef DLManagedTensorVersioned* m
    if PyCapsule_IsValid(capsule, NAME_VERSIONED):
        PyErr_Fetch(&etype, &evalue, &etb)
        m = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, NAME_VERSIONED)
        if m != NULL and m.deleter != NULL:
            m.deleter(m)
        PyErr_Restore(etype, evalue, etb)


# dlpack.h's codes for the floating formats that are not IEEE binary16/32/64, by the table's format
_FORMAT_CODES = {"e8m7": kDLBfloat, "e4m3fn": 10, "e4m3fnuz": 11, "e5m2": 12, "e5m2fnuz": 13}
cdef dict _DL_TYPES = {}        # scalar type -> (DLPack type code, bits), from the dtype table
cdef dict _SCALAR_TYPES = {}    # (code, bits) -> scalar type
for _row in _DTYPE_ROWS:
    _code = {"b": kDLBool, "u": kDLUInt, "i": kDLInt, "c": kDLComplex}.get(_row["kind"],
                                                                        _FORMAT_CODES.get(_row["format"], kDLFloat))
    _DL_TYPES[_row["scalar_type"]] = (_code, 8 * _row["itemsize"])
    _SCALAR_TYPES[(_code, 8 * _row["itemsize"])] = _row["scalar_type"]


cdef int _fill_dtype(DLDataType* out, int scalar_type) except -1:
    out.lanes = 1
    try:
        out.code, out.bits = _DL_TYPES[scalar_type]
    except KeyError:
        raise BufferError(f"DLPack has no type for scalar type {scalar_type}") from None
    return 0


cdef int _fill_tensor(DLTensor* out, TensorImpl t, int64_t* shape, int64_t* strides) except -1:
    cdef int i
    _fill_dtype(&out.dtype, t.scalar_type)
    out.data = <void*>t.data()
    out.byte_offset = 0
    if t.device_type == 0:
        out.device.device_type = kDLCPU
        out.device.device_id = 0
    elif t.device_type == 1:
        out.device.device_type = kDLCUDA
        out.device.device_id = t.device_obj.index if t.device_obj.index is not None else 0
    else:
        raise BufferError(f"Cannot export a tensor on {t.device_obj} to DLPack")
    out.ndim = t.nd
    for i in range(t.nd):
        shape[i] = t.sizes[i]
        strides[i] = t.strides[i]
    out.shape = shape if t.nd > 0 else NULL
    out.strides = strides if t.nd > 0 else NULL
    return 0


def to_capsule(TensorImpl t not None, bint versioned):
    """A "dltensor" (or "dltensor_versioned") capsule over t's memory, exactly t's layout."""
    cdef size_t head = sizeof(DLManagedTensorVersioned) if versioned else sizeof(DLManagedTensor)
    cdef char* block = <char*>malloc(head + 2 * <size_t>(t.nd if t.nd > 0 else 1) * sizeof(int64_t))
    cdef int64_t* shape
    cdef int64_t* strides
    cdef DLManagedTensor* legacy = NULL
    cdef DLManagedTensorVersioned* mv = NULL
    cdef Storage storage = t.storage
    if block == NULL:
        raise MemoryError("to_dlpack: can't allocate the DLPack tensor header")
    shape = <int64_t*>(block + head)
    strides = shape + (t.nd if t.nd > 0 else 1)
    try:
        if versioned:
            mv = <DLManagedTensorVersioned*>block
            mv.version.major = DLPACK_MAJOR_VERSION
            mv.version.minor = DLPACK_MINOR_VERSION
            mv.flags = 0
            mv.manager_ctx = NULL
            mv.deleter = _release_versioned
            _fill_tensor(&mv.dl_tensor, t, shape, strides)
        else:
            legacy = <DLManagedTensor*>block
            legacy.manager_ctx = NULL
            legacy.deleter = _release_legacy
            _fill_tensor(&legacy.dl_tensor, t, shape, strides)
    except BaseException:
        free(block)
        raise
    # From here the block owns a reference to the storage; its deleter gives it back.
    Py_INCREF(storage)
    storage.view_count += 1
    if versioned:
        mv.manager_ctx = <void*>storage
        try:
            return PyCapsule_New(<void*>mv, NAME_VERSIONED, _capsule_destructor_versioned)
        except BaseException:
            _release_versioned(mv)
            raise
    legacy.manager_ctx = <void*>storage
    try:
        return PyCapsule_New(<void*>legacy, NAME_LEGACY, _capsule_destructor_legacy)
    except BaseException:
        _release_legacy(legacy)
        raise


# -- import ---------------------------------------------------------------------------------
cdef class _DLPackOwner:
    """Owns one consumed DLManagedTensor(Versioned): calls its producer's deleter when freed.

    A Storage borrowing the producer's memory holds this object as its owner."""
    cdef void* managed
    cdef bint versioned

    def __dealloc__(self):
        cdef DLManagedTensor* legacy
        cdef DLManagedTensorVersioned* mv
        if self.managed == NULL:
            return
        if self.versioned:
            mv = <DLManagedTensorVersioned*>self.managed
            self.managed = NULL
            if mv.deleter != NULL:
                mv.deleter(mv)
        else:
            legacy = <DLManagedTensor*>self.managed
            self.managed = NULL
            if legacy.deleter != NULL:
                legacy.deleter(legacy)

    def __repr__(self):
        return f"<DLPack tensor owner ({'versioned' if self.versioned else 'legacy'})>"


cdef int _scalar_type_of(DLDataType dt) except -2:
    """Ember's scalar type for a DLPack dtype, or PyTorch's BufferError for one it cannot hold."""
    if dt.lanes != 1:
        raise BufferError(f"Ember does not support lanes != 1 for dtype code{dt.code}")
    found = _SCALAR_TYPES.get((dt.code, dt.bits))
    if found is not None:
        return found
    if dt.code == kDLBool:
        raise BufferError(f"Unsupported kDLBool bits {dt.bits}")
    if dt.code == kDLUInt:
        raise BufferError(f"Unsupported kUInt bits {dt.bits}")
    if dt.code == kDLInt:
        raise BufferError(f"Unsupported kInt bits {dt.bits}")
    if dt.code == kDLFloat:
        raise BufferError(f"Unsupported kFloat bits {dt.bits}")
    if dt.code == kDLBfloat:
        raise BufferError(f"Unsupported kBFloat bits {dt.bits}")
    if dt.code == kDLComplex:
        raise BufferError(f"Unsupported kComplex bits {dt.bits}")
    raise BufferError(f"Unsupported code {dt.code}")


def from_capsule(object capsule):
    """A tensor sharing the memory of an unconsumed DLPack capsule, which it consumes (renames)."""
    cdef DLTensor* t
    cdef DLManagedTensor* legacy = NULL
    cdef DLManagedTensorVersioned* mv = NULL
    cdef bint versioned
    cdef int scalar_type, i, nd
    cdef Py_ssize_t c_sizes[MAX_DIMS]
    cdef Py_ssize_t c_strides[MAX_DIMS]
    cdef Py_ssize_t expected
    cdef _DLPackOwner owner
    cdef Storage storage
    if PyCapsule_IsValid(capsule, NAME_VERSIONED):
        versioned = True
        mv = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, NAME_VERSIONED)
        if mv.version.major > DLPACK_MAJOR_VERSION:
            raise RuntimeError(f"unsupported DLPack capsule major version: {mv.version.major}. "
                               f"Maximum supported version: {DLPACK_MAJOR_VERSION}")
        t = &mv.dl_tensor
    elif PyCapsule_IsValid(capsule, NAME_LEGACY):
        versioned = False
        legacy = <DLManagedTensor*>PyCapsule_GetPointer(capsule, NAME_LEGACY)
        t = &legacy.dl_tensor
    else:
        raise RuntimeError(_INVALID_CAPSULE)

    # Validate everything before taking ownership: a refused capsule stays unconsumed.
    scalar_type = _scalar_type_of(t.dtype)
    if t.device.device_type == kDLCPU:
        dev = _device_mod.CPU
    elif t.device.device_type == kDLCUDA:
        if t.device.device_id < 0:
            raise BufferError(f"Invalid CUDA device index in DLPack tensor: {t.device.device_id}")
        dev = _device_mod.device("cuda", t.device.device_id)
    else:
        raise BufferError(f"Unsupported device_type: {t.device.device_type}")
    nd = t.ndim
    if nd < 0:
        raise BufferError(f"DLPack tensor has a negative number of dimensions: {nd}")
    if nd > MAX_DIMS:
        raise RuntimeError(f"Ember tensors have at most {MAX_DIMS} dimensions, got {nd}")
    if nd > 0 and t.shape == NULL:
        raise BufferError("DLPack tensor has dimensions but no shape")
    for i in range(nd):
        if t.shape[i] < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {t.shape[i]}: "
                               f"{[t.shape[j] for j in range(nd)]}")
        c_sizes[i] = t.shape[i]
    if t.strides == NULL:
        expected = 1
        for i in range(nd - 1, -1, -1):
            c_strides[i] = expected
            expected *= c_sizes[i] if c_sizes[i] > 1 else 1
    else:
        for i in range(nd):
            if t.strides[i] < 0:
                raise RuntimeError(f"DLPack tensor has negative strides {[t.strides[j] for j in range(nd)]} "
                                   f"(sizes {[t.shape[j] for j in range(nd)]}); Ember tensors cannot have "
                                   "negative strides: copy it in its library first")
            c_strides[i] = t.strides[i]
    # The bytes the tensor can reach (Python ints: a bogus shape raises instead of overflowing).
    itemsize = t.dtype.bits // 8
    numel = 1
    extent = 1
    for i in range(nd):
        numel *= c_sizes[i]
        extent += (c_sizes[i] - 1) * c_strides[i]
    nbytes = extent * itemsize if numel > 0 else 0
    if nbytes > <Py_ssize_t>0x7FFFFFFFFFFFFFFF // 2:
        raise RuntimeError(f"DLPack tensor of sizes {[c_sizes[i] for i in range(nd)]} and strides "
                           f"{[c_strides[i] for i in range(nd)]} spans more memory than can be addressed")
    if t.data == NULL and numel > 0:
        raise BufferError(f"DLPack tensor of {numel} elements has no data pointer")
    address = <Py_ssize_t>t.data + <Py_ssize_t>t.byte_offset

    # Take ownership: from now on the owner calls the producer's deleter exactly once.
    owner = _DLPackOwner.__new__(_DLPackOwner)
    owner.versioned = versioned
    owner.managed = <void*>mv if versioned else <void*>legacy
    PyCapsule_SetName(capsule, NAME_USED_VERSIONED if versioned else NAME_USED_LEGACY)
    if address == 0 and t.device.device_type == kDLCPU:
        storage = cpu_storage(0)         # an empty tensor with no memory: nothing to share
    else:
        storage = borrowed_storage(address, nbytes, owner, dev)
    return make_tensor(storage, 0, nd, c_sizes, c_strides, scalar_type)
