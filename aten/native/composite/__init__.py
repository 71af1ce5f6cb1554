"""Composite kernels: written in terms of other operators, registered for every backend."""
