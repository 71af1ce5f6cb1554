"""torch._dynamo: Ember has no TorchDynamo yet (torch.compile is issue 27's). What programs import
from it at setup lives here: _trace_wrapped_higher_order_op.TransformGetItemToIndex."""
