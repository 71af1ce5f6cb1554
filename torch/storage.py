"""torch.UntypedStorage: the bytes under a tensor (`Tensor.untyped_storage()`), enough for
sharing checks (`data_ptr`, `_cdata`), sizes and reading bytes on the CPU."""
from __future__ import annotations

import os
from typing import Any

from c10 import tensor_impl
from c10.scalar_type import dtype_from_name


class UntypedStorage:
    __module__ = "torch.storage"

    def __init__(self, size: int = 0, *, device: Any = None) -> None:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"UntypedStorage(): argument 'size' must be int, not {type(size).__name__}")
        self._storage = tensor_impl.empty((size,), dtype_from_name("uint8"), device)._untyped_storage

    @classmethod
    def _wrap(cls, storage: Any) -> UntypedStorage:
        self = cls.__new__(cls)
        self._storage = storage
        return self

    @classmethod
    def from_file(cls, filename: str, shared: bool = False, nbytes: int = 0) -> UntypedStorage:
        """nbytes of a file, mapped: with shared, writes reach the file (created or grown to nbytes);
        without, the mapping is private (copy-on-write), as PyTorch's MAP_PRIVATE."""
        import numpy as np
        if shared:
            with open(filename, "ab") as f:
                if f.tell() < nbytes:
                    f.truncate(nbytes)
        elif nbytes and os.path.getsize(filename) < nbytes:
            raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: file is too small")
        if nbytes == 0:
            return cls._wrap(tensor_impl.empty((0,), dtype_from_name("uint8"), None)._untyped_storage)
        mapped = np.memmap(filename, dtype=np.uint8, mode="r+" if shared else "c", shape=(nbytes,))
        return cls._wrap(tensor_impl.from_numpy(mapped)._untyped_storage)

    def untyped(self) -> UntypedStorage:
        return self

    def nbytes(self) -> int:
        return int(self._storage.nbytes())

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def data_ptr(self) -> int:
        return int(self._storage.data_ptr())

    @property
    def _cdata(self) -> int:
        """One number per storage object (PyTorch's pointer to its StorageImpl)."""
        return id(self._storage)

    @property
    def device(self) -> Any:
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return bool(self.device.type == "cuda")

    def element_size(self) -> int:
        return 1

    def share_memory_(self) -> UntypedStorage:
        """Move the bytes to shared memory (c10.storage.SharedBlock); CUDA storages stay where they are."""
        if not self.is_cuda and not self._storage.is_shared():
            from c10.storage import SharedBlock
            self._storage._move_to_shared(SharedBlock(self.nbytes()))
        return self

    def is_shared(self) -> bool:
        return not self.is_cuda and bool(self._storage.is_shared())

    def _bytes(self) -> memoryview:
        if self.is_cuda:
            raise NotImplementedError("reading the bytes of a CUDA storage needs Tensor.cpu() first")
        return memoryview(self._storage).cast("B")

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):      # a storage over those bytes, sharing them (as PyTorch's)
            start, stop, step = index.indices(self.nbytes())
            if step != 1:
                raise RuntimeError("slices with steps are not supported for storages")
            return UntypedStorage._wrap(self._storage.byte_range(start, max(start, stop)))
        n = self.nbytes()
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(index).__name__}")
        if index < -n or index >= n:
            raise IndexError(f"index {index} out of range for storage of size {n}")
        return self._bytes()[index]

    def tolist(self) -> list[int]:
        return list(self._bytes()) if self.nbytes() else []

    def __repr__(self) -> str:
        info = f"[torch.storage.UntypedStorage(device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(b) for b in self.tolist()) + "\n" + info

    __str__ = __repr__


class TypedStorage:
    """A storage seen as elements of one dtype: what tensors pickle (`torch._utils._rebuild_tensor_v2`
    takes one) and what `torch.load` rebuilds one checkpoint record into. It keeps a 1-D tensor of
    its dtype over the whole storage; tensors rebuilt from it are views of that memory."""
    __module__ = "torch.storage"
    _tensor: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Ember's TypedStorage is internal to pickling; use Tensor.untyped_storage()")

    @classmethod
    def _from_tensor(cls, tensor: Any) -> TypedStorage:
        """The storage under tensor, typed by its dtype."""
        import torch
        base = tensor.detach()
        numel = int(base._untyped_storage.nbytes()) // int(base.element_size())
        return cls._wrap(torch.as_strided(base, (numel,), (1,), 0).detach())

    @classmethod
    def _wrap(cls, tensor: Any) -> TypedStorage:
        """Over a 1-D contiguous tensor that covers its whole storage from offset 0."""
        self = cls.__new__(cls)
        self._tensor = tensor
        return self

    @property
    def dtype(self) -> Any:
        return self._tensor.dtype

    @property
    def device(self) -> Any:
        return self._tensor.device

    @property
    def _untyped_storage(self) -> UntypedStorage:
        return UntypedStorage._wrap(self._tensor._untyped_storage)

    def _size(self) -> int:
        return int(self._tensor.numel())

    def size(self) -> int:
        return self._size()

    def __len__(self) -> int:
        return self._size()

    def nbytes(self) -> int:
        return int(self._tensor._untyped_storage.nbytes())

    def element_size(self) -> int:
        return int(self._tensor.element_size())

    def tolist(self) -> list[Any]:
        return list(self._tensor.tolist())

    def __repr__(self) -> str:
        values = "\n".join(f" {v}" for v in self.tolist())
        return f"{values}\n[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        # As PyTorch's: the storage pickles as the bytes of a torch.save of itself.
        import io
        from torch.serialization import save
        buffer = io.BytesIO()
        save(self, buffer)
        return _load_from_bytes, (buffer.getvalue(),)


def _load_from_bytes(b: bytes) -> Any:
    """Unpickle a storage pickled by TypedStorage.__reduce__ (PyTorch's name and behaviour)."""
    import io
    from torch.serialization import load
    return load(io.BytesIO(b), weights_only=False)
