"""torch._C: the generated bindings (_gen_<op> modules) and the argument parser they use.

_gen_index maps every torch.<name> function and Tensor.<name> method to its module.
"""

from torch._C import _nn  # noqa: E402,F401  (torch._C._nn: lazy, loads nothing until used)
