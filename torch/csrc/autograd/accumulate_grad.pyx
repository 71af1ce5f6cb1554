"""A leaf's gradient accumulation (AccumulateGrad's step, graph.pyx): the first gradient stored, later
ones added, with PyTorch's layout contract and its theft of a gradient nobody else holds.
"""
from cpython.ref cimport Py_REFCNT

from c10 cimport grad_mode
from c10.storage cimport Storage
from libc.stdint cimport uint64_t
from c10.dispatch_key cimport DK_FUNCTORCH_BATCHED
from c10.tensor_impl cimport TensorImpl, non_overlapping_and_dense
from torch.csrc.autograd.hook_handles import PostAccumulateHook

# vmap: a gradient still batched over a vmap that has returned is summed over its examples where it meets a
# gradient that is not (two paths into one tensor) and where it reaches a leaf or an input of autograd.grad
# (torch._functorch.batched's reduce_finished_levels and merge, installed here by vmap).
cdef object _batched_reducer = None
cdef object _batched_merge = None
cdef uint64_t _BATCHED = (<uint64_t>1) << DK_FUNCTORCH_BATCHED


def install_batched_reducer(reducer, merge):
    global _batched_reducer, _batched_merge
    _batched_reducer, _batched_merge = reducer, merge


cdef object add_grads(object a, object b):
    """a + b, two gradients of one tensor (the engine's buffers)."""
    if _batched_merge is not None and ((<TensorImpl>a).key_set | (<TensorImpl>b).key_set) & _BATCHED:
        return _batched_merge(a, b)
    return a + b


cdef int reduce_finished_vmaps(list grads) except -1:
    if _batched_reducer is None:
        return 0
    for i, g in enumerate(grads):
        if g is not None and (<TensorImpl>g).key_set & _BATCHED:
            grads[i] = _batched_reducer(g)
    return 0


cdef int accumulate(object variable, tuple grads) except -1:
    """AccumulateGrad's step. A first gradient the engine made and nothing else holds is stored as it is
    (PyTorch's AccumulateGrad steals it the same way, by its use count): every training step that
    starts from .grad = None (zero_grad's default) then skips a copy of each parameter's gradient."""
    cdef object new_grad = grads[0]
    if new_grad is not None and variable.grad is None and _stealable(new_grad, variable, grads):
        variable.grad = new_grad
    else:
        accumulate_grad(variable, new_grad)
    hooks = variable.__dict__.get("_leaf_hooks")
    if hooks:       # its post-accumulate hooks (Tensor.register_post_accumulate_grad_hook), on the updated .grad
        for fn in list(hooks):
            if type(fn) is PostAccumulateHook:
                fn.fn(variable)
    return 0


cdef enum:
    # The references to a gradient the engine made, as _accumulate sees it: the engine's step tuple and
    # _accumulate's own local (the engine drops its other references first: run_backward); to the
    # step tuple: the engine's local, apply's argument and _accumulate's. Any more, and someone else
    # (a hook, another leaf's buffer, the caller of backward) holds it.
    ENGINE_GRAD_REFS = 2
    ENGINE_STEP_REFS = 3


cdef bint _stealable(object grad, object variable, tuple grads):
    """Whether grad can become variable's .grad without a copy: no graph is being built, nothing but the
    engine holds it (nor its storage: no other tensor on that memory, a view only of a base nothing else
    holds, memory of its own),
    and it already has the layout _grad_like would give the copy (the leaf's strides, same dtype and
    device)."""
    cdef TensorImpl g, v, base
    cdef Storage storage
    cdef int d
    if grad_mode.grad_enabled() or not isinstance(grad, TensorImpl) or not isinstance(variable, TensorImpl):
        return False
    if Py_REFCNT(grad) > ENGINE_GRAD_REFS or Py_REFCNT(grads) > ENGINE_STEP_REFS:
        return False
    g, v = <TensorImpl>grad, <TensorImpl>variable
    storage = g.storage
    base = g.view_base
    if base is not None:
        # a view of a tensor nobody else holds (a product's gradient made transposed, in the leaf's
        # layout): refs to base are g's and this local; to storage base's, g's and this local
        if Py_REFCNT(base) != 2 or Py_REFCNT(storage) != 3:
            return False
    elif Py_REFCNT(storage) != 2:     # g's and this local
        return False
    if not (storage.owns_data or storage.device_type != 0 and _allocator_memory(storage)):
        return False
    if grad.requires_grad or g.scalar_type != v.scalar_type or g.device_obj != v.device_obj or g.nd != v.nd:
        return False
    if not non_overlapping_and_dense(v.nd, v.sizes, v.strides):
        return g.contiguous
    for d in range(v.nd):
        if g.sizes[d] != v.sizes[d] or (g.sizes[d] != 1 and g.strides[d] != v.strides[d]):
            return False
    return True


cdef object _Block = None


cdef bint _allocator_memory(Storage storage) except -1:
    """Device memory of the CUDA caching allocator's (a Block, which only this storage holds), not memory
    borrowed from another library (DLPack)."""
    global _Block
    if _Block is None:
        from c10.cuda.caching_allocator import Block    # a CUDA tensor exists: c10.cuda is loaded
        _Block = Block
    return type(storage.owner) is _Block


def accumulate_grad(variable, new_grad):
    """variable.grad += new_grad as PyTorch's AccumulateGrad: the first gradient is stored as a copy (the incoming
    one may be the caller's), later ones add in place, or out of place under create_graph (the sum differentiable)."""
    if new_grad is None:
        return
    old = variable.grad
    if old is None:
        variable.grad = _grad_like(new_grad, variable)
    elif grad_mode.grad_enabled():
        variable.grad = old + new_grad
    else:
        old.add_(new_grad)


cdef object _grad_like(TensorImpl grad, TensorImpl variable):
    """A first gradient's copy under PyTorch's layout contract: the leaf's strides where it is dense (an
    optimizer then walks both alike; a transposed mm gradient would make every update strided), else contiguous."""
    if non_overlapping_and_dense(variable.nd, variable.sizes, variable.strides):
        return grad.new_empty_strided(variable.shape, variable.stride()).copy_(grad)
    return grad.clone() if grad.contiguous else (<object>grad).contiguous()
