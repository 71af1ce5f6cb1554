"""Build glue: the setup hook that runs torchgen, the CUDA compile check."""
