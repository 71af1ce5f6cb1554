# The autograd graph's C-level view, for the autograd kernels (variable_type.pyx).
from libc.stdint cimport uint64_t

cdef class Edge:
    cdef readonly object function         # the Node the gradient flows into, or None
    cdef readonly Py_ssize_t input_nr     # which of that node's inputs it is

cdef class Node:
    cdef readonly tuple next_edges        # per forward input, an Edge (next_functions reads them as pairs)
    cdef public object _sequence_nr
    cdef public list _pre_hooks           # fn(grad_outputs) -> new grad_outputs or None
    cdef public list _post_hooks          # fn(grad_inputs, grad_outputs) -> new grad_inputs or None
    cdef public dict _tensor_pre_hooks    # output number -> [fn(grad) -> grad or None] (tensor hooks)
    cdef public dict _retain_grad_tensors  # output number -> weakref to a tensor that retains its grad
    cdef public list _input_metadata      # per forward output: (shape, dtype, device)
    cdef tuple _needs                     # per next edge: whether that input needs a gradient (`needs`)
    cdef public tuple _saved              # what a generated node's formulas read, in its declared order
    cdef public object _saved_result      # the output(s) its formulas read: SavedVariable or a tuple of them
    cdef dict _metadata_dict
    cdef public bint _released
    cdef object __weakref__

cdef class AccumulateGrad(Node):
    cdef public object variable

cdef class SavedVariable:
    cdef object tensor
    cdef object saved_version
    cdef object grad_fn_name
    cdef int output_nr
    cdef bint was_output
    cdef bint released
    cdef object packed            # what a saved-tensors pack hook returned (tensor is then None)
    cdef object unpack_hook

cdef Edge make_edge(object function, Py_ssize_t input_nr)
cdef Node new_node(type node_type, tuple next_edges)
cpdef bint requires_grad(object value)
cpdef tuple edges(tuple values)
cpdef tuple needs(tuple next_edges)
cpdef set_outputs(Node node, object result, object differentiable=*)
cdef Edge edge_of(object value)
cdef int append_edges(list out, object value) except -1
cpdef int record_view_version(object result) except -1
cdef object view_nodes_module()
cpdef AccumulateGrad grad_accumulator(object tensor)
cdef SavedVariable save(object tensor)
cdef SavedVariable save_output(object tensor, Node node)
