"""Matrix products on CPU through BLAS: NumPy's matmul over zero-copy views of the operands,
writing straight into the freshly allocated result (np.matmul(out=)).

NumPy calls BLAS (sgemm/dgemm) when each matrix has one unit stride and a leading dimension
at least its width; an operand laid out any other way is first copied to a contiguous buffer,
as PyTorch does. Integer dtypes use NumPy's own loops (PyTorch CPU supports them too; bool is
rejected as in PyTorch). The checks and their messages follow PyTorch's meta functions.
"""
import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport uint16_t

from c10.scalar_type cimport (dtype_of, is_floating, is_complex, is_integral, opmath_type, ST_BOOL, ST_FLOAT32, ST_FLOAT64,
                              ST_INT64, ST_FLOAT16, ST_BFLOAT16)
from c10.tensor_impl cimport TensorImpl, make_tensor, MAX_DIMS
from aten.native.cpu.array_bridge cimport np_view, new_tensor, reject_half, contiguous, num_threads
from aten.native.meta.einsum_plan import einsum_plan
from aten.native.meta.linalg_checks cimport (check_expand, refuse_bool, check_bmm, check_baddbmm, check_addbmm, check_addmv,
                                            check_mv, check_dot)
from aten.native.meta.messages cimport cpp_type, type_name
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.cpu.blas cimport (GemmPlan, blas_sgemm, blas_single_threaded, epilogue_t, gemm_plan, run_gemm,
                                   small_gemm)


cdef inline bint _blas_ok(object a):
    """True when every matrix of a (..., m, n) view is row- or column-major with a leading
    dimension BLAS accepts (anything else makes NumPy fall back to its slow loop)."""
    cdef Py_ssize_t item = a.itemsize
    cdef int nd = a.ndim
    s0, s1 = a.strides[nd - 2], a.strides[nd - 1]
    m, n = a.shape[nd - 2], a.shape[nd - 1]
    if s1 == item and s0 >= max(1, n) * item and s0 % item == 0:
        return True
    if s0 == item and s1 >= max(1, m) * item and s1 % item == 0:
        return True
    return False


cdef object _mat(TensorImpl t):
    """A view of t for np.matmul; a contiguous copy when BLAS could not read the view (floats)."""
    a = np_view(t)
    if t.nd >= 2 and t.n_elem and is_floating(t.scalar_type) and not _blas_ok(a):
        return np.ascontiguousarray(a)
    return a


cdef object _scalar(object value, int st):
    """alpha/beta in the result's type: PyTorch converts them to the integral type for integral
    results (wrapping, so alpha=-1 is 255 for uint8)."""
    if is_integral(st, True):
        return np.array(int(value)).astype(dtype_of(st).numpy_dtype)[()]
    return value


cdef int _no_bool(str op, TensorImpl t) except -1:
    reject_half(op, t)
    return refuse_bool(op, t)


cdef int _scale_add(object out, object alpha, object beta, object addend) except -1:
    """out = beta * addend + alpha * out, in place (addend broadcasts; beta == 0 ignores it, NaN too)."""
    if alpha != 1:
        np.multiply(out, alpha, out=out, casting="unsafe")
    if beta != 0 and out.size:
        if beta == 1:
            np.add(out, addend, out=out, casting="unsafe")
        else:
            np.add(out, np.multiply(addend, beta, dtype=out.dtype, casting="unsafe"), out=out, casting="unsafe")
    return 0


cdef int _check_mm(TensorImpl self, TensorImpl mat2) except -1:
    if self.nd != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.nd != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self.sizes[1] != mat2.sizes[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({self.sizes[0]}x{self.sizes[1]} and "
                           f"{mat2.sizes[0]}x{mat2.sizes[1]})")
    if self.scalar_type != mat2.scalar_type:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_type(self.scalar_type)} != "
                           f"{cpp_type(mat2.scalar_type)}")
    if self.scalar_type != ST_BFLOAT16 and self.scalar_type != ST_FLOAT16:     # mm serves those itself
        _no_bool("addmm_impl_cpu_", self)
    return 0


def mm_cpu(TensorImpl self not None, TensorImpl mat2 not None):
    _check_mm(self, mat2)
    if self.scalar_type == ST_BFLOAT16 or self.scalar_type == ST_FLOAT16:
        return _mm_reduced(self, mat2)
    cdef TensorImpl out = new_tensor((self.sizes[0], mat2.sizes[1]), self.scalar_type)
    _matmul_into(out, self, mat2)
    return out


cdef extern from "aten/native/cpu/gemm_bf16.h" nogil:
    int ember_has_avx512_bf16()
    int ember_bf16_gemm_cols(const uint16_t* a, Py_ssize_t lda, const uint16_t* b, Py_ssize_t sk, Py_ssize_t sn,
                             uint16_t* c, Py_ssize_t ldc, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k, Py_ssize_t j0,
                             Py_ssize_t j1, uint16_t* packed)


cdef TensorImpl _mm_reduced(TensorImpl a, TensorImpl b):
    """A float16/bfloat16 product accumulated in float32 and rounded once, as PyTorch's: bfloat16 on
    AVX512-BF16 CPUs in vdpbf16ps blocks (gemm_bf16.h), columns split over the threads (each element is
    one thread's, in one order: the same bits on any thread count); otherwise on float32 copies."""
    cdef int st = a.scalar_type, nt, t
    cdef Py_ssize_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1], strips, pairs
    cdef TensorImpl out, wide, packed
    cdef uint16_t* ap
    cdef uint16_t* bp
    cdef uint16_t* cp
    cdef uint16_t* pp
    if st == ST_BFLOAT16 and m and n and k and ember_has_avx512_bf16():
        if a.strides[1] != 1 or (m > 1 and a.strides[0] < k):
            a = contiguous(a)
        out = new_tensor((m, n), st)
        strips = (n + 31) // 32
        nt = max(1, min(num_threads(), strips, (m * n * k) // (1 << 18)))
        pairs = (k + 1) // 2
        packed = new_tensor((nt * pairs * 64,), st)
        ap, bp, cp, pp = <uint16_t*>a.data(), <uint16_t*>b.data(), <uint16_t*>out.data(), <uint16_t*>packed.data()
        with nogil:
            for t in prange(nt, num_threads=nt, schedule="static"):
                ember_bf16_gemm_cols(ap, a.strides[0], bp, b.strides[0], b.strides[1], cp, n, m, n, k,
                                     min(n, strips * t // nt * 32), min(n, strips * (t + 1) // nt * 32),
                                     pp + t * pairs * 64)
        return out
    wide = new_tensor((m, n), ST_FLOAT32)
    _matmul_into(wide, cast_contiguous(a, ST_FLOAT32), cast_contiguous(b, ST_FLOAT32))
    return cast_contiguous(wide, st)


cdef int _matmul_into(TensorImpl out, TensorImpl a, TensorImpl b) except -1:
    cdef object r = np_view(out)
    if out.n_elem == 0:
        return 0
    if a.sizes[a.nd - 1] == 0:
        r[...] = 0
        return 0
    if is_complex(out.scalar_type):       # NumPy's complex BLAS (cgemm / zgemm)
        np.matmul(np_view(a), np_view(b), out=r)
        return 0
    if _direct_gemm(out, a, b):
        return 0
    _gemm(_mat(a), _mat(b), r, a.sizes[a.nd - 2] if a.nd >= 2 else 1, b.sizes[b.nd - 1] if b.nd >= 2 else 1,
          a.sizes[a.nd - 1])
    return 0


cdef bint _plan(GemmPlan* plan, TensorImpl out, TensorImpl a, TensorImpl b) noexcept:
    """blas.gemm_plan for out = a @ b (2-D, or 3-D stacks of the same length)."""
    cdef Py_ssize_t sa[3]
    cdef Py_ssize_t sb[3]
    sa[0] = a.strides[0] if a.nd == 3 else 0
    sb[0] = b.strides[0] if b.nd == 3 else 0
    sa[1], sa[2] = a.strides[a.nd - 2], a.strides[a.nd - 1]
    sb[1], sb[2] = b.strides[b.nd - 2], b.strides[b.nd - 1]
    return gemm_plan(plan, out.sizes[0] if out.nd == 3 else 1, a.sizes[a.nd - 2], b.sizes[b.nd - 1],
                     a.sizes[a.nd - 1], sa, sb)


cdef bint _direct_gemm(TensorImpl out, TensorImpl a, TensorImpl b, double alpha=1.0, double beta=0.0,
                       TensorImpl row=None, epilogue_t epilogue=NULL, void* const* epilogue_args=NULL) except -1:
    """Float matrices and stacks of them (mm, bmm, addmm's product) straight through BLAS on the
    tensors' memory, split across Ember's threads (blas.run_gemm): out = alpha * a @ b + beta * out,
    each row of out first set to `row` where one is given (a contiguous vector of out's width).
    False leaves the product to np.matmul (vectors, integers, BLAS not found). An operand BLAS
    cannot read in place is copied to a contiguous one first, as PyTorch does."""
    cdef GemmPlan plan
    cdef int st = out.scalar_type
    if (st != ST_FLOAT32 and st != ST_FLOAT64) or not (a.nd == b.nd == out.nd) or not (a.nd == 2 or a.nd == 3):
        return False
    if a.scalar_type != st or b.scalar_type != st or not out.contiguous:
        return False
    if blas_sgemm() == NULL:
        return False
    cdef TensorImpl a2, b2
    if not _plan(&plan, out, a, b):
        # copy only the operand BLAS cannot read (an expanded gradient, say), not a transposed partner
        b2 = contiguous(b)
        if _plan(&plan, out, a, b2):
            b = b2
        else:
            a2 = contiguous(a)
            if _plan(&plan, out, a2, b):
                a = a2
            elif _plan(&plan, out, a2, b2):
                a, b = a2, b2
            else:
                return False
    cdef int nt = num_threads()
    plan.alpha, plan.beta = alpha, beta
    if row is not None:
        plan.row = row.data()
    plan.epilogue, plan.epilogue_args = epilogue, epilogue_args
    blas_single_threaded(True)
    with nogil:
        run_gemm(&plan, st == ST_FLOAT64, a.data(), b.data(), out.data(), nt)
    blas_single_threaded(False)
    return True


cdef int _gemm(object a, object b, object out, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) except -1:
    """np.matmul(a, b, out=out), each (m x k)(k x n) product single-threaded when it is small
    (blas.pyx says why)."""
    cdef bint single = small_gemm(m, n, k)
    if single:
        blas_single_threaded(True)
    try:
        np.matmul(a, b, out=out)
    finally:
        if single:
            blas_single_threaded(False)
    return 0


cdef inline bint _is_row(TensorImpl addend, TensorImpl out) noexcept:
    """addend is one contiguous row of out's width (a Linear's bias), broadcast over out's rows."""
    cdef Py_ssize_t width = out.sizes[out.nd - 1], d
    if addend.nd < 1 or addend.nd > out.nd or addend.sizes[addend.nd - 1] != width:
        return False
    if width > 1 and addend.strides[addend.nd - 1] != 1:
        return False
    for d in range(addend.nd - 1):
        if addend.sizes[d] != 1:
            return False
    return True


cdef bint _gemm_onto(TensorImpl out, TensorImpl addend, TensorImpl a, TensorImpl b, object alpha,
                     object beta, epilogue_t epilogue=NULL, void* const* epilogue_args=NULL) except -1:
    """out = beta * addend + alpha * (a @ b) as PyTorch's addmm computes it: the (broadcast) addend
    written into the output, which one BLAS call then accumulates the product onto, instead of a
    second pass adding it afterwards (a bias row with beta 1 is written by each thread into its own
    band, just before its product: 512x64x64 with a bias 53 -> 35 us, an mm alone 27-31). False
    (out's contents then undefined) where that does not apply: beta or alpha 0 (the addend, resp.
    the product, is ignored there, NaN too), no product terms, or a product _direct_gemm leaves to
    NumPy."""
    cdef int st = out.scalar_type
    if (st != ST_FLOAT32 and st != ST_FLOAT64) or out.n_elem == 0 or a.sizes[a.nd - 1] == 0:
        return False
    cdef object al = _scalar(alpha, st), be = _scalar(beta, st)
    if isinstance(al, complex) or isinstance(be, complex) or be == 0 or al == 0 or addend.scalar_type != st:
        return False
    if be == 1 and _is_row(addend, out):
        return _direct_gemm(out, a, b, al, 1.0, addend, epilogue, epilogue_args)
    if be == 1:
        np.copyto(np_view(out), np_view(addend))
    else:
        np.multiply(np_view(addend), be, out=np_view(out))
    return _direct_gemm(out, a, b, al, 1.0, None, epilogue, epilogue_args)


cdef int _check_addmm(TensorImpl self, TensorImpl mat1, TensorImpl mat2) except -1:
    if self.scalar_type != mat2.scalar_type:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {type_name(self.scalar_type)} and "
                           f"{type_name(mat2.scalar_type)}")
    if mat1.scalar_type != mat2.scalar_type:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {type_name(mat1.scalar_type)} and "
                           f"{type_name(mat2.scalar_type)}")
    if mat1.nd != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.nd}-D tensor")
    if mat2.nd != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.nd}-D tensor")
    if mat1.sizes[1] != mat2.sizes[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.sizes[0]}x{mat1.sizes[1]} and "
                           f"{mat2.sizes[0]}x{mat2.sizes[1]})")
    check_expand(self, (mat1.sizes[0], mat2.sizes[1]))
    _no_bool("addmm_impl_cpu_", self)
    return 0


def addmm_cpu(TensorImpl self not None, TensorImpl mat1 not None, TensorImpl mat2 not None, beta=1, alpha=1):
    _check_addmm(self, mat1, mat2)
    cdef TensorImpl out = new_tensor((mat1.sizes[0], mat2.sizes[1]), mat1.scalar_type)
    if _gemm_onto(out, self, mat1, mat2, alpha, beta):
        return out
    _matmul_into(out, mat1, mat2)
    _scale_add(np_view(out), _scalar(alpha, out.scalar_type), _scalar(beta, out.scalar_type), np_view(self))
    return out


cdef enum:
    MAX_EPILOGUE_ARGS = 256

# the most buffers an epilogue kernel may take (torch._inductor.epilogues leaves a larger group a kernel of its own)
EPILOGUE_BUFFERS = MAX_EPILOGUE_ARGS


def mm_epilogue_cpu(TensorImpl out not None, TensorImpl addend, TensorImpl mat1 not None, TensorImpl mat2 not None,
                    beta, alpha, size_t epilogue, tuple args):
    """out = addmm(addend, mat1, mat2, beta=beta, alpha=alpha) (mm(mat1, mat2) where addend is None) into out, a
    contiguous float32 matrix, then a compiled graph's epilogue kernel (torch._inductor.epilogues) at `epilogue`
    over all of it, its buffers' addresses `args`: each piece of the product (blas.run_gemm) by the thread that
    computed it, right after it, while it is in that thread's cache. The product's bits are the eager kernel's;
    where BLAS does not serve it, the eager kernel computes it and the epilogue runs after, over the whole."""
    if addend is None:
        _check_mm(mat1, mat2)
    else:
        _check_addmm(addend, mat1, mat2)
    cdef Py_ssize_t m = mat1.sizes[0], n = mat2.sizes[1], i, count = len(args)
    if out.nd != 2 or out.sizes[0] != m or out.sizes[1] != n or not out.contiguous or out.scalar_type != ST_FLOAT32:
        raise RuntimeError(f"mm_epilogue: out must be a contiguous float32 {m}x{n} matrix")
    if epilogue == 0 or count > MAX_EPILOGUE_ARGS:
        raise RuntimeError(f"mm_epilogue: an epilogue kernel with at most {MAX_EPILOGUE_ARGS} buffers is needed")
    cdef void* pointers[MAX_EPILOGUE_ARGS]
    for i in range(count):
        pointers[i] = <void*><size_t>args[i]
    cdef epilogue_t kernel = <epilogue_t>epilogue
    cdef bint done = False
    if out.n_elem and mat1.sizes[1]:
        if addend is None:
            done = _direct_gemm(out, mat1, mat2, 1.0, 0.0, None, kernel, pointers)
        else:
            done = _gemm_onto(out, addend, mat1, mat2, alpha, beta, kernel, pointers)
    if done:
        return out
    np.copyto(np_view(out), np_view(mm_cpu(mat1, mat2) if addend is None else
                                    addmm_cpu(addend, mat1, mat2, beta=beta, alpha=alpha)))
    with nogil:
        kernel(pointers, 0, m, 0, n)
    return out


def bmm_cpu(TensorImpl self not None, TensorImpl mat2 not None):
    check_bmm(self, mat2)
    _no_bool("bmm", self)
    cdef TensorImpl out = new_tensor((self.sizes[0], self.sizes[1], mat2.sizes[2]), self.scalar_type)
    _matmul_into(out, self, mat2)
    return out


def baddbmm_cpu(TensorImpl self not None, TensorImpl batch1 not None, TensorImpl batch2 not None, beta=1, alpha=1):
    check_baddbmm(self, batch1, batch2)
    cdef tuple shape = (batch1.sizes[0], batch1.sizes[1], batch2.sizes[2])
    cdef TensorImpl out = new_tensor(shape, batch1.scalar_type)
    if _gemm_onto(out, self, batch1, batch2, alpha, beta):
        return out
    _matmul_into(out, batch1, batch2)
    _scale_add(np_view(out), _scalar(alpha, out.scalar_type), _scalar(beta, out.scalar_type), np_view(self))
    return out


def addbmm_cpu(TensorImpl self not None, TensorImpl batch1 not None, TensorImpl batch2 not None, beta=1, alpha=1):
    check_addbmm(self, batch1, batch2)
    cdef tuple shape = (batch1.sizes[1], batch2.sizes[2])
    cdef TensorImpl out = new_tensor(shape, batch1.scalar_type)
    cdef object r = np_view(out)
    if out.n_elem:
        if batch1.n_elem == 0:
            r[...] = 0
        else:
            # sum over the batch of the products: one GEMM over (m, b*k) x (b*k, n)
            a = np.ascontiguousarray(np.moveaxis(np_view(batch1), 0, 1)).reshape(shape[0], -1)
            b = _mat(batch2).reshape(-1, shape[1]) if batch2.contiguous else \
                np.ascontiguousarray(np_view(batch2)).reshape(-1, shape[1])
            _gemm(a, b, r, shape[0], shape[1], a.shape[1])
    _scale_add(r, _scalar(alpha, out.scalar_type), _scalar(beta, out.scalar_type), np_view(self))
    return out


def addmv_cpu(TensorImpl self not None, TensorImpl mat not None, TensorImpl vec not None, beta=1, alpha=1):
    check_addmv(self, mat, vec)
    cdef TensorImpl out = new_tensor((mat.sizes[0],), mat.scalar_type)
    _matmul_into(out, mat, vec)
    _scale_add(np_view(out), _scalar(alpha, out.scalar_type), _scalar(beta, out.scalar_type), np_view(self))
    return out


def mv_cpu(TensorImpl self not None, TensorImpl vec not None):
    check_mv(self, vec)
    cdef TensorImpl out = new_tensor((self.sizes[0],), vec.scalar_type)
    _matmul_into(out, self, vec)
    return out


def dot_cpu(TensorImpl self not None, TensorImpl tensor not None):
    check_dot("dot", self, tensor)
    cdef TensorImpl out = new_tensor((), self.scalar_type)
    np_view(out)[()] = np.dot(np_view(self), np_view(tensor)) if self.n_elem else 0
    return out


def vdot_cpu(TensorImpl self not None, TensorImpl other not None):
    # real dtypes only: vdot is dot (the conjugate is the identity)
    check_dot("dot", self, other)
    cdef TensorImpl out = new_tensor((), self.scalar_type)
    np_view(out)[()] = np.dot(np_view(self), np_view(other)) if self.n_elem else 0
    return out


# ---- einsum -------------------------------------------------------------------------------

def einsum_cpu(str equation, tensors, path=None):
    """aten::einsum: a single operand's pure permutation is a view, as in PyTorch (no copy, any
    dtype); everything else is computed (_einsum_compute)."""
    tensors = tuple(tensors)
    order = _permutation_of(equation) if len(tensors) == 1 else None
    if order is not None and isinstance(tensors[0], TensorImpl) and len(order) == (<TensorImpl>tensors[0]).nd:
        return _permuted_view(<TensorImpl>tensors[0], order)
    return _einsum_compute(equation, tensors, path)


cdef object _permutation_of(str equation):
    """The dim order of `ij->ji`-style equations (distinct letters, the output a permutation of
    the input; implicit output: the letters sorted), else None."""
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    if not lhs.isalpha() or len(set(lhs)) != len(lhs):
        return None
    if not arrow:
        rhs = "".join(sorted(lhs))
    if sorted(rhs) != sorted(lhs) or not (rhs.isalpha() or rhs == ""):
        return None
    return [lhs.index(c) for c in rhs]


_EXPANDED_COPY_MOST = 1 << 24       # elements of an expanded operand einsum copies to sum it through BLAS


def _einsum_compute(str equation, tensors, path=None):
    """A float16 einsum computes in float32 and rounds once (PyTorch's opmath); a float16 operand
    mixed with wider floating ones is refused, as PyTorch's bmm refuses mixed dtypes."""
    cdef TensorImpl t
    cdef int k, d
    tensors = tuple(tensors)
    operands, out_labels, sizes, result_dtype = einsum_plan(equation, tensors)
    cdef int result_type = result_dtype.scalar_type
    cdef int compute_type = opmath_type(result_type)
    if compute_type == result_type:
        for obj in tensors:
            reject_half("einsum", <TensorImpl?>obj)
    # the operands as arrays, size-1 dims of a label broadcast to its size (stride 0)
    arrays = []
    for k in range(len(tensors)):
        t = <TensorImpl>tensors[k]
        if opmath_type(t.scalar_type) != t.scalar_type:
            t = cast_contiguous(t, compute_type)       # exact: NumPy has no bfloat16 to view it as
        a = np_view(t)
        if a.dtype != dtype_numpy(compute_type):
            a = a.astype(dtype_numpy(compute_type))
        ell = t.nd - len([l for l in operands[k] if l is not None])
        shape, strides, d = list(a.shape), list(a.strides), 0
        for l in operands[k]:
            if l is None:
                d += ell
                continue
            if shape[d] == 1 and sizes[l] != 1:
                shape[d], strides[d] = sizes[l], 0
            d += 1
        expanded = False
        for d in range(t.nd):
            expanded = expanded or (t.strides[d] == 0 and t.sizes[d] > 1)
        a = np.lib.stride_tricks.as_strided(a, tuple(shape), tuple(strides), writeable=False)
        if expanded and len(tensors) > 1 and a.size <= _EXPANDED_COPY_MOST:
            # an operand the program expanded (einops' repeat): NumPy would sum its products one by one in float32
            # (1e-5 off over 7e4 terms where BLAS is 4e-6 off, as PyTorch's bmm on the copy its reshape makes);
            # a large one is left as it is (a copy would cost memory PyTorch does not), as is a size-1 label's
            # broadcast, which PyTorch never makes either
            a = np.ascontiguousarray(a)
        arrays.append(a)
    def spec(labels):
        return "".join(["..." if l is None else l for l in labels])
    ell_shapes = []
    for k in range(len(arrays)):
        if None in operands[k]:
            start = operands[k].index(None)
            ell_shapes.append(arrays[k].shape[start:start + arrays[k].ndim - (len(operands[k]) - 1)])
    ell_shape = np.broadcast_shapes(*ell_shapes) if ell_shapes else ()
    # an output without the operands' ellipsis sums over its dims (NumPy wants them kept: they
    # are kept in front, then summed)
    summed_ellipsis = bool(ell_shapes) and None not in out_labels
    kept = [None] + out_labels if summed_ellipsis else out_labels
    subscripts = ",".join([spec(labels) for labels in operands]) + "->" + spec(kept)
    out_shape = []
    for l in out_labels:
        if l is None:
            out_shape.extend(ell_shape)
        else:
            out_shape.append(sizes[l])
    cdef TensorImpl out = new_tensor(tuple(out_shape), compute_type)
    if out.n_elem and summed_ellipsis:
        np_view(out)[...] = np.einsum(subscripts, *arrays, optimize=len(arrays) > 1).sum(
            axis=tuple(range(len(ell_shape))))
    elif out.n_elem:
        np.einsum(subscripts, *arrays, out=np_view(out), optimize=len(arrays) > 1)
    return out if compute_type == result_type else cast_contiguous(out, result_type)


cdef TensorImpl _permuted_view(TensorImpl t, list order):
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int d
    for d in range(t.nd):
        sizes[d], strides[d] = t.sizes[order[d]], t.strides[order[d]]
    return make_tensor(t.storage, t.offset, t.nd, sizes, strides, t.scalar_type, t.version_counter)


cdef object dtype_numpy(int st):
    return dtype_of(st).numpy_dtype
