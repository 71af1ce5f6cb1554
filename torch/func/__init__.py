"""torch.func: composable function transforms (PyTorch's functorch API), from torch._functorch.

grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd and hessian compose with each other and with
torch.autograd; functional_call and stack_module_state run modules as functions of their parameters.
vmap is not built yet (see the README)."""
from torch._functorch.eager_transforms import (grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize,
                                               vjp)
from torch._functorch.functional_call import functional_call, stack_module_state

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "stack_module_state", "vjp"]
