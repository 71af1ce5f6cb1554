# Runtime dispatch keys as bit positions: a higher bit wins (c10/core/DispatchKey.h order).
from libc.stdint cimport uint64_t

cdef enum:
    DK_CPU = 0
    DK_CUDA = 1
    DK_BACKEND_SELECT = 2
    DK_AD_INPLACE_OR_VIEW = 3
    DK_AUTOGRAD_OTHER = 4
    DK_AUTOGRAD_CPU = 5
    DK_AUTOGRAD_CUDA = 6
    # Above autograd, as PyTorch's: a listed op's inputs are cast before autograd records them.
    DK_AUTOCAST_CPU = 7
    DK_AUTOCAST_CUDA = 8
    NUM_RUNTIME_KEYS = 9

cdef uint64_t backend_key_set(int device_type) noexcept
