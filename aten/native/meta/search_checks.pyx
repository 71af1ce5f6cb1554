"""searchsorted's argument checks (all but the sorter's values, which need the data), shared by
every backend, with PyTorch's messages."""
from c10.scalar_type cimport ST_INT64
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport type_name, sizes_str


cdef bint _dims_match_before_last(TensorImpl bd, TensorImpl inp):
    cdef int d
    if bd.nd != inp.nd:
        return False
    for d in range(bd.nd - 1):
        if bd.sizes[d] != inp.sizes[d]:
            return False
    return True


def check_searchsorted(TensorImpl bd not None, TensorImpl self not None, right, side, TensorImpl sorter):
    """searchsorted's checks but the sorter's values (which need the data); returns whether to
    search from the right. Shared with the CUDA kernel."""
    if side is not None:
        if side != "left" and side != "right":
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side != "right":
            raise RuntimeError(f"torch.searchsorted(): side and right can't be set to opposites, got side of {side} "
                               "while right was True")
    if sorter is not None:
        if sorter._sizes() != bd._sizes():
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {sizes_str(bd)}and got sorter tensor {sizes_str(sorter)}")
    if not (self.nd > 0 or (self.n_elem == 1 and bd.nd == 1)):
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({bd.nd}) and input value's dim({self.nd}) "
                           f"numel({self.n_elem})")
    if bd.nd == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if not (bd.nd == 1 or _dims_match_before_last(bd, self)):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{sizes_str(bd)} and input value tensor {sizes_str(self)}")
    if sorter is not None:
        if sorter.scalar_type != ST_INT64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{type_name(sorter.scalar_type)}")
    return (side == "right") if side is not None else bool(right)
