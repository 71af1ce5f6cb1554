from libc.stdint cimport uint64_t

cdef class OperatorHandle:
    cdef readonly str name          # "add.Tensor", or "neg" when the overload name is empty
    cdef readonly str schema
    cdef list table                 # kernel per runtime key: callable, LazyKernel, FALLTHROUGH or None
    cdef dict registered            # DispatchKey value (runtime or alias) -> kernel
    cdef dict tensor_params         # name -> position of each plain Tensor/Tensor? argument
    cdef object written             # the overlap checks of its written (a!) arguments (WriteChecks), or None

    cdef object lookup(self, uint64_t ks)
    cdef void rebuild_table(self)
    cdef object call_below(self, tuple args, dict kwargs)

cpdef OperatorHandle find_operator(str name)
# Whether a TorchDispatchMode is active (the Python key is in every call's key set).
cdef bint python_key_active() noexcept
