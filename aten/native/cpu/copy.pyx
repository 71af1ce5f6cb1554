"""aten::copy_ on CPU: write src into self, broadcasting and converting the dtype."""
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport copy_into


def copy_cpu(TensorImpl self not None, TensorImpl src not None, bint non_blocking=False):
    if src.device_type != 0:
        raise RuntimeError(f"copy_: copying from {src.device_obj} to cpu needs the CUDA backend's copy kernel")
    copy_into(self, src)
    self.version_counter.version += 1
    return self
