# The CPU reduction engine (PyTorch's TensorIterator reductions, in small): see reduce.pyx.
#
# An op supplies four C functions over its accumulators (ReduceOps) and a context (ReduceCtx);
# the engine finds the output shape, orders and merges dimensions, splits the work into units
# of output columns (and, for few outputs, the reduced range across threads), and calls:
#   init(acc, n, out_index, out_step, ctx)      n fresh accumulators for outputs out_index + i*out_step
#   leaf(acc, src, ncols, cs, nrows, rs, row0, ctx)
#       acc[c] <- acc[c] combined with the elements src + r*rs + c*cs, r < nrows, c < ncols
#       (strides in bytes; row0 is the index of row 0 along the reduced dim, for index ops)
#   combine(acc, other, n, ctx)                 acc[i] <- acc[i] combined with other[i] (other is later)
#   project(acc, n, out_index, out_step, ctx)   write the n results of outputs out_index + i*out_step
#                                               (element indices into ctx.out, and ctx.out2 if the op has two)
# Every function runs without the GIL and must not fail: validate before calling the engine.
from c10.tensor_impl cimport TensorImpl, MAX_DIMS

cdef enum:
    COL_BYTES = 16384       # accumulator bytes of one unit of output columns (the leaf's ncols * acc_size)
    COL_WORDS = 2048        # COL_BYTES / 8, for 8-byte scratch arrays
    ACC_MAX = 32           # largest accumulator, bytes

cdef struct ReduceCtx:
    int in_type            # scalar type of the elements the leaf reads
    int acc_type           # scalar type of the accumulators (op-defined meaning)
    int mode               # op-defined variant (norm order kind, transform, ...)
    double p               # op-defined parameter (norm order, ...)
    double divisor         # op-defined (mean: count; var: degrees of freedom)
    Py_ssize_t count       # elements reduced into each output
    const char* centers    # per-output values laid out as the output (var, logsumexp), or NULL
    Py_ssize_t centers_itemsize
    char* out              # the output's element 0 (set by the engine)
    char* out2             # a second output laid out as the first (max.dim's values), or NULL

ctypedef void (*init_fn)(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                         const ReduceCtx* ctx) noexcept nogil
ctypedef void (*leaf_fn)(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                         Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil
ctypedef void (*combine_fn)(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil
ctypedef void (*project_fn)(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                            const ReduceCtx* ctx) noexcept nogil

cdef struct ReduceOps:
    Py_ssize_t acc_size
    init_fn init
    leaf_fn leaf
    combine_fn combine
    project_fn project

cdef struct DimSet:
    int ndim                        # of the input
    bint reduce[MAX_DIMS]           # reduce[d]: dim d is reduced

# dims: None, an int or a sequence of ints. An empty sequence means every dim when
# empty_means_all (sum, mean: int[1]?), no dim otherwise (all.dims, any.dims: int[]?).
cdef int parse_dims(TensorImpl self, object dim, bint empty_means_all, DimSet* out) except -1
cdef int all_dims(TensorImpl self, DimSet* out) except -1
cdef bint dims_given(object dim) except -1         # not None and not an empty sequence
cdef Py_ssize_t reduced_count(TensorImpl self, const DimSet* dims) noexcept
cdef int result_shape(TensorImpl self, const DimSet* dims, bint keepdim, Py_ssize_t* sizes) except -1
cdef int check_nonempty(TensorImpl self, const DimSet* dims, str name, bint dim_given) except -1
cdef int check_dtype_kernel(int scalar_type, str kernel) except -1

# A new contiguous tensor of out_type holding the reduction of src over dims.
cdef TensorImpl reduce(TensorImpl src, const DimSet* dims, bint keepdim, int out_type,
                       const ReduceOps* ops, ReduceCtx* ctx)
# The same, into out (contiguous, of the result shape with keepdim=True or False).
cdef int reduce_into(TensorImpl out, TensorImpl src, const DimSet* dims, const ReduceOps* ops,
                     ReduceCtx* ctx) except -1
