"""The device-neutral layer: what every backend computes the same way before (or instead of) touching
data - type promotion, broadcasting, scalar ranges, output and overlap checks, view metadata, the
geometry and argument checks of the structured ops, PyTorch's shared error messages, and the kernels
that only change metadata (resize_). CPU, CUDA and composite kernels import it; it imports only c10."""
