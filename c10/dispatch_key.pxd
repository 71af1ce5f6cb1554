# Runtime dispatch keys as bit positions: a higher bit wins (c10/core/DispatchKey.h order).
from libc.stdint cimport uint64_t

cdef enum:
    DK_CPU = 0
    DK_CUDA = 1
    DK_BACKEND_SELECT = 2
    # Below autograd, as PyTorch's: the active TorchDispatchMode sees the ops autograd runs (both ways).
    DK_PYTHON = 3
    # vmap (torch.func): a batched tensor's key, and the key every call gains inside vmap (random ops).
    # Below autograd, unlike PyTorch's (which orders them per transform at run time): autograd records
    # the per-example (logical) program, and its backward formulas run through the batching rules.
    DK_FUNCTORCH_BATCHED = 4
    DK_VMAP_MODE = 5
    DK_AD_INPLACE_OR_VIEW = 6
    DK_AUTOGRAD_OTHER = 7
    DK_AUTOGRAD_CPU = 8
    DK_AUTOGRAD_CUDA = 9
    # Forward-mode AD (torch.autograd.forward_ad, torch.func.jvp): a dual tensor's key. Ember's own: PyTorch
    # computes tangents inside its autograd kernels. Above autograd, so that a tangent formula's ops are
    # recorded for reverse mode (grad of jvp) and run whatever the grad mode.
    DK_FORWARD_AD = 10
    # Above autograd, as PyTorch's: a listed op's inputs are cast before autograd records them.
    DK_AUTOCAST_CPU = 11
    DK_AUTOCAST_CUDA = 12
    NUM_RUNTIME_KEYS = 13

cdef uint64_t backend_key_set(int device_type) noexcept
