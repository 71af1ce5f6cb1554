"""torch._functorch: the function transforms behind torch.func (PyTorch's home for them).

eager_transforms holds grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd and hessian, built on
the reverse-mode engine; functional_call holds functional_call and stack_module_state."""
