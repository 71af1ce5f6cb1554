"""torch._dynamo: Ember has no TorchDynamo yet (torch.compile is not built). What programs touch
from it at setup, with the meaning it has outside a compiled region, lives here: the markers that
only instruct the tracer (allow_in_graph, assume_constant_result, disable) return the function
unchanged, as PyTorch's do when nothing is compiled; OptimizedModule, for isinstance checks;
_trace_wrapped_higher_order_op.TransformGetItemToIndex."""
from torch._dynamo import eval_frame
from torch._dynamo.eval_frame import OptimizedModule
from torch.compiler import allow_in_graph, assume_constant_result, disable, is_compiling

__all__ = ["OptimizedModule", "allow_in_graph", "assume_constant_result", "disable", "eval_frame", "is_compiling"]
