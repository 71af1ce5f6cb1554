"""Native kernels: handwritten (cpu/*.pyx, cuda/*.py, composite/*.py) and generated (_gen_*)."""
