"""torch._C: the generated bindings (_gen_<op> modules) and the argument parser they use.

_gen_index maps every torch.<name> function and Tensor.<name> method to its module.
"""
