# Runtime dispatch keys as bit positions: a higher bit wins (c10/core/DispatchKey.h order).
from libc.stdint cimport uint64_t

cdef enum:
    DK_CPU = 0
    DK_CUDA = 1
    DK_BACKEND_SELECT = 2
    # Below autograd, as PyTorch's: the active TorchDispatchMode sees the ops autograd runs (both ways).
    DK_PYTHON = 3
    DK_AD_INPLACE_OR_VIEW = 4
    DK_AUTOGRAD_OTHER = 5
    DK_AUTOGRAD_CPU = 6
    DK_AUTOGRAD_CUDA = 7
    # Above autograd, as PyTorch's: a listed op's inputs are cast before autograd records them.
    DK_AUTOCAST_CPU = 8
    DK_AUTOCAST_CUDA = 9
    NUM_RUNTIME_KEYS = 10

cdef uint64_t backend_key_set(int device_type) noexcept
