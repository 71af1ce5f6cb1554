"""aten: operators. The dispatcher and registry, the CPU loop engine, native kernels."""
