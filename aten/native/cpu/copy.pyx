"""aten::copy_ on CPU: write src into self, broadcasting and converting the dtype."""
import warnings

from c10.scalar_type cimport is_complex
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport copy_into

cdef bint _warned_complex_to_real = False


def copy_cpu(TensorImpl self not None, TensorImpl src not None, bint non_blocking=False):
    if src.device_type != 0:
        raise RuntimeError(f"copy_: copying from {src.device_obj} to cpu needs the CUDA backend's copy kernel")
    global _warned_complex_to_real
    if is_complex(src.scalar_type) and not is_complex(self.scalar_type) and not _warned_complex_to_real:
        _warned_complex_to_real = True      # PyTorch's TORCH_WARN_ONCE: once per process
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2)
    copy_into(self, src)
    self.version_counter.version += 1
    return self
