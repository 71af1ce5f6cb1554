"""torch.save / torch.load in PyTorch's zip checkpoint format, so checkpoints move both ways between
Ember and PyTorch.

A checkpoint is a zip archive (stored, not compressed) whose records sit in one folder,
`<archive>/`: `data.pkl` (the pickled object, protocol 2), `data/<key>` (the raw little-endian bytes
of each storage, one record per storage), `version` ("3"), `byteorder` ("little"),
`.format_version` ("1"), `.storage_alignment` ("64") and `.data/serialization_id`. Every record's
bytes start at a multiple of 64 from the archive's start (padding in a local-header extra field),
so `mmap=True` can map them in place (the archive itself: torch/_checkpoint_archive.py). In data.pkl a storage is the persistent id
`('storage', torch.<Type>Storage, key, location, numel)` and a tensor is
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict())`.

`torch.load` defaults to `weights_only=True`, as PyTorch 2.6+: a restricted unpickler
(torch/_weights_only_unpickler.py) that builds only tensors, containers, primitives, dtypes, devices
and torch.Size, and refuses any other global with PyTorch's message. PyTorch's legacy (pre-1.6, non-zip) format is read too.
"""
from __future__ import annotations

import contextlib
import io
import os
import pickle
import secrets
import struct
import sys
import warnings
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from typing import IO, Any, BinaryIO, Union

import numpy as np

import torch
from c10.dtype_table import DTYPES as DTYPE_ROWS
from torch._checkpoint_archive import CORRUPT_MESSAGE, STORAGE_ALIGNMENT, AlignedZipWriter, ArchiveReader, \
    check_record_size
from torch._weights_only_unpickler import WeightsOnlyUnpickler, as_str, weights_only_message
from torch.storage import TypedStorage, UntypedStorage

__all__ = ["save", "load", "StorageType", "default_restore_location", "location_tag", "add_safe_globals",
           "get_safe_globals", "clear_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint",
           "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2

FileLike = Union[str, "os.PathLike[str]", BinaryIO, IO[bytes]]

# pickle's pure-Python Pickler (its opcode methods are what _Pickler extends; typeshed describes
# only the C class).
_PyPickler: Any = getattr(pickle, "_Pickler")

_LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL_VERSION = 1001

# PyTorch's storage class names, by dtype name: FloatStorage, BFloat16Storage... Dtypes without one
# (float8) are saved as UntypedStorage records, their dtype in the rebuild (_rebuild_tensor_v3).
_STORAGE_NAMES = {str(row["name"]): f"{row['type_name']}Storage" for row in DTYPE_ROWS if row["legacy_storage"]}
_DTYPE_OF_STORAGE = {name: dtype for dtype, name in _STORAGE_NAMES.items()}


class StorageType:
    """What a `torch.<Type>Storage` global unpickles to: it names the dtype of a storage record."""

    def __init__(self, name: str) -> None:
        dtype_name = _DTYPE_OF_STORAGE.get(name)
        if dtype_name is None:
            raise RuntimeError(f"Ember cannot load a {name}: its dtype is not supported")
        self._dtype = getattr(torch, dtype_name)

    @property
    def dtype(self) -> Any:
        return self._dtype

    def __str__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


class _StorageGlobal:
    """Pickled as the global `torch.<name>` (PyTorch's storage classes, which Ember does not define)."""

    def __init__(self, name: str) -> None:
        self.name = name


_STORAGE_GLOBALS = {dtype: _StorageGlobal(name) for dtype, name in _STORAGE_NAMES.items()}


def _get_layout(name: str) -> Any:
    """Unpickle a layout (PyTorch pickles torch.strided as _get_layout('torch.strided'))."""
    if name != "torch.strided":
        raise RuntimeError(f"Ember supports only the torch.strided layout, not {name}")
    return torch.strided


# -- safe globals (weights_only) ----------------------------------------------------------------

_user_safe_globals: set[Any] = set()


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these globals (or (global, "module.name") pairs) in weights_only loads."""
    _user_safe_globals.update(safe_globals)


def get_safe_globals() -> list[Any]:
    return list(_user_safe_globals)


def clear_safe_globals() -> None:
    _user_safe_globals.clear()


class safe_globals:
    """Context manager: these globals are allowed in weights_only loads inside the block."""

    def __init__(self, safe_globals: list[Any]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: object) -> None:
        _user_safe_globals.difference_update(self.safe_globals)


def _user_allowed_globals() -> dict[str, Any]:
    allowed: dict[str, Any] = {}
    for entry in _user_safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(entry)}")
            if type(entry[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(entry[1])}")
            allowed[entry[1]] = entry[0]
        else:
            allowed[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return allowed


def _allowed_globals() -> dict[str, Any]:
    """The globals a weights_only load may name: containers, torch.Size/device/Tensor, dtypes, storage
    types and the tensor rebuild functions (PyTorch's list, less what Ember does not have)."""
    from torch import _utils
    allowed: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
        "torch.serialization._get_layout": _get_layout, "torch.Size": torch.Size, "torch.Tensor": torch.Tensor,
        "torch.device": torch.device, "_codecs.encode": _codecs_encode(), "builtins.bytearray": bytearray,
        "builtins.set": set, "builtins.complex": complex,
        "torch.storage.UntypedStorage": UntypedStorage,
        "torch._utils._rebuild_tensor": _utils._rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _utils._rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _utils._rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _utils._rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _utils._rebuild_parameter_with_state,
    }
    for row in DTYPE_ROWS:
        allowed[f"torch.{row['name']}"] = getattr(torch, str(row["name"]))
    for storage_name in _STORAGE_NAMES.values():
        allowed[f"torch.{storage_name}"] = StorageType(storage_name)
    parameter = _utils._parameter_type()
    if parameter is not None:
        allowed["torch.nn.parameter.Parameter"] = parameter
    return allowed


def _weights_only_allowed() -> dict[str, Any]:
    return {**_allowed_globals(), **_user_allowed_globals()}


def _codecs_encode() -> Any:
    import codecs
    return codecs.encode


# -- saving ---------------------------------------------------------------------------------------

def location_tag(storage: Any) -> str:
    """The location string of a storage's device: 'cpu' or 'cuda:<index>'."""
    device = storage.device
    if device.type == "cuda":
        return f"cuda:{device.index or 0}"
    return str(device.type)


class _Pickler(_PyPickler):  # type: ignore[misc]
    """pickle's Python Pickler, writing storages as persistent ids and the globals PyTorch's names
    them by (torch.float32, torch.FloatStorage, torch.device) that Ember's objects lack."""

    def __init__(self, file: IO[bytes], protocol: int, storages: dict[int, tuple[str, Any]]) -> None:
        super().__init__(file, protocol)
        self.storages = storages

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, UntypedStorage):
            obj = TypedStorage._wrap(torch.from_numpy(np.frombuffer(obj._bytes(), dtype=np.uint8))) \
                if not obj.is_cuda else obj
        if not isinstance(obj, TypedStorage):
            return None
        storage = obj._tensor._untyped_storage
        entry = self.storages.get(id(storage))
        if entry is None:
            entry = (str(len(self.storages)), obj)
            self.storages[id(storage)] = entry
        elif entry[1].dtype != obj.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        dtype_name = obj.dtype.name
        if dtype_name not in _STORAGE_GLOBALS:       # a dtype PyTorch saves as bytes (float8)
            return ("storage", UntypedStorage, entry[0], location_tag(obj), obj._size() * obj.dtype.itemsize)
        return ("storage", _STORAGE_GLOBALS[dtype_name], entry[0], location_tag(obj), obj._size())

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        if isinstance(obj, torch.dtype):
            return self._save_torch_global(obj, obj.name)
        if isinstance(obj, _StorageGlobal):
            return self._save_torch_global(obj, obj.name)
        if obj is torch.device:   # Ember's class lives in c10.device; PyTorch's pickles name torch.device
            return self._save_torch_global(obj, "device")
        if isinstance(obj, torch.device):
            return self.save_reduce(torch.device, (str(obj),), obj=obj)
        if isinstance(obj, torch.layout):
            return self.save_reduce(_get_layout, (str(obj),), obj=obj)
        super().save(obj, save_persistent_id)

    def _save_torch_global(self, obj: Any, name: str) -> None:
        self.framer.commit_frame()
        memoized = self.memo.get(id(obj))
        if memoized is not None:
            self.write(self.get(memoized[0]))
            return
        self.write(pickle.GLOBAL + b"torch\n" + name.encode("ascii") + b"\n")
        self.memoize(obj)


def _archive_name(f: Any) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def save(obj: object, f: FileLike, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Saves an object (tensors, state dicts, nested containers) to a file or file-like object in
    PyTorch's zip checkpoint format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("Ember writes only the zip checkpoint format (_use_new_zipfile_serialization=True)")
    if pickle_module is not pickle:
        raise NotImplementedError("Ember's torch.save pickles with the standard pickle module only")
    storages: dict[int, tuple[str, Any]] = {}
    data = io.BytesIO()
    _Pickler(data, pickle_protocol, storages).dump(obj)
    with _open_for_writing(f) as fileobj:
        writer = AlignedZipWriter(fileobj, _archive_name(f))
        writer.write("data.pkl", data.getbuffer())
        writer.write(".format_version", b"1")
        writer.write(".storage_alignment", str(STORAGE_ALIGNMENT).encode())
        if not _disable_byteorder_record:
            writer.write("byteorder", sys.byteorder.encode())
        for key, storage in storages.values():
            tensor = storage._tensor
            if tensor.device.type != "cpu":
                tensor = tensor.cpu()
            writer.write(f"data/{key}", memoryview(tensor._untyped_storage))
        writer.write("version", b"3\n")
        writer.write(".data/serialization_id", "".join(str(secrets.randbelow(10)) for _ in range(40)).encode())
        writer.close()


@contextlib.contextmanager
def _open_for_writing(f: FileLike) -> Iterator[IO[bytes]]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fileobj:
            yield fileobj
    else:
        if not hasattr(f, "write"):
            raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a 'write' "
                                 f"attribute, but got {type(f).__name__}")
        yield f


# -- loading --------------------------------------------------------------------------------------

def default_restore_location(storage: Any, location: str) -> Any:
    """Moves a loaded CPU storage to the device `location` names ('cpu', 'cuda', 'cuda:1')."""
    device = _location_device(storage, location)
    if device.type == "cpu":
        return storage
    return TypedStorage._wrap(storage._tensor.to(device))


def _location_device(storage: Any, location: str) -> Any:
    try:
        device = torch.device(location)
    except (RuntimeError, TypeError, ValueError):
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage "
                           f"(tagged with {location})")
    if device.type == "cuda":
        cuda = torch.cuda
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                               "is False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        count = cuda.device_count()
        if (device.index or 0) >= count:
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {device.index or 0} but "
                               f"torch.cuda.device_count() is {count}. Please use torch.load with map_location "
                               f"to map your storages to an existing device.")
    return device


def _restore_location(map_location: Any) -> Callable[[Any, str], Any]:
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda storage, location: default_restore_location(storage, map_location.get(location, location))
    if isinstance(map_location, bytes):
        map_location = map_location.decode()
    if isinstance(map_location, (str, torch.device)):
        return lambda storage, location: default_restore_location(storage, str(map_location))
    if not callable(map_location):
        raise TypeError(f"map_location should be a str, torch.device, dict or callable, "
                        f"got {type(map_location).__name__}")

    def restore(storage: Any, location: str) -> Any:
        result = map_location(UntypedStorage._wrap(storage._tensor._untyped_storage), location)
        if result is None:
            return default_restore_location(storage, location)
        if isinstance(result, UntypedStorage):
            if result._storage is storage._tensor._untyped_storage:
                return storage
            raise RuntimeError("map_location returned a new storage; Ember supports callables that return the "
                               "given storage, a TypedStorage, or None")
        if isinstance(result, TypedStorage):
            return result
        raise RuntimeError(f"map_location returned {type(result).__name__}, expected a storage or None")

    return restore


class _GeneralUnpickler(pickle.Unpickler):
    """weights_only=False: any global, with PyTorch's storage classes mapped to StorageType."""

    def __init__(self, file: IO[bytes], persistent_load: Callable[[Any], Any], **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        self._persistent_load = persistent_load

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch" and name in _DTYPE_OF_STORAGE:
            return StorageType(name)
        if module == "torch.storage" and name == "UntypedStorage":
            return UntypedStorage
        if module == "torch.serialization" and name == "_get_layout":
            return _get_layout
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        return self._persistent_load(pid)


def _storage_dtype(storage_type: Any) -> Any:
    if storage_type is UntypedStorage:
        return torch.uint8
    if isinstance(storage_type, StorageType):
        return storage_type.dtype
    raise RuntimeError(f"invalid storage type in checkpoint: {storage_type!r}")


def _load_zip(reader: ArchiveReader, map_location: Any, weights_only: bool, pickle_module: Any,
              mmap_array: Any, pickle_load_args: dict[str, Any]) -> Any:
    if not reader.has("version"):
        raise RuntimeError('Expected hasRecord("version") to be true, but got false.  (Could this error message '
                           'be improved?  If so, please report an enhancement request to PyTorch.)')
    byteorder = reader.read("byteorder").decode() if reader.has("byteorder") else "little"
    if byteorder not in ("little", "big"):
        raise ValueError("Unknown endianness type: " + byteorder)
    restore = _restore_location(map_location)
    loaded: dict[str, Any] = {}

    def load_storage(dtype: Any, numel: int, key: str, location: str) -> Any:
        itemsize = int(dtype.itemsize)
        nbytes = numel * itemsize
        name = f"data/{key}"
        info = reader.info(name)
        check_record_size(info, nbytes)   # before reading a byte: a record inflating past its storage is refused
        if mmap_array is not None and nbytes:
            start = reader.data_offset(name)
            if start + nbytes > mmap_array.size:
                raise RuntimeError(f"PytorchStreamReader: record {name} runs past the end of the file."
                                   + CORRUPT_MESSAGE)
            raw = torch.from_numpy(mmap_array[start:start + nbytes].view(f"i{itemsize}"))    # the bits
            flat = raw.view(dtype) if raw.dtype is not dtype else raw
        else:
            flat = torch.empty(numel, dtype=dtype)
            if nbytes:
                reader.read_into(name, memoryview(flat._untyped_storage))
        if byteorder != sys.byteorder and itemsize > 1:
            flat._numpy_view(raw=True).byteswap(inplace=True)
        return restore(TypedStorage._wrap(flat), location)

    def persistent_load(pid: Any) -> Any:
        if type(pid) is not tuple or len(pid) != 5 or as_str(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id in checkpoint: {pid!r}")
        _, storage_type, key, location, numel = pid
        key, location = as_str(key), as_str(location)
        if type(numel) is not int or numel < 0:
            raise RuntimeError(f"invalid storage size in checkpoint: {numel!r}")
        dtype = _storage_dtype(storage_type)
        if key in loaded:
            storage = loaded[key]
            if storage.dtype != dtype:
                raise RuntimeError(f"storage {key} is used with two dtypes: {storage.dtype} and {dtype}")
            return storage
        storage = load_storage(dtype, numel, key, location)
        loaded[key] = storage
        return storage

    data = io.BytesIO(reader.read("data.pkl"))
    if weights_only:
        try:
            return WeightsOnlyUnpickler(data, persistent_load, _weights_only_allowed(),
                                         encoding=pickle_load_args.get("encoding", "utf-8")).load()
        except pickle.UnpicklingError as exc:
            raise pickle.UnpicklingError(weights_only_message(str(exc))) from None
        except (EOFError, IndexError, KeyError, struct.error, ValueError, TypeError) as exc:
            raise RuntimeError(f"Weights only load failed: data.pkl is malformed ({type(exc).__name__}: {exc})") \
                from exc
    unpickler_type: Any = _GeneralUnpickler
    if pickle_module is not None and pickle_module is not pickle:
        unpickler_type = type("_Unpickler", (_GeneralUnpickler, pickle_module.Unpickler), {})
    return unpickler_type(data, persistent_load, **pickle_load_args).load()


def _load_legacy(fileobj: IO[bytes], map_location: Any, weights_only: bool,
                 pickle_load_args: dict[str, Any]) -> Any:
    """PyTorch's pre-1.6 format (what its pickled storages still use): pickles of the magic number,
    the protocol version and system info, then the object, then the storage keys, then each
    storage's element count (8 bytes, little-endian) and bytes."""
    import pickletools
    restore = _restore_location(map_location)
    encoding = pickle_load_args.get("encoding", "utf-8")

    def unpickle(source: IO[bytes], persistent_load: Callable[[Any], Any]) -> Any:
        if weights_only:
            try:
                return WeightsOnlyUnpickler(source, persistent_load, _weights_only_allowed(), encoding=encoding).load()
            except pickle.UnpicklingError as exc:
                raise pickle.UnpicklingError(weights_only_message(str(exc))) from None
        return _GeneralUnpickler(source, persistent_load, **pickle_load_args).load()

    def no_storages(pid: Any) -> Any:
        raise pickle.UnpicklingError("unexpected persistent id in a legacy checkpoint header")

    if unpickle(fileobj, no_storages) != _LEGACY_MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    if unpickle(fileobj, no_storages) != _LEGACY_PROTOCOL_VERSION:
        raise RuntimeError("Invalid protocol version")
    unpickle(fileobj, no_storages)   # system info
    # The object comes before the storages' bytes: it is rebuilt over empty storages of the right
    # dtype and size, which are filled once their bytes are reached.
    storages: dict[str, Any] = {}

    def persistent_load(pid: Any) -> Any:
        if type(pid) is not tuple or len(pid) != 6 or as_str(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id in legacy checkpoint: {pid!r}")
        _, storage_type, key, location, numel, view_metadata = pid
        key, location = as_str(key), as_str(location)
        if view_metadata is not None:
            raise RuntimeError("Ember cannot load the storage views of legacy checkpoints")
        if type(numel) is not int or numel < 0:
            raise RuntimeError(f"invalid storage size in checkpoint: {numel!r}")
        if key not in storages:
            storage = TypedStorage._wrap(torch.empty(numel, dtype=_storage_dtype(storage_type)))
            if restore(storage, location) is not storage:
                raise RuntimeError("Ember loads legacy (non-zip) checkpoints on the CPU only: pass map_location='cpu'")
            storages[key] = storage
        return storages[key]

    result = unpickle(fileobj, persistent_load)
    keys = unpickle(fileobj, no_storages)
    if not isinstance(keys, list):
        raise RuntimeError("Invalid legacy checkpoint: the storage key list is missing")
    for key in keys:
        storage = storages.get(as_str(key))
        if storage is None:
            raise RuntimeError(f"Invalid legacy checkpoint: unknown storage {key!r}")
        header = fileobj.read(8)
        if len(header) != 8 or struct.unpack("<q", header)[0] != storage._size():
            raise RuntimeError(f"Invalid legacy checkpoint: storage {key} is truncated or has the wrong size")
        target = memoryview(storage._tensor._untyped_storage)
        if getattr(fileobj, "readinto")(target) != target.nbytes:
            raise RuntimeError(f"Invalid legacy checkpoint: storage {key} is truncated")
    return result


def _is_path(f: Any) -> bool:
    return isinstance(f, (str, os.PathLike))


def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=True, mmap=None, **pickle_load_args)

    Loads an object saved with torch.save (by Ember or PyTorch) from a path or file-like object."""
    if weights_only is None:
        weights_only = pickle_module is None
    env_force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in ("1", "y", "yes", "true")
    if env_force:
        weights_only = True
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    with _open_for_reading(f) as fileobj:
        position = fileobj.tell()
        magic = fileobj.read(4)
        fileobj.seek(position)
        if magic == b"PK\x03\x04":
            reader = ArchiveReader(fileobj)
            mmap_array = None
            if mmap:
                if not _is_path(f):
                    raise ValueError("f must be a file path in order to use the mmap argument")
                if os.path.getsize(f) == 0:   # type: ignore[arg-type]
                    raise RuntimeError("cannot mmap an empty file")
                mmap_array = np.memmap(f, dtype=np.uint8, mode="c")  # copy-on-write, as PyTorch's MAP_PRIVATE
            return _load_zip(reader, map_location, bool(weights_only), pickle_module, mmap_array,
                             pickle_load_args)
        if mmap:
            name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({name}_use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order to use mmap.")
        if not magic:
            raise EOFError("Ran out of input: the checkpoint file is empty")
        if magic[:1] != b"\x80":
            raise RuntimeError("Invalid checkpoint: not a zip archive (PyTorch's format since 1.6) nor a legacy "
                               f"pickle checkpoint (the file starts with {magic!r})")
        try:
            return _load_legacy(fileobj, map_location, bool(weights_only), pickle_load_args)
        except pickle.UnpicklingError:
            raise
        except (EOFError, IndexError, KeyError, struct.error, ValueError, TypeError, AttributeError) as exc:
            raise RuntimeError(f"Invalid legacy checkpoint ({type(exc).__name__}: {exc})") from exc


@contextlib.contextmanager
def _open_for_reading(f: FileLike) -> Iterator[IO[bytes]]:
    if _is_path(f):
        with open(f, "rb") as fileobj:   # type: ignore[arg-type]
            yield fileobj
    else:
        if not (hasattr(f, "read") and hasattr(f, "seek")):
            raise AttributeError(f"expected 'f' to be string, path, or a file-like object with 'read' and "
                                 f"'seek' attributes, but got {type(f).__name__}")
        yield f  # type: ignore[misc]


def get_unsafe_globals_in_checkpoint(f: FileLike) -> list[str]:
    """The globals data.pkl names that a weights_only load would refuse."""
    import pickletools
    with _open_for_reading(f) as fileobj:
        reader = ArchiveReader(fileobj)
        data = reader.read("data.pkl")
    allowed = _weights_only_allowed()
    found: set[str] = set()
    for opcode, arg, _ in pickletools.genops(data):
        if opcode.name == "GLOBAL":
            found.add(str(arg).replace(" ", "."))
    return sorted(found - set(allowed))


class PyTorchFileReader:
    """torch.PyTorchFileReader: a checkpoint archive's records by name (without the archive's folder),
    as PyTorch's binding of its stream reader, for programs that read checkpoints lazily."""

    def __init__(self, file: Any) -> None:
        self._file = open(file, "rb") if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__") else file
        self._reader = ArchiveReader(self._file)
        self._order = [n.split("/", 1)[1] for n in self._reader.zip.namelist()]

    def get_all_records(self) -> list[str]:
        return list(self._order)

    def has_record(self, name: str) -> bool:
        return self._reader.has(name)

    def get_record(self, name: str) -> bytes:
        return self._reader.read(name)

    def get_record_size(self, name: str) -> int:
        return int(self._reader.info(name).file_size)

    def get_record_header_offset(self, name: str) -> int:
        return int(self._reader.info(name).header_offset)

    def get_record_offset(self, name: str) -> int:
        return self._reader.data_offset(name)

    def serialization_id(self) -> str:
        key = ".data/serialization_id"
        return self._reader.read(key).decode() if self._reader.has(key) else ""

    def get_storage_from_record(self, name: str, numel: int, dtype: Any) -> Any:
        """An empty tensor of dtype (a torch.dtype, or a storage class: UntypedStorage is bytes) over a
        storage holding the record's numel elements."""
        if isinstance(dtype, type):
            dtype = torch.uint8 if dtype.__name__ == "UntypedStorage" else dtype(0).dtype
        nbytes = numel * torch.empty((), dtype=dtype).element_size()
        data = bytearray(nbytes)
        self._reader.read_into(name, memoryview(data))
        return torch.frombuffer(data, dtype=dtype)[:0] if nbytes else torch.empty(0, dtype=dtype)
