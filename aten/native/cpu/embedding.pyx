"""embedding and one_hot on CPU: gathers and scatters with their indices checked first."""
import numpy as np

from c10.scalar_type cimport ST_INT32, ST_INT64
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_view, new_tensor
from aten.native.meta.messages cimport shape_of, type_name


def embedding_cpu(TensorImpl weight not None, TensorImpl indices not None, padding_idx=-1,
                  bint scale_grad_by_freq=False, bint sparse=False):
    # padding_idx, scale_grad_by_freq and sparse only change the backward
    if weight.nd != 2:
        raise RuntimeError("'weight' must be 2-D")
    if indices.scalar_type != ST_INT64 and indices.scalar_type != ST_INT32:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{type_name(indices.scalar_type)}Tensor instead (while checking "
                           "arguments for embedding)")
    idx = np_view(indices).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= weight.sizes[0]):
        raise IndexError("index out of range in self")
    cdef TensorImpl out = new_tensor(shape_of(indices) + (weight.sizes[1],), weight.scalar_type)
    if out.n_elem:
        np.take(np_view(weight), idx, axis=0, out=np_view(out).reshape(idx.size, weight.sizes[1]), mode="clip")
    return out


def one_hot_cpu(TensorImpl self not None, long num_classes=-1):
    if self.scalar_type != ST_INT64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    cdef TensorImpl out
    if self.n_elem == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return new_tensor(shape_of(self) + (num_classes,), ST_INT64)
    a = np_view(self)
    if a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(a.max()) + 1
    elif num_classes <= a.max():
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = new_tensor(shape_of(self) + (num_classes,), ST_INT64)
    o = np_view(out)
    o[...] = 0
    np.put_along_axis(o, a[..., None], 1, axis=-1)
    return out
