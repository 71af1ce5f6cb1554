"""Helpers the backward formulas of tools/autograd/derivatives.yaml call (PyTorch's
FunctionsManual.cpp, by the same names where Ember has the same formula), one module per family of
ops; the generated autograd kernels import them all from here.

Formulas are written with tensor methods and these functions, so that create_graph=True
differentiates through them. Upstream's x.conj() is conj(x) (pointwise.py), the identity for real
values; upstream's handle_r_to_c is applied by the engine, where a gradient meets a real input."""
from torch.csrc.autograd.functions_manual.forward import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.indexing import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.linalg import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.linalg_factor import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.nn import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.pointwise import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.reductions import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.shapes import *  # noqa: F401,F403
from torch.csrc.autograd.functions_manual.spectral import *  # noqa: F401,F403
