"""torch.csrc: the autograd engine (Cython) and, later, the generated backward nodes."""
