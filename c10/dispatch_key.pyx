"""DispatchKey and DispatchKeySet: which kernel of an operator runs for a call.

Runtime keys are bits of a 64-bit set; the highest bit present picks the kernel. Alias keys
(CompositeImplicitAutograd, ...) never appear in a set: registering a kernel under one fills
the table of several runtime keys (aten.dispatcher).
"""
from enum import IntEnum


class DispatchKey(IntEnum):
    # Runtime keys: value = bit position = priority.
    CPU = DK_CPU
    CUDA = DK_CUDA
    BackendSelect = DK_BACKEND_SELECT
    Python = DK_PYTHON
    FuncTorchBatched = DK_FUNCTORCH_BATCHED
    FuncTorchVmapMode = DK_VMAP_MODE
    ADInplaceOrView = DK_AD_INPLACE_OR_VIEW
    AutogradOther = DK_AUTOGRAD_OTHER
    AutogradCPU = DK_AUTOGRAD_CPU
    AutogradCUDA = DK_AUTOGRAD_CUDA
    ForwardAD = DK_FORWARD_AD
    AutocastCPU = DK_AUTOCAST_CPU
    AutocastCUDA = DK_AUTOCAST_CUDA
    # Alias keys: never in a key set.
    Autograd = 100
    CompositeExplicitAutogradNonFunctional = 101
    CompositeExplicitAutograd = 102
    CompositeImplicitAutograd = 103

    @property
    def is_alias(self):
        return self.value >= 100


NUM_RUNTIME = NUM_RUNTIME_KEYS
BACKEND_KEYS = (DispatchKey.CPU, DispatchKey.CUDA)
AUTOGRAD_KEYS = (DispatchKey.AutogradOther, DispatchKey.AutogradCPU, DispatchKey.AutogradCUDA)
#: The autograd key paired with each backend key.
AUTOGRAD_FOR_BACKEND = {DispatchKey.CPU: DispatchKey.AutogradCPU, DispatchKey.CUDA: DispatchKey.AutogradCUDA}
AUTOCAST_KEYS = (DispatchKey.AutocastCPU, DispatchKey.AutocastCUDA)


cdef uint64_t backend_key_set(int device_type) noexcept:
    # c10.device.DeviceType: CPU = 0, CUDA = 1; the same numbers as the backend bits.
    return (<uint64_t>1) << device_type


class DispatchKeySet:
    """An immutable set of runtime dispatch keys."""

    __slots__ = ("repr",)

    def __init__(self, keys=()):
        cdef uint64_t bits = 0
        if isinstance(keys, int) and not isinstance(keys, DispatchKey):
            bits = keys
        else:
            if isinstance(keys, DispatchKey):
                keys = (keys,)
            for k in keys:
                k = DispatchKey(k)
                if k.is_alias:
                    raise ValueError(f"{k.name} is an alias key: it names several runtime keys and is never in a key set")
                bits |= (<uint64_t>1) << <int>k.value
        object.__setattr__(self, "repr", bits)

    def __setattr__(self, key, value):
        raise AttributeError("DispatchKeySet is immutable")

    def __or__(self, other):
        return DispatchKeySet(self.repr | DispatchKeySet(other).repr)

    def __sub__(self, other):
        return DispatchKeySet(self.repr & ~DispatchKeySet(other).repr)

    def __contains__(self, key):
        return bool(self.repr >> int(DispatchKey(key)) & 1)

    def __iter__(self):
        return iter([k for k in DispatchKey if not k.is_alias and (self.repr >> k.value) & 1])

    def __len__(self):
        return bin(self.repr).count("1")

    def __eq__(self, other):
        return isinstance(other, DispatchKeySet) and other.repr == self.repr

    def __hash__(self):
        return hash(self.repr)

    def highest_priority_key(self):
        if self.repr == 0:
            return None
        return DispatchKey(self.repr.bit_length() - 1)

    def __repr__(self):
        return "DispatchKeySet(" + ", ".join(k.name for k in self) + ")"
