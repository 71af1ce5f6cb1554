# The in-place distributions random_sampling.pyx builds on (random.pyx).
from c10.generator cimport Generator
from c10.tensor_impl cimport TensorImpl

cdef int _check_normal_std(double std) except -1
cdef int _normal_inplace(TensorImpl self, double mean, double std, Generator gen) except -1
cdef int _bernoulli_scalar(TensorImpl self, double p, Generator gen) except -1
cdef int _expand_strides(TensorImpl src, TensorImpl to, Py_ssize_t* strides) except -1
