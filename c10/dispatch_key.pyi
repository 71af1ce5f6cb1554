# Type stub for the Cython module c10/dispatch_key.pyx (mypy cannot read .pyx): keep in step with it.
from collections.abc import Iterable, Iterator
from enum import IntEnum

class DispatchKey(IntEnum):
    CPU = 0
    CUDA = 1
    BackendSelect = 2
    Python = 3
    FuncTorchBatched = 4
    FuncTorchVmapMode = 5
    ADInplaceOrView = 6
    AutogradOther = 7
    AutogradCPU = 8
    AutogradCUDA = 9
    ForwardAD = 10
    AutocastCPU = 11
    AutocastCUDA = 12
    Autograd = 100
    CompositeExplicitAutogradNonFunctional = 101
    CompositeExplicitAutograd = 102
    CompositeImplicitAutograd = 103
    @property
    def is_alias(self) -> bool: ...

NUM_RUNTIME: int
BACKEND_KEYS: tuple[DispatchKey, ...]
AUTOGRAD_KEYS: tuple[DispatchKey, ...]
AUTOGRAD_FOR_BACKEND: dict[DispatchKey, DispatchKey]
AUTOCAST_KEYS: tuple[DispatchKey, ...]

class DispatchKeySet:
    repr: int
    def __init__(self, keys: int | DispatchKey | Iterable[DispatchKey | int] = ()) -> None: ...
    def __or__(self, other: int | DispatchKey | Iterable[DispatchKey | int] | DispatchKeySet) -> DispatchKeySet: ...
    def __sub__(self, other: int | DispatchKey | Iterable[DispatchKey | int] | DispatchKeySet) -> DispatchKeySet: ...
    def __contains__(self, key: object) -> bool: ...
    def __iter__(self) -> Iterator[DispatchKey]: ...
    def __len__(self) -> int: ...
    def __hash__(self) -> int: ...
    def highest_priority_key(self) -> DispatchKey: ...
