"""The autograd graph and its engine (torch/csrc/autograd/{function,engine}.cpp, in Cython).

A Node is one backward function: `apply(grads)` maps the gradients of its forward outputs to the gradients of its
forward inputs, which flow along its `next_edges` (one Edge per input: the input's grad_fn and output number, its
AccumulateGrad for a leaf, or None; Python reads them as PyTorch's `next_functions` pairs). The engine counts each
node's dependencies from the roots, then runs nodes whose inputs are complete, highest sequence number first (the
reverse of creation, as PyTorch's ready queue), summing the gradients that meet at one input.

Tensors keep their autograd state as attributes (`_grad_fn`, `_output_nr`, `_requires_grad`, `grad`,
`_retains_grad`, `_hooks`); this module reads and writes them through the helpers below.
"""
import cython
import heapq
import itertools
from _thread import allocate_lock

from torch.csrc.autograd.hook_handles import ListHookHandle, PostAccumulateHook

from libc.stdint cimport uint64_t
from cpython.dict cimport PyDict_GetItemWithError
from cpython.object cimport PyObject, PyTypeObject
from cpython.weakref cimport PyWeakref_NewRef, PyWeakref_GetObject
from c10 cimport grad_mode
from c10.dispatch_key cimport DK_AUTOGRAD_CPU, DK_AUTOGRAD_CUDA
from c10.scalar_type cimport dtype_of, is_floating, is_complex
from c10.tensor_impl cimport TensorImpl
from torch.csrc.autograd.accumulate_grad cimport accumulate, add_grads, reduce_finished_vmaps

cdef extern from "Python.h":
    object PyObject_GenericGetDict(object o, void* context)

cdef uint64_t _sequence = 0             # creation order of nodes: the ready queue runs the newest first
cdef bint _anomaly_enabled = False        # torch.autograd.set_detect_anomaly
cdef bint _anomaly_check_nan = True
cdef object _INF = float("inf")


def set_anomaly_mode(bint enabled, bint check_nan=True):
    """Anomaly detection on or off: nodes record their forward stack, and (with check_nan) NaN gradients raise."""
    global _anomaly_enabled, _anomaly_check_nan
    _anomaly_enabled = enabled
    _anomaly_check_nan = check_nan


def anomaly_mode():
    return (_anomaly_enabled, _anomaly_check_nan)

SECOND_BACKWARD = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
                   "have already been freed). Saved intermediate values of the graph are freed when you call "
                   ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                   "graph a second time or if you need to access saved tensors after calling backward.")


@cython.freelist(64)
cdef class Edge:
    """One edge of the graph (PyTorch's torch::autograd::Edge): the gradient of a forward input flows into input
    `input_nr` of `function`, or nowhere when function is None. It reads as PyTorch's pair (function, input_nr)."""

    def __init__(self, function, Py_ssize_t input_nr):
        if function is not None and not isinstance(function, Node):
            raise TypeError(f"an edge leads to an autograd Node or None, not {type(function).__name__}")
        self.function = function
        self.input_nr = input_nr

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return (self.function, self.input_nr)[index]

    def __iter__(self):
        return iter((self.function, self.input_nr))

    def __eq__(self, other):
        if isinstance(other, Edge):
            return self.function is (<Edge>other).function and self.input_nr == (<Edge>other).input_nr
        if isinstance(other, tuple):
            return (self.function, self.input_nr) == other
        return NotImplemented

    def __hash__(self):
        return hash((self.function, self.input_nr))

    def __repr__(self):
        return repr((self.function, self.input_nr))


cdef Edge make_edge(object function, Py_ssize_t input_nr):
    """Edge(function, input_nr) without a Python-level call (function: a Node or None)."""
    cdef Edge edge = Edge.__new__(Edge)
    edge.function = function
    edge.input_nr = input_nr
    return edge


cdef tuple _as_edges(object pairs):
    """Edges from Edges or (function, input_nr) pairs."""
    cdef list out = []
    for pair in pairs:
        if isinstance(pair, Edge):
            out.append(pair)
        else:
            function, input_nr = pair
            out.append(Edge(function, input_nr))
    return tuple(out)


def set_next_edges(Node node, pairs):
    """node's edges, from Edges or (function, input_nr) pairs (autograd.Function sets them after
    its forward ran)."""
    node.next_edges = _as_edges(pairs)


cdef int _init_node(Node node, tuple next_edges) except -1:
    global _sequence
    node.next_edges = next_edges
    node._sequence_nr = _sequence
    _sequence += 1
    # Hook containers are made on first use: most nodes never get a hook.
    node._input_metadata = []
    if _anomaly_enabled:
        import traceback
        node.metadata["traceback_"] = traceback.format_stack()
    return 0


cdef tuple _NO_ARGS = ()


cdef Node new_node(type node_type, tuple next_edges):
    """A node of a (generated) Node subclass, without a Python-level __init__ call (the type's tp_new called
    directly: Node.__new__(node_type) went through a Python method call)."""
    cdef Node node = <Node>(<PyTypeObject*>node_type).tp_new(node_type, <PyObject*>_NO_ARGS, NULL)
    _init_node(node, next_edges)
    return node


cdef class Node:
    """One backward function of the graph."""

    def __init__(self, next_functions=()):
        _init_node(self, _as_edges(next_functions))

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        """PyTorch's view of the edges: a (function, input_nr) pair per forward input."""
        return tuple([((<Edge>e).function, (<Edge>e).input_nr) for e in self.next_edges])

    @next_functions.setter
    def next_functions(self, value):
        raise AttributeError(f"attribute 'next_functions' of '{type(self).__name__}' objects is not writable")

    @property
    def needs(self):
        """Per next edge, whether that input needs a gradient (the formulas' grad_input_mask): made from
        the edges on first read, in backward, unless set (recording a forward only never pays for it)."""
        if self._needs is None:
            self._needs = needs(self.next_edges)
        return self._needs

    @needs.setter
    def needs(self, value):
        self._needs = None if value is None else tuple(value)

    @property
    def metadata(self):
        """A dict for the user's own data about this node."""
        if self._metadata_dict is None:
            self._metadata_dict = {}
        return self._metadata_dict

    def apply(self, grads):
        raise NotImplementedError(f"{self.name()}.apply")

    def release_variables(self):
        """Free what the node saved for backward (after a backward without retain_graph)."""
        self._released = True
        if self._saved is not None:
            for value in self._saved:
                if isinstance(value, SavedVariable):
                    (<SavedVariable>value).release()
                elif isinstance(value, list):
                    for v in value:
                        if isinstance(v, SavedVariable):
                            (<SavedVariable>v).release()
        if isinstance(self._saved_result, SavedVariable):
            (<SavedVariable>self._saved_result).release()
        elif isinstance(self._saved_result, tuple):
            for v in self._saved_result:
                (<SavedVariable>v).release()

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after the node runs; a returned tuple replaces grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = []
        self._post_hooks.append(fn)
        return ListHookHandle(self._post_hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) before the node runs; a returned tuple replaces grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        return ListHookHandle(self._pre_hooks, fn)

    def _register_tensor_hook(self, int output_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return ListHookHandle(hooks, fn)

    def _register_retain_grad(self, int output_nr, tensor_ref):
        if self._retain_grad_tensors is None:
            self._retain_grad_tensors = {}
        self._retain_grad_tensors[output_nr] = tensor_ref

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"


cdef class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds the incoming gradient into `variable.grad`."""

    def __init__(self, variable):
        _init_accumulator(self, variable)

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads):
        # PyTorch's AccumulateGrad mutex: backward passes on several threads reaching one leaf (Hogwild)
        # each add their whole gradient, never both seeing no .grad or interleaving add_ (GIL released).
        # The lock is the leaf's, made once, so every accumulator a leaf ever has shares it.
        cdef dict state = self.variable.__dict__
        lock = state.get("_accumulation_lock")
        if lock is None:
            lock = state.setdefault("_accumulation_lock", allocate_lock())    # atomic: one lock wins
        with lock:
            accumulate(self.variable, grads)
        return ()


cdef int _init_accumulator(AccumulateGrad node, object variable) except -1:
    node.next_edges = ()
    node.variable = variable
    node._sequence_nr = _INF            # PyTorch's UINT64_MAX: ready leaves accumulate first
    node._input_metadata = [None]       # the engine checks gradients against the variable itself
    return 0


cdef object _metadata(t):
    return (t.shape, t.dtype, t.device)


def register_leaf_hook(tensor, fn):
    """fn(grad) before a leaf's gradient is accumulated (or captured by autograd.grad); kept on
    the leaf itself, so it holds for every graph that uses the leaf, made before or after."""
    hooks = tensor.__dict__.get("_leaf_hooks")
    if hooks is None:
        hooks = tensor.__dict__["_leaf_hooks"] = []
    hooks.append(fn)
    return ListHookHandle(hooks, fn)


def set_requires_grad_flag(tensor, bint flag):
    """A leaf's requires_grad; the tensor's Autograd dispatch key follows it."""
    tensor._requires_grad = flag
    tensor._set_autograd_key(flag or tensor._grad_fn is not None)


def set_history(tensor, Node node, int output_nr):
    """tensor is output output_nr of node's forward: gradients for it flow into node."""
    tensor._grad_fn = node
    tensor._output_nr = output_nr
    tensor._set_autograd_key(True)


def clear_history(tensor):
    """detach_(): no grad_fn, no requires_grad."""
    tensor.__dict__.pop("_grad_fn", None)
    tensor._requires_grad = False
    tensor._set_autograd_key(False)


cpdef AccumulateGrad grad_accumulator(object tensor):
    """The AccumulateGrad node of a leaf that requires grad (made once, held weakly by the tensor,
    as PyTorch's: every edge to it keeps it alive). A graph that dies takes its accumulators with it,
    so a loop recording `a + b` remakes two per step: the weak reference is made and read through
    the C API (through weakref.ref's Python call it was half of recording that add)."""
    cdef dict state = <dict>PyObject_GenericGetDict(tensor, NULL)
    cdef PyObject* ref = PyDict_GetItemWithError(state, "_grad_accumulator")
    cdef PyObject* alive
    if ref != NULL:
        alive = PyWeakref_GetObject(<object>ref)
        if alive != <PyObject*>None:
            return <AccumulateGrad>alive
    cdef AccumulateGrad fresh = AccumulateGrad.__new__(AccumulateGrad)
    _init_accumulator(fresh, tensor)
    state["_grad_accumulator"] = PyWeakref_NewRef(fresh, None)
    return fresh


# -- views: their history follows their base's (view_nodes.py) ---------------------------------

cdef object _view_nodes = None


cdef object view_nodes_module():
    """torch.csrc.autograd.view_nodes (Python; imported on the first view whose history changes)."""
    global _view_nodes
    if _view_nodes is None:
        from torch.csrc.autograd import view_nodes
        _view_nodes = view_nodes
    return _view_nodes


cdef int _refresh_view(TensorImpl view) except -1:
    """A view whose base was written (through the base or another alias: the shared version
    counter moved) since its history was recorded gets the history of a view of the base's
    current one, as PyTorch regenerates a view's grad_fn."""
    recorded = view.__dict__.get("_view_version")
    if recorded is None or recorded == view.version_counter.version:
        return 0
    base_edge = edge_of(view.view_base)
    if base_edge.function is None:
        view.__dict__["_view_version"] = view.version_counter.version
        return 0
    view_nodes_module().replay_view(view, view.view_base, base_edge)
    return 0


cpdef int record_view_version(object result) except -1:
    """The version at which a view output got its history (what _refresh_view compares)."""
    if isinstance(result, TensorImpl):
        if (<TensorImpl>result).view_base is not None and ((<TensorImpl>result).key_set & _AUTOGRAD_KEYS):
            result.__dict__["_view_version"] = (<TensorImpl>result).version_counter.version
    elif isinstance(result, (list, tuple)):
        for r in result:
            record_view_version(r)
    return 0


def set_view_history(view, Node node):
    """view is the one output of node (a view's regenerated or rebased history)."""
    cdef TensorImpl impl = <TensorImpl?>view
    _set_output(node, impl, 0)
    node._input_metadata = [(impl.shape, dtype_of(impl.scalar_type), impl.device_obj)]
    record_view_version(view)


def current_grad_fn(view):
    """grad_fn of a tensor, brought up to date first when it is a view whose base was written."""
    if isinstance(view, TensorImpl) and (<TensorImpl>view).view_base is not None and \
            ((<TensorImpl>view).key_set & _AUTOGRAD_KEYS):
        _refresh_view(<TensorImpl>view)
    return view._grad_fn


def gradient_edge(tensor):
    """The Edge a gradient for tensor flows into: its grad_fn, or its accumulator."""
    return edge_of(tensor)


# -- what every autograd kernel does, in C ----------------------------------------------------

cdef uint64_t _AUTOGRAD_KEYS = ((<uint64_t>1) << DK_AUTOGRAD_CPU) | ((<uint64_t>1) << DK_AUTOGRAD_CUDA)


cpdef bint requires_grad(object value):
    """Whether a value (a tensor, or a list or tuple of them, nested) requires grad: its Autograd
    dispatch key, which follows requires_grad and grad_fn."""
    if isinstance(value, TensorImpl):
        return ((<TensorImpl>value).key_set & _AUTOGRAD_KEYS) != 0
    if isinstance(value, (list, tuple)):
        for v in value:
            if requires_grad(v):
                return True
    return False


cdef Edge _NO_EDGE = make_edge(None, 0)


cdef Edge edge_of(object value):
    if isinstance(value, TensorImpl) and ((<TensorImpl>value).key_set & _AUTOGRAD_KEYS):
        if (<TensorImpl>value).view_base is not None:
            _refresh_view(<TensorImpl>value)
        # the tensor's dict read directly: attribute access first walks the class for descriptors
        state = <dict>PyObject_GenericGetDict(value, NULL)
        fn = <object>found if (found := PyDict_GetItemWithError(state, "_grad_fn")) != NULL else None
        if fn is not None:
            return make_edge(fn, state.get("_output_nr", 0))
        return make_edge(grad_accumulator(value), 0)
    return _NO_EDGE


cpdef tuple edges(tuple values):
    """The edges of the differentiable inputs (a tensor list gives one edge per tensor)."""
    cdef list out = []
    for v in values:
        append_edges(out, v)
    return tuple(out)


cdef int append_edges(list out, object value) except -1:
    """The edge of a tensor input, or one per tensor of a list input."""
    if isinstance(value, (list, tuple)):
        for t in value:
            out.append(edge_of(t))
    else:
        out.append(edge_of(value))
    return 0


cpdef tuple needs(tuple next_edges):
    """Which inputs need a gradient (grad_input_mask): those with an edge."""
    return tuple([(<Edge>e).function is not None for e in next_edges])


cpdef set_outputs(Node node, object result, object differentiable=None):
    """Make node the grad_fn of result's floating and complex outputs; record their metadata for checks."""
    cdef TensorImpl impl
    if isinstance(result, TensorImpl):
        impl = <TensorImpl>result
        if (is_floating(impl.scalar_type) or is_complex(impl.scalar_type)) and (differentiable is None or differentiable[0]):
            _set_output(node, impl, 0)
            node._input_metadata = [(impl.shape, dtype_of(impl.scalar_type), impl.device_obj)]
        else:
            node._input_metadata = [None]
        return
    cdef list metadata = []
    cdef tuple outputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    cdef Py_ssize_t i
    for i in range(len(outputs)):
        out = outputs[i]
        if (isinstance(out, TensorImpl) and (is_floating((<TensorImpl>out).scalar_type)
                                             or is_complex((<TensorImpl>out).scalar_type))
                and (differentiable is None or differentiable[i])):
            impl = <TensorImpl>out
            _set_output(node, impl, i)
            metadata.append((impl.shape, dtype_of(impl.scalar_type), impl.device_obj))
        else:
            metadata.append(None)
    node._input_metadata = metadata


cdef inline int _set_output(Node node, TensorImpl out, Py_ssize_t output_nr) except -1:
    cdef dict state = <dict>PyObject_GenericGetDict(out, NULL)      # not setattr's type lookups
    state["_grad_fn"] = node
    state["_output_nr"] = output_nr
    out.key_set |= (<uint64_t>1) << (DK_AUTOGRAD_CPU if out.device_type == 0 else DK_AUTOGRAD_CUDA)
    return 0


# torch.autograd.graph.saved_tensors_hooks: each thread's (pack, unpack) pairs, innermost last. While
# one is active, a saved tensor is stored as pack(tensor) and given back as unpack(packed). The depth
# is a C thread-local (what save() checks on every call); the pairs live in a threading.local.
cdef extern from *:
    """
    static __thread int ember_saved_hook_depth = 0;
    """
    int ember_saved_hook_depth

import threading as _threading
_saved_hooks = _threading.local()


cdef list _hook_stack():
    return _saved_hooks.__dict__.setdefault("stack", [])


def push_saved_tensors_hooks(pack_hook, unpack_hook):
    global ember_saved_hook_depth
    _hook_stack().append((pack_hook, unpack_hook))
    ember_saved_hook_depth += 1


def pop_saved_tensors_hooks():
    global ember_saved_hook_depth
    _hook_stack().pop()
    ember_saved_hook_depth -= 1


cdef int _pack(SavedVariable saved, object tensor) except -1:
    stack = _hook_stack()
    pack_hook, unpack_hook = stack[len(stack) - 1]
    saved.packed = pack_hook(tensor)
    saved.unpack_hook = unpack_hook
    saved.tensor = None
    return 0


cdef SavedVariable save(object tensor):
    """SavedVariable(tensor), without a Python-level call."""
    cdef SavedVariable saved = SavedVariable.__new__(SavedVariable)
    saved.tensor = tensor
    if tensor is not None:
        saved.saved_version = tensor._version
        if ember_saved_hook_depth:
            _pack(saved, tensor)
    return saved


cdef SavedVariable save_output(object tensor, Node node):
    """SavedVariable(tensor, True, node): an output of node's forward, saved by node."""
    return SavedVariable(tensor, True, node)


cdef class SavedVariable:
    """A tensor saved for backward, with the version it had: unpacking after an in-place change,
    or after the graph was freed, raises PyTorch's errors."""

    def __init__(self, tensor, bint is_output=False, node=None):
        self.tensor = tensor
        self.released = False
        if tensor is not None:
            self.saved_version = tensor._version
            self.was_output = is_output
            self.output_nr = tensor._output_nr if is_output else 0
            self.grad_fn_name = node.name() if (is_output and node is not None) else None
            if ember_saved_hook_depth:
                _pack(self, tensor)

    def unpack(self):
        if self.released:
            raise RuntimeError(SECOND_BACKWARD)
        if self.unpack_hook is not None:
            return self.unpack_hook(self.packed)
        t = self.tensor
        if t is None:
            return None
        if t._version != self.saved_version:
            what = f"[torch.{t.dtype.type_name}Tensor [{', '.join(str(s) for s in t.shape)}]]"
            if self.grad_fn_name is not None:
                what += f", which is output {self.output_nr} of {self.grad_fn_name},"
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"{what} is at version {t._version}; expected version {self.saved_version} instead. Hint: enable "
                f"anomaly detection to find the operation that failed to compute its gradient, with "
                f"torch.autograd.set_detect_anomaly(True, check_nan=False).")
        return t

    def release(self):
        self.tensor = None
        self.packed = None
        self.released = True


# -- the engine --------------------------------------------------------------------------------

cdef dict _dependencies(list roots):
    cdef dict deps = {}
    seen = set()
    # Each node once: several roots may share one (the outputs of unbind, var_mean...), and
    # counting its edges twice left the nodes below it waiting forever.
    stack = list(dict.fromkeys(node for node in roots if node is not None))
    for node in stack:
        seen.add(id(node))
    while stack:
        node = stack.pop()
        for edge in (<Node>node).next_edges:
            nxt = (<Edge>edge).function
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return deps


cdef set _needed(list roots, set targets):
    """The nodes from which a target can be reached (only those run when inputs are given)."""
    cdef dict memo = {}
    order = []
    stack = [(node, False) for node in roots if node is not None]
    while stack:
        node, expanded = stack.pop()
        if id(node) in memo and not expanded:
            continue
        if expanded:
            needed = id(node) in targets or any(
                (<Edge>e).function is not None and memo.get(id((<Edge>e).function), False)
                for e in (<Node>node).next_edges)
            memo[id(node)] = needed
            continue
        memo[id(node)] = False
        stack.append((node, True))
        for e in (<Node>node).next_edges:
            nxt = (<Edge>e).function
            if nxt is not None and id(nxt) not in memo:
                stack.append((nxt, False))
    return {k for k, v in memo.items() if v}


cdef object _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return add_grads(a, b)


cdef tuple _call_pre_hooks(Node node, list grads):
    cdef list leaf_hooks = None
    if isinstance(node, AccumulateGrad):
        # A leaf's hooks live on the leaf (its accumulator may be made after they are, and is
        # held only by the graphs using it), as PyTorch's AccumulateGrad::tensor_pre_hooks.
        leaf_hooks = (<AccumulateGrad>node).variable.__dict__.get("_leaf_hooks")
        if leaf_hooks and grads and grads[0] is not None:
            for fn in list(leaf_hooks):
                if type(fn) is PostAccumulateHook:
                    continue
                replaced = fn(grads[0])
                if replaced is not None:
                    grads[0] = replaced
    if node._tensor_pre_hooks is None and node._retain_grad_tensors is None and node._pre_hooks is None:
        return tuple(grads)
    for nr, hooks in (node._tensor_pre_hooks or {}).items():
        for fn in list(hooks):
            if nr < len(grads) and grads[nr] is not None:
                replaced = fn(grads[nr])
                if replaced is not None:
                    grads[nr] = replaced
    for nr, ref in (node._retain_grad_tensors or {}).items():
        tensor = ref()
        if tensor is not None and nr < len(grads) and grads[nr] is not None:
            g = grads[nr]
            tensor.grad = g.detach().clone() if tensor.grad is None else tensor.grad + g
    result = tuple(grads)
    for fn in list(node._pre_hooks or ()):
        replaced = fn(result)
        if replaced is not None:
            result = tuple(replaced)
    return result


cdef object _validate(Node node, Py_ssize_t i, object grad, Edge edge):
    """A gradient must have its input's shape; a different dtype is cast, as PyTorch's
    validate_outputs does."""
    nxt = edge.function
    if grad is None or nxt is None:
        return grad
    if isinstance(nxt, AccumulateGrad):
        shape, dtype, device = _metadata((<AccumulateGrad>nxt).variable)
    elif len((<Node>nxt)._input_metadata) > edge.input_nr and (<Node>nxt)._input_metadata[edge.input_nr] is not None:
        shape, dtype, device = (<Node>nxt)._input_metadata[edge.input_nr]
    else:
        return grad
    if grad.shape != shape:
        expanded = _sum_to(grad, shape)
        if expanded is None:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{list(grad.shape)} but expected shape compatible with {list(shape)}")
        grad = expanded
    if grad.dtype != dtype:
        # a real input of a complex computation takes the real part (upstream's handle_r_to_c)
        grad = (grad.real if grad.dtype.is_complex and not dtype.is_complex else grad).to(dtype)
    return grad


cdef object _sum_to(grad, shape):
    """grad summed down to shape (functions_manual.sum_to) when shape broadcasts to grad's shape, else None."""
    gshape = tuple(grad.shape)
    shape = tuple(shape)
    lead = len(gshape) - len(shape)
    if lead < 0:
        return None
    for have, want in zip(gshape[lead:], shape):
        if want != 1 and have != want:
            return None
    from torch.csrc.autograd.functions_manual import sum_to
    return sum_to(grad, shape)


cdef int _check_nan(Node node, tuple outputs) except -1:
    import warnings
    for i, g in enumerate(outputs):
        if g is not None and (g.dtype.is_floating_point or g.dtype.is_complex) and bool(g.isnan().any()):
            stack = "".join(node.metadata.get("traceback_", ()))
            warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{stack}",
                          UserWarning, stacklevel=2)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    return 0


def run_backward(tuple roots, tuple grads, bint keep_graph, bint create_graph, tuple inputs=(),
                 bint allow_unused=True, bint accumulate_grad=True):
    """Propagate grads from roots (tensors) through the graph.

    accumulate_grad=True (Tensor.backward): leaves add into `.grad`; with inputs, only those
    get gradients. False (autograd.grad): the gradients of inputs are returned, nothing is
    accumulated."""
    cdef Edge edge
    root_edges = [edge_of(t) for t in roots]
    for i, edge in enumerate(root_edges):
        if edge.function is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    input_edges = []
    for t in inputs:
        edge = edge_of(t)
        if edge.function is None and not accumulate_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        input_edges.append(edge)
    targets = {id(edge.function) for edge in input_edges if edge.function is not None}
    captured = [None] * len(inputs)
    capture_at = {}
    for i, edge in enumerate(input_edges):
        if edge.function is not None:
            capture_at.setdefault(id(edge.function), []).append((edge.input_nr, i))

    root_nodes = [edge.function for edge in root_edges]
    deps = _dependencies(root_nodes)
    needed = _needed(root_nodes, targets) if inputs else None
    buffers = {}
    for edge, g in zip(root_edges, grads):
        node, nr = edge.function, edge.input_nr
        buf = buffers.setdefault(node, [None] * max(1, len(node._input_metadata), nr + 1))
        if len(buf) <= nr:
            buf.extend([None] * (nr + 1 - len(buf)))
        buf[nr] = _add(buf[nr], g)
    ready = []
    counter = itertools.count()
    for node in dict.fromkeys(root_nodes):
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._sequence_nr, next(counter), node))

    previous_mode = grad_mode.grad_enabled()
    grad_mode.set_grad_enabled_flag(create_graph)
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            inputs_grads = buffers.pop(node, [None])
            if needed is not None and id(node) not in needed:
                continue
            if isinstance(node, AccumulateGrad) or id(node) in capture_at:
                reduce_finished_vmaps(inputs_grads)
            step = _call_pre_hooks(<Node>node, inputs_grads)
            inputs_grads = None
            for output_nr, index in capture_at.get(id(node), ()):
                captured[index] = step[output_nr] if output_nr < len(step) else None
            if id(node) in capture_at and not accumulate_grad:
                # autograd.grad: the gradient was wanted here; run on only if something beyond needs it.
                if not any((<Edge>e).function is not None and id((<Edge>e).function) in needed
                           for e in (<Node>node).next_edges):
                    continue
            if not accumulate_grad and isinstance(node, AccumulateGrad):
                continue
            outputs = node.apply(step)
            outputs = tuple(outputs) if outputs is not None else ()
            for fn in list((<Node>node)._post_hooks or ()):
                replaced = fn(outputs, step)
                if replaced is not None:
                    outputs = tuple(replaced)
            if _anomaly_enabled and _anomaly_check_nan:
                _check_nan(<Node>node, outputs)
            if not keep_graph:
                node.release_variables()
            nexts = (<Node>node).next_edges
            if len(outputs) != len(nexts):
                raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                                   f"(expected {len(nexts)}, got {len(outputs)})")
            for i, (grad, edge) in enumerate(zip(outputs, nexts)):
                nxt = edge.function
                if nxt is None:
                    continue
                grad = _validate(<Node>node, i, grad, edge)
                nr = edge.input_nr
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * max(1, len((<Node>nxt)._input_metadata), nr + 1)
                if len(buf) <= nr:
                    buf.extend([None] * (nr + 1 - len(buf)))
                buf[nr] = _add(buf[nr], grad)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._sequence_nr, next(counter), nxt))
            # the engine keeps no gradient beyond its buffers: a leaf can then take a first gradient no
            # one else holds instead of copying it (_stealable)
            outputs = grad = step = buf = None
    finally:
        grad_mode.set_grad_enabled_flag(previous_mode)
    if accumulate_grad:
        for t, edge, g in zip(inputs, input_edges, captured):   # backward(inputs=[non-leaf])
            if edge.function is not None and not isinstance(edge.function, AccumulateGrad) and g is not None:
                t.grad = g.detach().clone() if t.grad is None else t.grad + g
    else:
        for i, g in enumerate(captured):
            if g is None and not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        return tuple(captured)
    return None
