"""torch.func: composable function transforms (PyTorch's functorch API), from torch._functorch.

grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd and hessian compose with each other and with
torch.autograd and with vmap (a dispatch key with batching rules); functional_call and stack_module_state
run modules as functions of their parameters."""
from torch._functorch.eager_transforms import (grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize,
                                               vjp)
from torch._functorch.functional_call import functional_call, stack_module_state
from torch._functorch.vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vmap",
           "stack_module_state", "vjp"]
