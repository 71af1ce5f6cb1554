"""The autograd graph and engine: Node, AccumulateGrad, SavedVariable, run_backward (graph.pyx)."""
