"""torch.Generator: PyTorch's CPU generator (mt19937), seeded, stepped and serialised as PyTorch does.

`manual_seed(s)` gives the same 32-bit words as PyTorch's CPU generator seeded with s, and
`get_state()` is a uint8 tensor with the byte layout of PyTorch's CPUGeneratorImplState
(5056 bytes), so states round-trip between Ember and PyTorch.
"""
import os

from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from cpython.pythread cimport PyThread_allocate_lock, PyThread_free_lock

from c10.scalar_type cimport ST_UINT8
from c10.tensor_impl cimport TensorImpl, empty_contiguous

from c10.device import device as _device_cls

# PyTorch's default_rng_seed_val: the seed of a new torch.Generator().
DEFAULT_RNG_SEED = 67280421310721

# Byte offsets in CPUGeneratorImplState (the legacy THGeneratorState, then the float cache).
cdef enum:
    _OFF_SEED = 0              # uint64 the_initial_seed
    _OFF_LEFT = 8              # int32 left
    _OFF_SEEDED = 12           # int32 seeded
    _OFF_NEXT = 16             # uint64 next
    _OFF_STATE = 24            # uint64 state[624]
    _OFF_NORMAL_X = 5016       # double normal_x (unused, 0)
    _OFF_NORMAL_Y = 5024       # double normal_y: the cached double normal sample
    _OFF_NORMAL_RHO = 5032     # double normal_rho (unused, 0)
    _OFF_NORMAL_VALID = 5040   # int32 normal_is_valid
    _OFF_FLOAT_NORMAL = 5048   # float next_float_normal_sample
    _OFF_FLOAT_VALID = 5052    # bool is_next_float_normal_sample_valid


cdef uint64_t _nondeterministic_seed():
    """64 random bits from the OS (c10::detail::getNonDeterministicRandom)."""
    return int.from_bytes(os.urandom(8), "little")


cdef uint64_t _seed_from_python(object seed) except? 0:
    """PyTorch's unpacking of a seed: an int in [-2**63, 2**64), negatives taken modulo 2**64
    (Python ints only: PyTorch refuses bools, tensors and numpy integers)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        if hasattr(seed, "__index__") and not isinstance(seed, (bool, TensorImpl)):
            raise TypeError("an integer is required")
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    value = int(seed)
    if value < -(1 << 63) or value >= (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return <uint64_t>(value & 0xffffffffffffffff)


# Called as state_hook(generator, method) when the state of a generator is set or read through its own methods
# (manual_seed, seed, set_state, get_state, initial_seed); None but while torch.compile captures a call, whose
# replays would not set it again, or would repeat the value read.
state_hook = None


cdef class Generator:
    """torch.Generator(device='cpu'): an independent stream of pseudo-random numbers (mt19937 on
    the CPU, Philox seed and offset on CUDA)."""

    def __cinit__(self, *args, **kwargs):
        self.mutex = PyThread_allocate_lock()
        if self.mutex == NULL:
            raise MemoryError("could not allocate the generator's lock")
        self.set_current_seed(DEFAULT_RNG_SEED)

    def __init__(self, device="cpu"):
        dev = _device_cls("cpu") if device is None else _device_cls(device)
        if dev.type == "cuda":
            if dev.index not in (None, 0):
                raise RuntimeError(f"Ember drives CUDA device 0 only; got device '{dev}'")
            self.is_cuda = True
            self._device = _device_cls("cuda", 0)
        elif dev.type == "cpu":
            self._device = _device_cls("cpu")
        else:
            raise RuntimeError(f"Ember's torch.Generator supports the CPU (mt19937) and CUDA (Philox) devices; "
                               f"got device '{dev}'")

    def __dealloc__(self):
        if self.mutex != NULL:
            PyThread_free_lock(self.mutex)

    cdef void set_current_seed(self, uint64_t seed) noexcept nogil:
        """Seed the engine as at::mt19937(seed) and drop the cached normal samples."""
        cdef int j
        self.has_next_double_normal = False
        self.has_next_float_normal = False
        self.next_double_normal = 0.0
        self.next_float_normal = 0.0
        self.engine.seed = seed
        self.engine.seeded = 1
        self.engine.state[0] = <uint32_t>(seed & 0xffffffffu)
        for j in range(1, MT_N):
            self.engine.state[j] = <uint32_t>(1812433253u * (self.engine.state[j - 1] ^ (self.engine.state[j - 1] >> 30))
                                              + <uint32_t>j)
        self.engine.left = 1
        self.engine.next = 0
        self.philox_offset = 0

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        """Seed the generator; returns the generator."""
        if state_hook is not None:
            state_hook(self, "manual_seed")
        cdef uint64_t s = _seed_from_python(seed)
        with nogil:
            self.lock()
            self.set_current_seed(s)
            self.unlock()
        return self

    def seed(self):
        """Seed from a non-deterministic source; returns that seed."""
        if state_hook is not None:
            state_hook(self, "seed")
        cdef uint64_t s = _nondeterministic_seed()
        with nogil:
            self.lock()
            self.set_current_seed(s)
            self.unlock()
        return s

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        if state_hook is not None:
            state_hook(self, "initial_seed")
        return self.engine.seed

    def get_state(self):
        """The generator's state as a uint8 tensor (PyTorch's CPUGeneratorImplState bytes; for CUDA,
        the seed and the Philox offset, 8 bytes each, as PyTorch's CUDA generator gives them)."""
        if state_hook is not None:
            state_hook(self, "get_state")
        cdef Py_ssize_t size = CPU_STATE_SIZE
        if self.is_cuda:
            return self._cuda_state()
        cdef TensorImpl out = empty_contiguous(1, &size, ST_UINT8, None)
        cdef uint8_t* buf = <uint8_t*>out.data()
        cdef uint64_t word
        cdef int32_t i32
        cdef int j
        memset(buf, 0, CPU_STATE_SIZE)
        with nogil:
            self.lock()
            memcpy(buf + _OFF_SEED, &self.engine.seed, 8)
            i32 = self.engine.left
            memcpy(buf + _OFF_LEFT, &i32, 4)
            i32 = self.engine.seeded
            memcpy(buf + _OFF_SEEDED, &i32, 4)
            word = self.engine.next
            memcpy(buf + _OFF_NEXT, &word, 8)
            for j in range(MT_N):
                word = self.engine.state[j]
                memcpy(buf + _OFF_STATE + 8 * j, &word, 8)
            if self.has_next_double_normal:
                i32 = 1
                memcpy(buf + _OFF_NORMAL_VALID, &i32, 4)
                memcpy(buf + _OFF_NORMAL_Y, &self.next_double_normal, 8)
            if self.has_next_float_normal:
                buf[_OFF_FLOAT_VALID] = 1
                memcpy(buf + _OFF_FLOAT_NORMAL, &self.next_float_normal, 4)
            self.unlock()
        return out

    cdef TensorImpl _cuda_state(self):
        cdef Py_ssize_t size = CUDA_STATE_SIZE
        cdef TensorImpl out = empty_contiguous(1, &size, ST_UINT8, None)
        cdef uint8_t* buf = <uint8_t*>out.data()
        with nogil:
            self.lock()
            memcpy(buf, &self.engine.seed, 8)
            memcpy(buf + 8, &self.philox_offset, 8)
            self.unlock()
        return out

    def _philox_next(self):
        """(seed, offset) for one CUDA kernel launch, which consumes the offset."""
        cdef uint64_t seed, offset
        if not self.is_cuda:
            raise RuntimeError(f"Expected a 'cuda' device type for generator but found '{self._device.type}'")
        with nogil:
            self.lock()
            seed, offset = self.engine.seed, self.philox_offset
            self.philox_offset += 1
            self.unlock()
        return seed, offset

    def set_state(self, new_state):
        """Restore a state from get_state() (Ember's or PyTorch's); returns the generator."""
        if state_hook is not None:
            state_hook(self, "set_state")
        cdef TensorImpl t
        cdef const uint8_t* buf
        cdef MT19937 e
        cdef uint64_t word
        cdef int32_t i32
        cdef int j
        cdef double dnormal = 0.0
        cdef float fnormal = 0.0
        cdef bint has_d, has_f
        if not isinstance(new_state, TensorImpl):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        t = <TensorImpl>new_state
        if t.scalar_type != ST_UINT8 or t.device_type != 0:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if not t.contiguous:
            raise RuntimeError("RNG state must be contiguous")
        if self.is_cuda:
            return self._set_cuda_state(t)
        if t.n_elem != CPU_STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {CPU_STATE_SIZE} but found the input RNG "
                               f"state size to be {t.n_elem}")
        buf = <const uint8_t*>t.data()
        memcpy(&e.seed, buf + _OFF_SEED, 8)
        memcpy(&i32, buf + _OFF_LEFT, 4)
        e.left = i32
        memcpy(&i32, buf + _OFF_SEEDED, 4)
        e.seeded = 1 if i32 != 0 else 0
        memcpy(&word, buf + _OFF_NEXT, 8)
        e.next = <uint32_t>word
        for j in range(MT_N):
            memcpy(&word, buf + _OFF_STATE + 8 * j, 8)
            e.state[j] = <uint32_t>word
        if not (e.seeded and 0 < e.left <= MT_N and e.next <= MT_N):
            raise RuntimeError("Invalid mt19937 state")
        memcpy(&i32, buf + _OFF_NORMAL_VALID, 4)
        has_d = i32 != 0
        memcpy(&dnormal, buf + _OFF_NORMAL_Y, 8)
        has_f = buf[_OFF_FLOAT_VALID] != 0
        memcpy(&fnormal, buf + _OFF_FLOAT_NORMAL, 4)
        with nogil:
            self.lock()
            self.engine = e
            self.has_next_double_normal = has_d
            self.next_double_normal = dnormal if has_d else 0.0
            self.has_next_float_normal = has_f
            self.next_float_normal = fnormal if has_f else 0.0
            self.unlock()
        return self

    cdef object _set_cuda_state(self, TensorImpl t):
        """PyTorch's CUDA layout: the seed, then (optionally) the offset."""
        cdef uint64_t seed, offset = 0
        if t.n_elem != CUDA_STATE_SIZE and t.n_elem != 8:
            raise RuntimeError("RNG state is wrong size")
        memcpy(&seed, t.data(), 8)
        if t.n_elem == CUDA_STATE_SIZE:
            memcpy(&offset, <const char*>t.data() + 8, 8)
        with nogil:
            self.lock()
            self.set_current_seed(seed)
            self.philox_offset = offset
            self.unlock()
        return self

    def get_offset(self):
        if not self.is_cuda:
            raise RuntimeError("CPU Generator does not use offset")
        return self.philox_offset

    def set_offset(self, offset):
        if not self.is_cuda:
            raise RuntimeError("CPU Generator does not use offset")
        self.philox_offset = <uint64_t>offset
        return self

    def clone_state(self):
        """A new generator with a copy of this one's state."""
        cdef Generator g = Generator(self._device)
        g.set_state(self.get_state())
        return g

    def __reduce__(self):
        # PyTorch pickles (initial_seed, offset, state tensor); the state travels as bytes here.
        return (type(self), (self._device,), (self.initial_seed(), None, self.get_state()._numpy_view().tobytes()))

    def __setstate__(self, state):
        cdef Py_ssize_t size = CPU_STATE_SIZE
        cdef TensorImpl t
        seed, offset, rng_state = state
        self.manual_seed(seed)
        if offset is not None:
            self.set_offset(offset)
        if isinstance(rng_state, (bytes, bytearray)) and self.is_cuda:
            size = len(rng_state)
            t = empty_contiguous(1, &size, ST_UINT8, None)
            memcpy(t.data(), <const char*>rng_state, size)
            rng_state = t
        elif isinstance(rng_state, (bytes, bytearray)):
            if len(rng_state) != CPU_STATE_SIZE:
                raise RuntimeError(f"Expected a CPUGeneratorImplState of size {CPU_STATE_SIZE} but found the input "
                                   f"RNG state size to be {len(rng_state)}")
            t = empty_contiguous(1, &size, ST_UINT8, None)
            memcpy(t.data(), <const char*>rng_state, CPU_STATE_SIZE)
            rng_state = t
        self.set_state(rng_state)


cdef Generator _default = Generator()
_default.set_current_seed(_nondeterministic_seed())

# The generator random operators use when none is passed (torch.default_generator).
default_generator = _default


# The default CUDA generator (torch.cuda.default_generators[0]): Philox's seed and the offset each
# random kernel launch consumes, so that a seed gives the same draws run after run. It needs no GPU
# to exist or to be seeded; PyTorch seeds it with the default seed, not a random one.
default_cuda_generator = Generator("cuda")


cdef Generator default_cpu_generator():
    return _default


cdef Generator generator_or_default(object gen):
    """The generator a kernel draws from: gen, or the default CPU generator for None."""
    if gen is None:
        return _default
    if not isinstance(gen, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(gen).__name__}")
    if (<Generator>gen).is_cuda:
        raise RuntimeError("Expected a 'cpu' device type for generator but found 'cuda'")
    return <Generator>gen
