# Generator: PyTorch's CPU random number generator (c10::GeneratorImpl / at::CPUGeneratorImpl).
#
# The engine is the 32-bit Mersenne Twister (mt19937) that PyTorch seeds and steps the same way
# (ATen/core/MT19937RNGEngine.h), so a seed gives PyTorch's sequence of 32-bit words. Kernels
# take a Generator, lock it, and draw from `&gen.engine` with the inline functions below,
# without the GIL.
from libc.stdint cimport uint32_t, uint64_t
from cpython.pythread cimport PyThread_type_lock, PyThread_acquire_lock, PyThread_release_lock, WAIT_LOCK
from c10.tensor_impl cimport TensorImpl

cdef enum:
    MT_N = 624
    MT_M = 397
    CPU_STATE_SIZE = 5056      # sizeof(at::detail::CPUGeneratorImplState): get_state()'s byte count
    CUDA_STATE_SIZE = 16       # a CUDA generator's state: the seed and the Philox offset, 8 bytes each

cdef struct MT19937:
    uint64_t seed              # the seed it was initialised with (initial_seed())
    int left                   # words left before the next twist, 1..624
    int seeded
    uint32_t next              # index of the next word in state
    uint32_t state[624]


cdef inline uint32_t _mt_twist(uint32_t u, uint32_t v) noexcept nogil:
    cdef uint32_t y = ((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1
    return y ^ 0x9908b0dfu if (v & 1u) else y


cdef inline void mt_next_state(MT19937* e) noexcept nogil:
    """Regenerate the 624 state words (the twist)."""
    cdef uint32_t* p = e.state
    cdef int j
    e.left = MT_N
    e.next = 0
    for j in range(MT_N - MT_M):
        p[j] = p[j + MT_M] ^ _mt_twist(p[j], p[j + 1])
    for j in range(MT_N - MT_M, MT_N - 1):
        p[j] = p[j + MT_M - MT_N] ^ _mt_twist(p[j], p[j + 1])
    p[MT_N - 1] = p[MT_M - 1] ^ _mt_twist(p[MT_N - 1], p[0])


cdef inline uint32_t mt_random(MT19937* e) noexcept nogil:
    """The next 32-bit word (CPUGeneratorImpl::random)."""
    cdef uint32_t y
    e.left -= 1
    if e.left == 0:
        mt_next_state(e)
    y = e.state[e.next]
    e.next += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680u
    y ^= (y << 15) & 0xefc60000u
    y ^= y >> 18
    return y


cdef inline uint64_t mt_random64(MT19937* e) noexcept nogil:
    """Two words, the first as the high half (CPUGeneratorImpl::random64)."""
    cdef uint64_t hi = mt_random(e)
    cdef uint64_t lo = mt_random(e)
    return (hi << 32) | lo


cdef inline float mt_uniform_float(MT19937* e) noexcept nogil:
    """[0, 1) from 24 random bits (at::uniform_real_distribution<float>(0, 1))."""
    return <float>(mt_random(e) & 0xffffffu) * <float>5.9604644775390625e-08


cdef inline double mt_uniform_double(MT19937* e) noexcept nogil:
    """[0, 1) from 53 random bits (at::uniform_real_distribution<double>(0, 1))."""
    return <double>(mt_random64(e) & 0x1fffffffffffffu) * 1.1102230246251565e-16


cdef class Generator:
    cdef MT19937 engine
    cdef double next_double_normal     # Box-Muller's second sample, cached between calls
    cdef float next_float_normal
    cdef bint has_next_double_normal
    cdef bint has_next_float_normal
    cdef PyThread_type_lock mutex
    cdef object _device
    # a CUDA generator is Philox's: engine.seed and the offset each kernel launch consumes
    cdef bint is_cuda
    cdef uint64_t philox_offset

    cdef void set_current_seed(self, uint64_t seed) noexcept nogil
    cdef TensorImpl _cuda_state(self)
    cdef object _set_cuda_state(self, TensorImpl t)

    # Kernels hold the lock while they draw (PyTorch's generator->mutex_); take it without the GIL.
    cdef inline void lock(self) noexcept nogil:
        PyThread_acquire_lock(self.mutex, WAIT_LOCK)

    cdef inline void unlock(self) noexcept nogil:
        PyThread_release_lock(self.mutex)


cdef Generator default_cpu_generator()
cdef Generator generator_or_default(object gen)
