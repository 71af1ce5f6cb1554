# Autocast state, per thread (ATen's autocast_mode): the dispatcher adds the Autocast keys that are
# enabled and not excluded to every call's key set, so it reads them at C level.
from libc.stdint cimport uint64_t

# The Autocast key bits (c10.dispatch_key) enabled on this thread; 0 inside an autocast kernel.
cdef uint64_t autocast_keys() noexcept nogil
