"""CUDA kernels: host-side launchers (Python, PyCUDA imported lazily) and generated _gen_*.cu sources."""
