"""CPU kernels: the loop engine (loops.pyx) and handwritten Cython kernels; _gen_* are generated."""
