"""What the generated autograd kernels (torchgen/templates/autograd_functions.py.j2) are made
of (PyTorch's VariableType): `AutogradKernel`, which runs an op below autograd and records its
backward node from a declarative description of what the node saves, in C; the checks of
in-place and out= calls under autograd; and the node that stands in for a missing formula.

Every differentiable op call with an input that requires grad runs `AutogradKernel.__call__`,
so it does its work without Python-level calls: the generated Python part of an op is only its
node's `apply` (the formulas), which runs at backward time."""
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from aten.dispatcher cimport OperatorHandle
from libc.stdint cimport uint64_t
from c10 cimport grad_mode
from c10.dispatch_key cimport DK_FORWARD_AD
from c10.scalar_type cimport dtype_of
from c10.tensor_impl cimport TensorImpl
from torch.csrc.autograd.graph cimport (Node, Edge, append_edges, edge_of, new_node, record_view_version, requires_grad,
                                        save, save_output, set_outputs, view_nodes_module)
from torch.csrc.autograd import graph

__all__ = ["AutogradKernel", "check_inplace", "check_out", "detach_", "NotImplementedBackward", "SAVE_KINDS", "Saved"]

# What a node saves of one argument (the generator's names for them: SAVE_KINDS).
cdef enum:
    SAVE_SIZES = 0         # tuple(x.shape), or None for an absent optional tensor
    SAVE_TENSOR = 1        # SavedVariable(x) (version-checked when unpacked)
    SAVE_LIST = 2          # [SavedVariable(t) or None, ...] for a tensor list
    SAVE_VALUE = 3         # x as it is (a number, a list of ints, a flag)
    SAVE_NEEDS = 4         # per tensor of a list: whether it requires grad
    SAVE_DTYPE = 5         # x.dtype
    SAVE_DIM = 6           # x.dim()
    SAVE_NUMEL = 7         # x.numel()
    SAVE_STRIDES = 8       # x.stride()
    SAVE_ARGS_SIZES = 9    # [tuple(t.shape) for t in x]
    SAVE_NONE = 10         # a fact Ember does not model (layout): None

SAVE_KINDS = {"sizes": SAVE_SIZES, "tensor": SAVE_TENSOR, "list": SAVE_LIST, "value": SAVE_VALUE,
              "needs": SAVE_NEEDS, "scalar_type": SAVE_DTYPE, "dim": SAVE_DIM, "numel": SAVE_NUMEL,
              "strides": SAVE_STRIDES, "args_sizes": SAVE_ARGS_SIZES, "layout": SAVE_NONE}
cdef dict _KIND_NAMES = {code: name for name, code in SAVE_KINDS.items()}


cdef class Saved:
    """What a node saves of one argument: the kind of fact (a SAVE_KINDS name) and the argument's
    position; a node's saved values are kept in the order of these descriptions. readers: for a saved
    tensor (or list), the formulas (by position) that read it: it is saved only when one of them will
    run, as PyTorch's should_compute_output, and None is kept otherwise."""
    cdef readonly int kind
    cdef readonly Py_ssize_t index
    cdef readonly object readers

    def __init__(self, str kind, Py_ssize_t index, tuple readers=None):
        if kind not in SAVE_KINDS:
            raise ValueError(f"unknown saved kind {kind!r}; expected one of {sorted(SAVE_KINDS)}")
        self.kind = SAVE_KINDS[kind]
        self.index = index
        self.readers = readers

    def __repr__(self):
        return f"Saved({_KIND_NAMES[self.kind]!r}, {self.index})"

cdef class AutogradKernel:
    """The autograd kernel of one op (or of an in-place variant, inplace=True): runs the op below
    autograd, then, if a differentiable input requires grad, records a `node_type` node.

    inputs: the argument positions whose gradients the node computes, in formula order (a tensor
    list gives one edge per tensor). saves: a Saved per saved value, in the order the node's apply
    unpacks `node._saved`. saves_result: 0 none, 1 the output, 2 the
    outputs (a tuple)."""
    cdef OperatorHandle op
    cdef type node_type
    cdef tuple names
    cdef tuple defaults
    cdef tuple inputs
    cdef tuple saves
    cdef object output_differentiability
    cdef int saves_result
    cdef bint is_view
    cdef bint inplace
    cdef bint clone_self                 # an in-place op whose formulas read self as it was
    cdef bint inplace_view               # t_, squeeze_...: changes a view's geometry, never its values
    cdef readonly str op_name

    def __init__(self, OperatorHandle op, type node_type, tuple names, tuple defaults, tuple inputs, tuple saves,
                 *, output_differentiability=None, int saves_result=0, bint is_view=False, bint inplace=False,
                 bint clone_self=False, bint inplace_view=False):
        self.op = op
        self.op_name = op.name
        self.node_type = node_type
        self.names = names
        self.defaults = defaults
        self.inputs = inputs
        for spec in saves:
            if not isinstance(spec, Saved):
                raise TypeError(f"AutogradKernel for {op.name}: saves must be Saved descriptions, got {spec!r}")
        self.saves = saves
        self.output_differentiability = output_differentiability
        self.saves_result = saves_result
        self.is_view = is_view
        self.inplace = inplace
        self.clone_self = clone_self
        self.inplace_view = inplace_view

    def __call__(self, *args, **kwargs):
        cdef list values = _bind(args, kwargs, self.names, self.defaults)
        # The dispatcher calls this only in grad mode; a backward formula calls it by name, in grad
        # mode only under create_graph, and then alone must it record
        cdef bint record = grad_mode.grad_enabled() and self._requires_grad(values)
        cdef tuple next_edges
        cdef TensorImpl base
        if not self.inplace:
            result = self.op.call_below(args, kwargs)
            if record:
                self._record(values, result, self._edges(values))
                if self.is_view:
                    record_view_version(result)
            return result
        if not record:
            return self.op.call_below(args, kwargs)
        check_inplace(values[0], self.op_name, self.inplace_view)
        # A write into a view (not a view op such as t_, which changes only the view): the
        # base's history is rebased (view_nodes.CopySlices).
        base = (<TensorImpl>values[0]).view_base if isinstance(values[0], TensorImpl) and not self.inplace_view \
            else None
        # The edges as they are before the write: the node replaces self's history.
        next_edges = self._edges(values)
        base_edge = edge_of(base) if base is not None else None
        if self.clone_self:
            original = values[0].clone()
            if (<TensorImpl?>values[0]).key_set & _FORWARD_AD_BIT:
                # the saved copy keeps self's tangents, copied (the write updates them in place), as PyTorch's
                # saved variables: forward over reverse (jvp of grad) differentiates the formulas reading it
                _forward_grad().copy_tangents(values[0], original, True)
        view = values[0]
        if self.clone_self:
            values[0] = original
        # The inputs are saved before the write, as PyTorch's: one that is (or shares memory with) self then
        # fails backward's version check instead of giving the gradient of the values after the write.
        cdef Node node = self._make_node(values, None, next_edges)
        result = self.op.call_below(args, kwargs)
        if base is None:
            set_outputs(node, result, self.output_differentiability)
        if self.saves_result == 1:
            node._saved_result = save_output(result, node)
        elif self.saves_result == 2:
            node._saved_result = tuple([save_output(r, node) for r in result])
        if base is not None:
            view_nodes_module().rebase_history(view, base, node, base_edge)
        return result

    cdef bint _read_by_needed(self, Saved spec, list values, tuple next_edges) except -1:
        """Whether a formula reading spec will run: an edge of its input (an entry of inputs) leads somewhere (a
        tensor list has one edge per tensor)."""
        cdef Py_ssize_t e = 0, k, j, count
        cdef tuple readers = <tuple>spec.readers
        for k in range(len(self.inputs)):
            value = values[<Py_ssize_t>self.inputs[k]]
            count = len(value) if isinstance(value, (list, tuple)) else 1
            if k in readers:
                for j in range(count):
                    if (<Edge>next_edges[e + j]).function is not None:
                        return True
            e += count
        return False

    cdef bint _requires_grad(self, list values) except -1:
        for i in self.inputs:
            if requires_grad(values[<Py_ssize_t>i]):
                return True
        return False

    cdef tuple _edges(self, list values):
        cdef list out = []
        for i in self.inputs:
            append_edges(out, values[<Py_ssize_t>i])
        return tuple(out)

    cdef int _record(self, list values, object result, tuple next_edges) except -1:
        cdef Node node = self._make_node(values, result, next_edges)
        set_outputs(node, result, self.output_differentiability)
        if self.saves_result == 1:
            node._saved_result = save_output(result, node)
        elif self.saves_result == 2:
            node._saved_result = tuple([save_output(r, node) for r in result])
        return 0

    cdef Node _make_node(self, list values, object result, tuple next_edges):
        """The op's node with its edges and saved values; result's history is set by the caller."""
        cdef Node node = new_node(self.node_type, next_edges)
        cdef Py_ssize_t n = len(self.saves), k
        cdef tuple saved = PyTuple_New(n)
        cdef object value                # an object: PyTuple_SET_ITEM steals the reference taken
        cdef Saved spec
        cdef bint every_input = _every_edge_leads(next_edges)     # the common case: every formula runs
        for k in range(n):
            spec = <Saved>self.saves[k]
            if spec.readers is not None and not every_input and not self._read_by_needed(spec, values, next_edges):
                Py_INCREF(None)
                PyTuple_SET_ITEM(saved, k, None)
                continue
            value = _saved_value(spec.kind, values[spec.index])
            Py_INCREF(value)
            PyTuple_SET_ITEM(saved, k, value)
        node._saved = saved
        return node


cdef uint64_t _FORWARD_AD_BIT = (<uint64_t>1) << DK_FORWARD_AD
cdef object _forward_grad_module = None


cdef object _forward_grad():
    global _forward_grad_module
    if _forward_grad_module is None:
        from torch.csrc.autograd import forward_grad
        _forward_grad_module = forward_grad
    return _forward_grad_module


cdef bint _every_edge_leads(tuple next_edges):
    cdef Py_ssize_t i
    for i in range(len(next_edges)):
        if (<Edge>next_edges[i]).function is None:
            return False
    return True


cdef object _saved_value(int kind, object x):
    cdef TensorImpl t
    if kind == SAVE_VALUE:
        return x
    if kind == SAVE_TENSOR:
        return save(x)
    if kind == SAVE_SIZES:
        return None if x is None else _sizes(<TensorImpl>x)
    if kind == SAVE_LIST:
        return [save(t) if t is not None else None for t in x]
    if kind == SAVE_NEEDS:
        return tuple([t is not None and requires_grad(t) for t in x])
    if kind == SAVE_ARGS_SIZES:
        return [_sizes(<TensorImpl>t) for t in x]
    if kind == SAVE_NONE or x is None:
        return None
    t = <TensorImpl>x
    if kind == SAVE_DTYPE:
        return dtype_of(t.scalar_type)
    if kind == SAVE_DIM:
        return t.nd
    if kind == SAVE_NUMEL:
        return t.n_elem
    if kind == SAVE_STRIDES:
        return tuple([t.strides[i] for i in range(t.nd)])
    raise ValueError(f"AutogradKernel: unknown save kind {kind}")


cdef tuple _sizes(TensorImpl t):
    cdef tuple out = PyTuple_New(t.nd)
    cdef Py_ssize_t i
    cdef object size                 # a Python int: PyTuple_SET_ITEM steals the reference taken
    for i in range(t.nd):
        size = t.sizes[i]
        Py_INCREF(size)
        PyTuple_SET_ITEM(out, i, size)
    return out


cdef list _bind(tuple args, dict kwargs, tuple names, tuple defaults):
    """The call's argument values in schema order (defaults filled in)."""
    cdef Py_ssize_t n = len(args)
    cdef list values = list(args)
    if n < len(defaults):
        values.extend(defaults[n:])
    if kwargs:
        for key, value in kwargs.items():
            values[names.index(key)] = value
    return values




cpdef check_inplace(object self, str op, bint inplace_view=False):
    """An in-place op under autograd: never on a leaf that requires grad, nor on a view of one
    (unless the op only changes the view's geometry: the schema's inplace_view tag, t_, squeeze_...)."""
    if self.requires_grad and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if inplace_view or not isinstance(self, TensorImpl):
        return
    base = (<TensorImpl>self).view_base
    if base is not None and base.requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def check_out(str op, list values):
    if any(requires_grad(v) for v in values):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.")


def detach_(self):
    """detach_'s autograd kernel (written by hand, as PyTorch's): self leaves the graph."""
    graph.clear_history(self)
    return self


class NotImplementedBackward(graph.Node):
    """Recorded for an op without a derivative formula: differentiating through it raises."""

    def __init__(self, op, next_functions):
        super().__init__(next_functions)
        self.op = op

    def name(self):
        return "NotImplemented"

    def apply(self, grads):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")
