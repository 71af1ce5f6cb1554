# float16 storage as C's _Float16 (gcc 12+ on x86-64, clang): Cython sees a float-like type;
# conversions to and from it are correctly rounded in C. Kernels widen to float to compute and
# round once when they store, as PyTorch's opmath does.
cdef extern from *:
    ctypedef float half "_Float16"
