"""einsum's equation parsed and checked against its operands, with PyTorch's messages: each operand's
labels, the output's, each label's size and the result's dtype. Every backend computes from this plan."""
from c10.scalar_type cimport dtype_of, is_integral, ST_BOOL, ST_INT64
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport type_name

cdef str _LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


cdef list _parse_operand(str text, int start, str where, bint output):
    """Labels of one operand (or the output) as a list: letters and '...' (as None)."""
    cdef list labels = []
    cdef bint ellipsis = False
    cdef int i = 0, n = len(text)
    while i < n:
        c = text[i]
        if c == " ":
            i += 1
        elif c == ".":
            if ellipsis:
                raise RuntimeError(f"einsum(): found '.' for {where} but an ellipsis (...) has already been found")
            if text[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for {where} that is not part of any ellipsis")
            labels.append(None)
            ellipsis = True
            i += 3
        elif c in _LETTERS:
            labels.append(c)
            i += 1
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {start + i} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
    return labels


def einsum_plan(str equation, tuple tensors):
    """einsum's checks, and what it computes: each operand's labels (None for its ellipsis), the
    output's, each label's size (size-1 dims broadcast) and the result's dtype."""
    cdef TensorImpl t, first
    cdef int k
    if len(tensors) == 0:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    operand_texts = lhs.split(",")
    if len(operand_texts) > len(tensors):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(operand_texts) < len(tensors):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    operands = []
    start = 0
    for k, text in enumerate(operand_texts):
        operands.append(_parse_operand(text, start, f"operand {k}", False))
        start += len(text) + 1
    first = <TensorImpl?>tensors[0]
    for obj in tensors:
        t = <TensorImpl?>obj
        if len(tensors) > 1 and t.scalar_type != first.scalar_type:
            raise RuntimeError(f"expected scalar type {type_name(first.scalar_type)} but found "
                               f"{type_name(t.scalar_type)}")
    # sizes per label, with broadcasting of size-1 dims as PyTorch allows
    sizes = {}
    for k in range(len(tensors)):
        t = <TensorImpl>tensors[k]
        labels = operands[k]
        named = [l for l in labels if l is not None]
        if None not in labels and len(named) != t.nd:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) does not match the "
                               f"number of dimensions ({t.nd}) for operand {k} and no ellipsis was given")
        if None in labels and len(named) > t.nd:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) is more than the "
                               f"number of dimensions ({t.nd}) for operand {k}")
        ell = t.nd - len(named)
        seen = {}
        d = 0
        for l in labels:
            if l is None:
                d += ell
                continue
            size = t.sizes[d]
            if l in seen and seen[l] != size:
                raise RuntimeError(f"einsum(): subscript {l} is repeated for operand {k} but the sizes don't match, "
                                   f"{size} != {seen[l]}")
            seen[l] = size
            if l not in sizes or sizes[l] == 1:
                sizes[l] = size
            elif size != 1 and size != sizes[l]:
                raise RuntimeError(f"einsum(): subscript {l} has size {size} for operand {k} which does not "
                                   f"broadcast with previously seen size {sizes[l]}")
            d += 1
    if arrow >= 0:
        out_labels = _parse_operand(equation[arrow + 2:], arrow + 2, "output", True)
        named_out = [l for l in out_labels if l is not None]
        for l in named_out:
            if named_out.count(l) > 1:
                raise RuntimeError(f"einsum(): output subscript {l} appears more than once in the output")
            if l not in sizes:
                raise RuntimeError(f"einsum(): output subscript {l} does not appear in the equation for any input "
                                   "operand")
    else:
        counts = {}
        for labels in operands:
            for l in labels:
                if l is not None:
                    counts[l] = counts.get(l, 0) + 1
        out_labels = ([None] if any(None in labels for labels in operands) else []) + \
            sorted([l for l, c in counts.items() if c == 1])
    summed = any(l not in out_labels for l in sizes)
    result_type = first.scalar_type
    if len(tensors) == 1 and summed and is_integral(result_type, True):
        result_type = ST_INT64
    if len(tensors) > 1 and result_type == ST_BOOL and summed:
        raise NotImplementedError('"bmm" not implemented for \'Bool\'')
    return operands, out_labels, sizes, dtype_of(result_type)
