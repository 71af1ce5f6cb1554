"""The CUDA launch runtime every CUDA kernel module uses: compiling the .cu sources and caching
modules and kernels (compiler), grid sizing, launch metadata and device type names (launch), and
moving data on the device - strided copies, dtype conversion, uploads, fills (transfer)."""
