from libc.stdint cimport int64_t

cpdef int check_randperm(int64_t n, int st) except -1
