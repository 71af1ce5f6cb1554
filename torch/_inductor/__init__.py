"""torch._inductor: Ember's compiler of captured graphs (torch.compile's default backend).

compile_fx lowers a graph's pointwise operators to the scalar formulas the schema declares (the build
renders them to C into _gen_pointwise.py: this package never reads the schema or imports torchgen), fuses
chains of them into one generated C kernel per group (broadcasting, scalars, several outputs, OpenMP above
the loop engine's grain), compiles the kernels with the system's C compiler, caches them on disk by their
source's hash, and runs the graph as a generated Python function that calls the kernels and, for every
other operator, Ember's own kernel. See compile_fx.py."""
