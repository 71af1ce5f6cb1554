cdef int accumulate(object variable, tuple grads) except -1
cdef int reduce_finished_vmaps(list grads) except -1
cdef object add_grads(object a, object b)
