"""DLPack: Tensor.__dlpack__/__dlpack_device__, torch.utils.dlpack.to_dlpack and torch.from_dlpack.

Memory is shared both ways (NumPy as the other library), capsules are consumed once, the exported
buffer lives until its consumer lets go (and the producer's deleter runs exactly once on import),
and the errors are PyTorch 2.13's (types and messages recorded from it). Capsules that NumPy
cannot make (other dtypes, devices, versions) are built by hand with ctypes."""
from __future__ import annotations

import ctypes
import gc
import math
import re
import warnings
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from torch.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.float32, torch.float64]
INVALID = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so "
           "you might have already constructed a tensor from it once.")


def address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def np_dtype(dtype: torch.dtype) -> np.dtype:
    return torch.empty(0, dtype=dtype).numpy().dtype


def values(shape: tuple[int, ...], dtype: torch.dtype) -> np.ndarray:
    n = math.prod(shape)
    raw = np.arange(n) % 2 == 1 if dtype == torch.bool else np.arange(n) % 100
    return raw.astype(np_dtype(dtype)).reshape(shape)


def one(dtype: torch.dtype) -> object:
    return True if dtype == torch.bool else 7


# -- DLPack structs, for capsules NumPy would not make ------------------------------------------
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class HandMade:
    """A capsule over `buffer` with the given DLPack fields; counts its deleter's calls."""

    def __init__(self, buffer: np.ndarray, shape: list[int], strides: list[int] | None = None, *, code: int = 2,
                 bits: int = 64, lanes: int = 1, device: tuple[int, int] = (1, 0), byte_offset: int = 0,
                 versioned: bool = False, version: tuple[int, int] = (1, 0), flags: int = 0) -> None:
        self.buffer = buffer
        self.deleted = 0
        n = len(shape)
        self.shape = (ctypes.c_int64 * max(n, 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(n, 1))(*strides)
        self.managed = (DLManagedTensorVersioned if versioned else DLManagedTensor)()
        t = self.managed.dl_tensor
        t.data = address(buffer)
        t.device = DLDevice(*device)
        t.ndim = n
        t.dtype = DLDataType(code, bits, lanes)
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = byte_offset
        self.callback = DELETER(self._delete)
        self.managed.deleter = ctypes.cast(self.callback, ctypes.c_void_p).value
        if versioned:
            self.managed.version = DLPackVersion(*version)
            self.managed.flags = flags
        name = b"dltensor_versioned" if versioned else b"dltensor"
        self.capsule = _capsule_new(ctypes.addressof(self.managed), name, None)

    def _delete(self, pointer: int) -> None:
        assert pointer == ctypes.addressof(self.managed)
        self.deleted += 1


def read_capsule(capsule: object, versioned: bool) -> dict[str, object]:
    """The fields of an unconsumed capsule."""
    name = b"dltensor_versioned" if versioned else b"dltensor"
    pointer = _capsule_pointer(capsule, name)
    cls = DLManagedTensorVersioned if versioned else DLManagedTensor
    managed = cls.from_address(pointer)
    t = managed.dl_tensor
    fields: dict[str, object] = {
        "data": t.data, "device": (t.device.device_type, t.device.device_id), "ndim": t.ndim,
        "dtype": (t.dtype.code, t.dtype.bits, t.dtype.lanes),
        "shape": [t.shape[i] for i in range(t.ndim)],
        "strides": [t.strides[i] for i in range(t.ndim)], "byte_offset": t.byte_offset,
        "has_deleter": bool(managed.deleter)}
    if versioned:
        fields["version"] = (managed.version.major, managed.version.minor)
        fields["flags"] = managed.flags
    return fields


def test_bfloat16_goes_through_dlpack_as_kdlbfloat_sharing_its_bits() -> None:
    bits = torch.from_numpy(np.array([0x3F80, 0x7FC1, 0xFF80, 0x0001], dtype=np.uint16).view(np.int16))
    t = bits.view(torch.bfloat16)
    back = from_dlpack(to_dlpack(t))
    assert back.dtype is torch.bfloat16 and back.data_ptr() == t.data_ptr()
    assert back.view(torch.int16).tolist() == bits.tolist()


# -- Ember -> NumPy ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_numpy_from_dlpack_shares_memory_for_every_dtype(dtype: torch.dtype) -> None:
    expected = values((3, 4), dtype)
    t = torch.from_numpy(expected.copy())
    a = np.from_dlpack(t)
    assert a.dtype == np_dtype(dtype)
    assert address(a) == t.data_ptr()
    np.testing.assert_array_equal(a, expected)
    a[1, 2] = one(dtype)                          # NumPy -> tensor
    assert t[1, 2].item() == one(dtype)
    t[0, 0] = one(dtype)                          # tensor -> NumPy
    assert a[0, 0] == one(dtype)


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("dtype,code,bits", [(torch.bool, 6, 8), (torch.uint8, 1, 8), (torch.int8, 0, 8),
                                             (torch.int16, 0, 16), (torch.int32, 0, 32), (torch.int64, 0, 64),
                                             (torch.float16, 2, 16), (torch.float32, 2, 32),
                                             (torch.float64, 2, 64), (torch.bfloat16, 4, 16)])
def test_exported_capsule_fields_are_pytorchs(dtype: torch.dtype, code: int, bits: int, versioned: bool) -> None:
    base = torch.zeros(5, 7, dtype=dtype)
    t = base[1:, 2::2]
    capsule = t.__dlpack__(max_version=(1, 0)) if versioned else t.__dlpack__()
    assert re.search(r'capsule object "dltensor(_versioned)?"', repr(capsule))
    fields = read_capsule(capsule, versioned)
    # PyTorch: data points at element 0 (storage offset applied), byte_offset 0, strides in elements.
    assert fields["data"] == t.data_ptr() == base.data_ptr() + t.storage_offset() * t.element_size()
    assert fields["byte_offset"] == 0
    assert fields["dtype"] == (code, bits, 1)
    assert fields["device"] == (1, 0)
    assert fields["shape"] == [4, 3] and fields["strides"] == [7, 2]
    assert fields["has_deleter"]
    if versioned:
        assert fields["version"] == (1, 3) and fields["flags"] == 0


@pytest.mark.parametrize("make", [
    lambda t: t[1:, 1:],
    lambda t: t[:, ::2],
    lambda t: t.t(),
    lambda t: t[2],
    lambda t: t[:, 3],
    lambda t: t.reshape(2, 2, 6).permute(2, 0, 1),
    lambda t: t[1:3].unsqueeze(1),
], ids=["offset", "step", "transpose", "row", "column", "permute", "unsqueeze"])
def test_numpy_from_dlpack_of_views_keeps_layout_and_shares(make: object) -> None:
    t = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    view = make(t)  # type: ignore[operator]
    a = np.from_dlpack(view)
    assert address(a) == view.data_ptr()
    np.testing.assert_array_equal(a, view.numpy())
    for i, n in enumerate(a.shape):
        if n > 1:
            assert a.strides[i] == view.stride(i) * 8
    a[...] = -1
    assert (view == -1).all().item()
    assert int((t == -1).sum().item()) == view.numel()


def test_numpy_from_dlpack_of_expanded_tensor_has_zero_strides() -> None:
    t = torch.arange(3.).expand(2, 3)
    a = np.from_dlpack(t)
    assert a.strides == (0, 4)
    np.testing.assert_array_equal(a, [[0, 1, 2], [0, 1, 2]])


def test_numpy_from_dlpack_of_zero_dim_and_empty_tensors() -> None:
    z = torch.tensor(3.5)
    a = np.from_dlpack(z)
    assert a.shape == () and a == 3.5
    a[()] = 1.25
    assert z.item() == 1.25
    for shape in [(0,), (0, 3), (2, 0, 4)]:
        e = np.from_dlpack(torch.empty(shape))
        assert e.shape == shape and e.size == 0


def test_dlpack_device_is_cpu_zero() -> None:
    device = torch.ones(2).__dlpack_device__()
    assert device == (DLDeviceType.kDLCPU, 0)
    assert type(device[0]) is DLDeviceType and issubclass(DLDeviceType, __import__("enum").IntEnum)
    assert DLDeviceType.kDLCUDA == 2 and DLDeviceType.kDLROCM == 10


# -- NumPy -> Ember ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_from_dlpack_of_ndarray_shares_memory(dtype: torch.dtype) -> None:
    a = values((2, 5), dtype)
    t = torch.from_dlpack(a)
    assert t.dtype == dtype and tuple(t.shape) == (2, 5)
    assert t.data_ptr() == address(a)
    np.testing.assert_array_equal(t.numpy(), a)
    t[1, 1] = one(dtype)
    assert a[1, 1] == one(dtype)
    a[0, 3] = one(dtype)
    assert t[0, 3].item() == one(dtype)


@pytest.mark.parametrize("make", [
    lambda a: a[1:, 1:],
    lambda a: a[:, ::2],
    lambda a: a.T,
    lambda a: a[::2, 1::3],
    lambda a: a[2],
    lambda a: a[np.newaxis, :, 1],
    lambda a: np.broadcast_to(a[0], (3, 6)),
], ids=["offset", "step", "transpose", "both", "row", "newaxis", "broadcast"])
def test_from_dlpack_of_ndarray_views_shares_memory(make: object) -> None:
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    view = make(base)  # type: ignore[operator]
    t = torch.from_dlpack(view)
    assert tuple(t.shape) == view.shape
    np.testing.assert_array_equal(t.numpy(), view)
    if view.size:
        assert t.data_ptr() == address(view)
    for i, n in enumerate(view.shape):
        if n > 1:
            assert t.stride(i) * 4 == view.strides[i]
    if view.flags.writeable:
        t.fill_(-5)
        assert (view == -5).all()


def test_from_dlpack_of_read_only_ndarray_shares_memory_without_warning() -> None:
    # PyTorch 2.13 ignores DLPack's read-only flag: no copy, no warning.
    a = np.arange(4.0)
    a.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = torch.from_dlpack(a)
    assert t.data_ptr() == address(a)
    np.testing.assert_array_equal(t.numpy(), a)


def test_from_dlpack_of_zero_dim_and_empty_ndarrays() -> None:
    a = np.array(2.5)
    t = torch.from_dlpack(a)
    assert t.dim() == 0 and t.item() == 2.5
    t.fill_(4.0)
    assert a == 4.0
    for shape in [(0,), (3, 0), (0, 2, 2)]:
        e = torch.from_dlpack(np.zeros(shape, np.float32))
        assert tuple(e.shape) == shape and e.numel() == 0 and e.dtype == torch.float32


def test_from_dlpack_refuses_negative_strides() -> None:
    # PyTorch 2.13 aborts the process here; Ember has no negative strides and says so.
    a = np.arange(4.0)[::-1]
    with pytest.raises(RuntimeError, match="negative strides"):
        torch.from_dlpack(a)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_from_dlpack_takes_complex_arrays_sharing_memory(dtype: type) -> None:
    a = np.array([1 + 2j, -3.5j], dtype)
    t = torch.from_dlpack(a)
    assert t.dtype is getattr(torch, np.dtype(dtype).name) and t.data_ptr() == address(a)
    assert t.tolist() == [1 + 2j, -3.5j]


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_from_dlpack_takes_the_unsigned_types_sharing_memory(dtype: type) -> None:
    a = np.array([1, 7, 300], dtype)
    t = torch.from_dlpack(a)
    assert t.dtype is getattr(torch, np.dtype(dtype).name) and t.data_ptr() == address(a)
    assert t.tolist() == [1, 7, 300]


# -- round trips and capsules -----------------------------------------------------------------
@pytest.mark.parametrize("versioned", [False, True])
def test_round_trip_through_a_capsule_shares_memory(versioned: bool) -> None:
    t = torch.arange(10, dtype=torch.int64)[2:8:2]
    capsule = t.__dlpack__(max_version=(1, 0) if versioned else None)
    u = torch.from_dlpack(capsule)
    name = "used_dltensor_versioned" if versioned else "used_dltensor"
    assert f'"{name}"' in repr(capsule)
    assert u.data_ptr() == t.data_ptr() and u.stride() == t.stride() and tuple(u.shape) == (3,)
    u.fill_(-1)
    assert t.tolist() == [-1, -1, -1]


def test_from_dlpack_of_a_tensor_shares_memory_but_is_a_new_tensor() -> None:
    t = torch.arange(4.)
    u = torch.from_dlpack(t)
    assert u is not t and u.data_ptr() == t.data_ptr()


def test_to_dlpack_makes_a_legacy_capsule() -> None:
    t = torch.arange(6.)
    capsule = to_dlpack(t)
    assert '"dltensor"' in repr(capsule)
    u = from_dlpack(capsule)
    assert u.data_ptr() == t.data_ptr()


def test_max_version_picks_the_capsule_kind() -> None:
    t = torch.ones(2)
    assert '"dltensor"' in repr(t.__dlpack__())
    assert '"dltensor"' in repr(t.__dlpack__(max_version=(0, 8)))
    assert '"dltensor_versioned"' in repr(t.__dlpack__(max_version=(1, 0)))
    assert '"dltensor_versioned"' in repr(t.__dlpack__(max_version=(2, 0)))


@pytest.mark.parametrize("versioned", [False, True])
def test_capsule_consumed_twice_raises(versioned: bool) -> None:
    capsule = torch.ones(3).__dlpack__(max_version=(1, 0) if versioned else None)
    torch.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match=re.escape(INVALID)):
        torch.from_dlpack(capsule)


@pytest.mark.parametrize("thing", [5, object(), "dltensor", None])
def test_from_dlpack_of_non_capsule_raises_invalid_capsule(thing: object) -> None:
    with pytest.raises(RuntimeError, match=re.escape(INVALID)):
        torch.from_dlpack(thing)


def test_capsule_with_another_name_is_invalid() -> None:
    buffer = np.zeros(4)
    capsule = _capsule_new(address(buffer), b"something_else", None)
    with pytest.raises(RuntimeError, match=re.escape(INVALID)):
        torch.from_dlpack(capsule)


def test_from_dlpack_of_a_capsule_refuses_device_and_copy() -> None:
    for kwargs in ({"device": "cpu"}, {"copy": True}):
        with pytest.raises(AssertionError, match="device and copy kwargs not supported"):
            torch.from_dlpack(torch.ones(2).__dlpack__(), **kwargs)


# -- lifetime ---------------------------------------------------------------------------------
def _numpy_backed(n: int = 8) -> tuple[torch.Tensor, weakref.ref]:
    """A tensor whose memory is a NumPy array that no one else holds, and a weak reference to it."""
    a = np.arange(float(n))
    ref = weakref.ref(a)
    return torch.from_numpy(a), ref


@pytest.mark.parametrize("versioned", [False, True])
def test_exported_memory_outlives_the_tensor_until_the_consumer_frees_it(versioned: bool) -> None:
    t, ref = _numpy_backed()
    capsule = t.__dlpack__(max_version=(1, 0) if versioned else None)
    del t
    gc.collect()
    assert ref() is not None                     # the capsule holds the memory
    a = np.from_dlpack(_Holder(capsule))
    del capsule
    gc.collect()
    assert ref() is not None                     # now the NumPy array does
    np.testing.assert_array_equal(a, np.arange(8.0))
    del a
    gc.collect()
    assert ref() is None                         # the consumer called the deleter


@pytest.mark.parametrize("versioned", [False, True])
def test_unconsumed_capsule_frees_on_its_own(versioned: bool) -> None:
    t, ref = _numpy_backed()
    capsule = t.__dlpack__(max_version=(1, 0) if versioned else None)
    del t
    gc.collect()
    assert ref() is not None
    del capsule
    gc.collect()
    assert ref() is None


def test_numpy_from_dlpack_keeps_the_memory_after_the_tensor_dies() -> None:
    t, ref = _numpy_backed()
    a = np.from_dlpack(t[2:])
    del t
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(a, np.arange(2.0, 8.0))
    del a
    gc.collect()
    assert ref() is None


def test_imported_memory_lives_while_any_tensor_over_it_does() -> None:
    a = np.arange(6.0)
    ref = weakref.ref(a)
    t = torch.from_dlpack(a)
    del a
    gc.collect()
    assert ref() is not None
    view = t[3:]
    del t
    gc.collect()
    assert ref() is not None
    assert view.tolist() == [3.0, 4.0, 5.0]
    del view
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("versioned", [False, True])
def test_imported_capsule_deleter_runs_once_when_the_tensor_dies(versioned: bool) -> None:
    buffer = np.arange(12.0)
    made = HandMade(buffer, [3, 4], [4, 1], versioned=versioned)
    t = torch.from_dlpack(made.capsule)
    view = t.t()
    del t
    gc.collect()
    assert made.deleted == 0
    assert view[1, 2].item() == 9.0
    del view
    gc.collect()
    assert made.deleted == 1
    del made.capsule                             # consumed: its (absent) destructor must not call it again
    gc.collect()
    assert made.deleted == 1


def test_exported_storage_cannot_be_resized_while_a_consumer_holds_it() -> None:
    # Ember pins the storage (PyTorch would reallocate under the consumer's feet).
    t = torch.zeros(4)
    capsule = t.__dlpack__()
    with pytest.raises(RuntimeError, match="cannot resize"):
        t.resize_(1000)
    del capsule
    gc.collect()
    t.resize_(1000)
    assert t.numel() == 1000


class _Holder:
    """Hands NumPy an existing capsule (NumPy only consumes objects with __dlpack__)."""

    def __init__(self, capsule: object) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: object) -> object:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


# -- hand-made capsules: what is accepted, what is refused ------------------------------------
def test_byte_offset_and_missing_strides_are_honoured() -> None:
    buffer = np.arange(16.0)
    made = HandMade(buffer, [2, 3], None, byte_offset=16)
    t = torch.from_dlpack(made.capsule)
    assert t.data_ptr() == address(buffer) + 16
    assert t.stride() == (3, 1)
    assert t.tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]


@pytest.mark.parametrize("flags", [0, 1, 2])
def test_versioned_flags_are_accepted_like_pytorch(flags: int) -> None:
    # PyTorch 2.13 ignores READ_ONLY (1) and IS_COPIED (2): it shares the memory.
    buffer = np.arange(4.0)
    made = HandMade(buffer, [4], [1], versioned=True, flags=flags)
    t = torch.from_dlpack(made.capsule)
    assert t.data_ptr() == address(buffer)


@pytest.mark.parametrize("version", [(0, 5), (1, 0), (1, 7)])
def test_versioned_capsules_of_major_one_or_less_are_accepted(version: tuple[int, int]) -> None:
    made = HandMade(np.arange(3.0), [3], [1], versioned=True, version=version)
    assert torch.from_dlpack(made.capsule).tolist() == [0.0, 1.0, 2.0]


def test_newer_major_version_is_refused_and_left_unconsumed() -> None:
    made = HandMade(np.arange(3.0), [3], [1], versioned=True, version=(2, 0))
    with pytest.raises(RuntimeError, match="unsupported DLPack capsule major version: 2. Maximum supported version: 1"):
        torch.from_dlpack(made.capsule)
    assert '"dltensor_versioned"' in repr(made.capsule) and made.deleted == 0


def test_cpu_device_index_is_ignored() -> None:
    made = HandMade(np.arange(3.0), [3], [1], device=(1, 3))
    assert torch.from_dlpack(made.capsule).device == torch.device("cpu")


@pytest.mark.parametrize("fields,message", [
    ({"code": 2, "bits": 128}, "Unsupported kFloat bits 128"),
    ({"code": 2, "bits": 8}, "Unsupported kFloat bits 8"),
    ({"code": 0, "bits": 128}, "Unsupported kInt bits 128"),
    ({"code": 1, "bits": 12}, "Unsupported kUInt bits 12"),
    ({"code": 1, "bits": 24}, "Unsupported kUInt bits 24"),
    ({"code": 6, "bits": 16}, "Unsupported kDLBool bits 16"),
    ({"code": 6, "bits": 1}, "Unsupported kDLBool bits 1"),
    ({"code": 2, "bits": 64, "lanes": 2}, "lanes != 1 for dtype code2"),
    ({"code": 4, "bits": 32}, "Unsupported kBFloat bits 32"),
    ({"code": 5, "bits": 32}, "Unsupported kComplex bits 32"),
    ({"code": 3, "bits": 8}, "Unsupported code 3"),
    ({"code": 99, "bits": 8}, "Unsupported code 99"),
    ({"device": (3, 0)}, "Unsupported device_type: 3"),
    ({"device": (99, 0)}, "Unsupported device_type: 99"),
], ids=lambda v: str(v) if isinstance(v, dict) else "")
def test_unsupported_capsules_raise_buffer_error_and_stay_unconsumed(fields: dict, message: str) -> None:
    made = HandMade(np.zeros(8), [4], [1], **fields)
    with pytest.raises(BufferError, match=re.escape(message)):
        torch.from_dlpack(made.capsule)
    assert '"dltensor"' in repr(made.capsule) and '"used' not in repr(made.capsule)
    assert made.deleted == 0


def test_negative_stride_capsule_raises_and_stays_unconsumed() -> None:
    buffer = np.arange(4.0)
    made = HandMade(buffer, [2], [-1])
    with pytest.raises(RuntimeError, match="negative strides"):
        torch.from_dlpack(made.capsule)
    assert made.deleted == 0


def test_null_data_pointer_is_refused_unless_empty() -> None:
    made = HandMade(np.zeros(4), [4], [1])
    made.managed.dl_tensor.data = None
    with pytest.raises(BufferError, match="no data pointer"):
        torch.from_dlpack(made.capsule)
    assert made.deleted == 0
    empty = HandMade(np.zeros(4), [0, 3], [3, 1])
    empty.managed.dl_tensor.data = None
    t = torch.from_dlpack(empty.capsule)
    assert tuple(t.shape) == (0, 3)
    del t
    gc.collect()
    assert empty.deleted == 1


def test_too_many_dimensions_raise() -> None:
    made = HandMade(np.zeros(1), [1] * 17, [1] * 17)
    with pytest.raises(RuntimeError, match="at most 16 dimensions"):
        torch.from_dlpack(made.capsule)


def test_cuda_capsule_becomes_a_cuda_tensor_without_touching_the_gpu() -> None:
    # The address is never dereferenced on the host: a CUDA tensor only records it.
    made = HandMade(np.zeros(4), [4], [1], device=(2, 0))
    t = torch.from_dlpack(made.capsule)
    assert t.device == torch.device("cuda", 0) and t.is_cuda
    assert t.data_ptr() == address(made.buffer)
    assert t.__dlpack_device__() == (DLDeviceType.kDLCUDA, 0)
    del t
    gc.collect()
    assert made.deleted == 1


# -- __dlpack__ arguments and errors ----------------------------------------------------------
def test_tensor_requiring_grad_refuses_export() -> None:
    t = torch.ones(2, requires_grad=True)
    with pytest.raises(BufferError, match=re.escape("Can't export tensors that require gradient, use tensor.detach()")):
        t.__dlpack__()
    with pytest.raises(BufferError, match="require gradient"):
        np.from_dlpack(t)
    with pytest.raises(BufferError, match="require gradient"):
        torch.from_dlpack(t)
    assert '"dltensor"' in repr(to_dlpack(t))      # as PyTorch: the legacy function does not check


def test_stream_arguments_on_cpu() -> None:
    t = torch.ones(2)
    assert '"dltensor"' in repr(t.__dlpack__(stream=None))
    assert '"dltensor"' in repr(t.__dlpack__(stream=-1))
    with pytest.raises(AssertionError, match="stream should be None on cpu."):
        t.__dlpack__(stream=0)
    for bad in (1.0, True, "1"):
        with pytest.raises(TypeError, match=re.escape("stream must be ``int`` or ``none``")):
            t.__dlpack__(stream=bad)
    with pytest.raises(TypeError, match="positional argument"):
        t.__dlpack__(None)  # type: ignore[misc]


def test_max_version_errors_are_pythons() -> None:
    t = torch.ones(2)
    with pytest.raises(TypeError, match="not subscriptable"):
        t.__dlpack__(max_version=1)  # type: ignore[arg-type]
    with pytest.raises(IndexError):
        t.__dlpack__(max_version=())  # type: ignore[arg-type]


def test_dl_device_argument() -> None:
    t = torch.arange(4.)
    for dl_device in [(1, 0), [1, 0], (DLDeviceType.kDLCPU, 0), (1, 1)]:
        assert torch.from_dlpack(t.__dlpack__(dl_device=dl_device)).data_ptr() == t.data_ptr()
    with pytest.raises(BufferError, match="Unsupported device_type: 99"):
        t.__dlpack__(dl_device=(99, 0))
    with pytest.raises(BufferError, match="Unsupported device_type: 3"):
        t.__dlpack__(dl_device=(3, 0))
    with pytest.raises(TypeError, match="argument 'dl_device' must be tuple of ints, not str"):
        t.__dlpack__(dl_device="cpu")
    with pytest.raises(RuntimeError, match="dl_device must be either None or a tuple of ints"):
        t.__dlpack__(dl_device=(1, 0, 0))
    with pytest.raises(ValueError, match=re.escape("cannot move (i.e. copy=False) tensor from cpu to cuda:0 "
                                                   "without copying.")):
        t.__dlpack__(dl_device=(2, 0), copy=False)


def test_copy_argument() -> None:
    t = torch.arange(6.).reshape(2, 3)
    copied = torch.from_dlpack(t.__dlpack__(copy=True))
    assert copied.data_ptr() != t.data_ptr() and copied.tolist() == t.tolist()
    copied.fill_(0)
    assert t.sum().item() == 15
    assert torch.from_dlpack(t.__dlpack__(copy=False)).data_ptr() == t.data_ptr()
    with pytest.raises(TypeError, match="argument 'copy' must be bool, not int"):
        t.__dlpack__(copy=1)


def test_to_dlpack_signature() -> None:
    t = torch.ones(2)
    assert '"dltensor"' in repr(to_dlpack(data=t))
    assert '"dltensor"' in repr(to_dlpack(t, dl_device=(1, 0), copy=True))
    with pytest.raises(TypeError, match=re.escape("_to_dlpack(): argument 'data' (position 1) must be Tensor, not int")):
        to_dlpack(5)
    with pytest.raises(TypeError, match="must be Tensor, not numpy.ndarray"):
        to_dlpack(np.ones(2))
    with pytest.raises(TypeError):
        to_dlpack(t, (1, 0))  # type: ignore[misc]


# -- from_dlpack's protocol handling ----------------------------------------------------------
class _Producer:
    """Records the keywords from_dlpack passes; refuses the ones an older producer lacks."""

    def __init__(self, array: np.ndarray, accepts: tuple[str, ...]) -> None:
        self.array, self.accepts, self.calls = array, accepts, []

    def __dlpack__(self, **kwargs: object) -> object:
        self.calls.append(dict(kwargs))
        if set(kwargs) - set(self.accepts):
            raise TypeError("unexpected keyword")
        return self.array.__dlpack__(**{k: v for k, v in kwargs.items() if k != "dl_device"})

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()


def test_from_dlpack_passes_max_version_and_falls_back_on_type_error() -> None:
    a = np.arange(3.0)
    new = _Producer(a, ("max_version", "copy", "dl_device", "stream"))
    assert torch.from_dlpack(new).data_ptr() == address(a)
    assert new.calls == [{"max_version": (1, 0)}]
    old = _Producer(a, ())
    assert torch.from_dlpack(old).data_ptr() == address(a)
    assert old.calls == [{"max_version": (1, 0)}, {}]


def test_from_dlpack_copies_itself_when_the_producer_cannot() -> None:
    a = np.arange(3.0)
    old = _Producer(a, ())
    t = torch.from_dlpack(old, copy=True)
    assert t.data_ptr() != address(a) and t.tolist() == [0.0, 1.0, 2.0]
    assert old.calls == [{"max_version": (1, 0), "copy": True}, {"copy": True}, {}]


def test_from_dlpack_device_argument() -> None:
    a = np.arange(3.0)
    producer = _Producer(a, ("max_version", "copy", "dl_device"))
    t = torch.from_dlpack(producer, device="cpu")
    assert t.data_ptr() == address(a)
    assert producer.calls == [{"max_version": (1, 0), "dl_device": (DLDeviceType.kDLCPU, 0)}]
    with pytest.raises(AssertionError, match="from_dlpack: unsupported device type: <class 'int'>"):
        torch.from_dlpack(a, device=5)
    with pytest.raises(ValueError, match="without copying. Set copy=None or copy=True."):
        torch.from_dlpack(a, device="cuda", copy=False)


def test_from_dlpack_copy_argument_with_numpy() -> None:
    a = np.arange(3.0)
    assert torch.from_dlpack(a, copy=True).data_ptr() != address(a)
    assert torch.from_dlpack(a, copy=False).data_ptr() == address(a)
    t = torch.arange(3.)
    assert torch.from_dlpack(t, copy=True).data_ptr() != t.data_ptr()


def test_producer_type_error_propagates_after_every_fallback() -> None:
    class Refuses:
        calls: list[dict] = []

        def __dlpack__(self, **kwargs: object) -> object:
            self.calls.append(kwargs)
            raise TypeError("nope")

        def __dlpack_device__(self) -> tuple[int, int]:
            return (1, 0)

    with pytest.raises(TypeError, match="nope"):
        torch.from_dlpack(Refuses())
    assert Refuses.calls == [{"max_version": (1, 0)}, {}, {}, {}]


def test_from_dlpack_needs_dlpack_device() -> None:
    class NoDevice:
        def __dlpack__(self, **kwargs: object) -> object:
            return np.ones(2).__dlpack__()

    with pytest.raises(AttributeError, match="__dlpack_device__"):
        torch.from_dlpack(NoDevice())


def test_torch_from_dlpack_is_torch_utils_dlpack_from_dlpack() -> None:
    assert torch.from_dlpack is from_dlpack
    assert torch.utils.dlpack.__all__ == ["DLDeviceType", "from_dlpack"]


# -- properties -------------------------------------------------------------------------------
@st.composite
def strided_views(draw: st.DrawFn) -> tuple[np.ndarray, tuple]:
    """A NumPy base array and a view of it: random dims, positive steps, offsets, a permutation."""
    dtype = draw(st.sampled_from(DTYPES))
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    slices = tuple(slice(draw(st.integers(0, max(n - 1, 0))), None, draw(st.integers(1, 3))) for n in shape)
    perm = tuple(draw(st.permutations(range(ndim))))
    return values(shape, dtype), (slices, perm)


def _apply(x: object, how: tuple) -> object:
    slices, perm = how
    x = x[slices] if slices else x  # type: ignore[index]
    return x.permute(*perm) if isinstance(x, torch.Tensor) and perm else (x.transpose(perm) if perm else x)


@settings(max_examples=150, deadline=None)
@given(strided_views())
def test_property_numpy_from_dlpack_is_the_same_view(case: tuple) -> None:
    base, how = case
    t = _apply(torch.from_numpy(base.copy()), how)
    a = np.from_dlpack(t)
    expected = _apply(base, how)
    assert a.shape == expected.shape and a.dtype == expected.dtype
    np.testing.assert_array_equal(a, expected)
    if a.size:
        assert address(a) == t.data_ptr()
        for i, n in enumerate(a.shape):
            if n > 1:
                assert a.strides[i] == t.stride(i) * t.element_size()


@settings(max_examples=150, deadline=None)
@given(strided_views(), st.booleans())
def test_property_from_dlpack_of_ndarray_is_the_same_view(case: tuple, via_capsule: bool) -> None:
    base, how = case
    view = _apply(base, how)
    t = torch.from_dlpack(view.__dlpack__() if via_capsule else view)
    assert tuple(t.shape) == view.shape and t.dtype == torch.from_numpy(view.copy()).dtype
    np.testing.assert_array_equal(t.numpy(), view)
    if view.size:
        assert t.data_ptr() == address(view)
        for i, n in enumerate(view.shape):
            if n > 1:
                assert t.stride(i) * view.itemsize == view.strides[i]
    back = torch.from_dlpack(t.__dlpack__(max_version=(1, 0)))    # and round trip
    assert back.data_ptr() == t.data_ptr() and back.stride() == t.stride()


# -- CUDA (skipped without a GPU and PyCUDA) --------------------------------------------------
@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
@pytest.mark.parametrize("versioned", [False, True])
def test_cuda_tensor_round_trip_shares_device_memory(versioned: bool) -> None:
    t = torch.arange(12., device="cuda").reshape(3, 4)[1:, ::2]
    assert t.__dlpack_device__() == (DLDeviceType.kDLCUDA, 0)
    capsule = t.__dlpack__(max_version=(1, 0) if versioned else None, stream=1)
    fields = read_capsule(capsule, versioned)
    assert fields["device"] == (2, 0) and fields["data"] == t.data_ptr() and fields["strides"] == [4, 2]
    u = torch.from_dlpack(capsule)
    assert u.is_cuda and u.data_ptr() == t.data_ptr()
    assert u.cpu().tolist() == t.cpu().tolist()
    with pytest.raises(BufferError, match="per-thread default stream is not supported."):
        t.__dlpack__(stream=2)
    with pytest.raises(AssertionError, match="unsupported stream on CUDA: 0."):
        t.__dlpack__(stream=0)
    back = torch.from_dlpack(t.__dlpack__(dl_device=(1, 0)))
    assert back.device == torch.device("cpu") and back.tolist() == t.cpu().tolist()
