"""torch.nn.functional's Python-level functions taking part in __torch_function__ as themselves.

PyTorch writes most of torch.nn.functional in Python, each function first handing a call that has an
argument defining __torch_function__ (an fx Proxy, a tensor subclass) or runs under a TorchFunctionMode to
that handler, as itself: a traced graph records `torch.nn.functional.relu(x, inplace = False)`, not the
operators relu is made of, and Transformer passes and subgraph patterns can match it. The call reaches the
handler as PyTorch's own functions pass it: the required parameters by position, every other one by name
with its value or default. The rest of torch.nn.functional are builtins in PyTorch (torch.conv2d,
torch._C._nn.linear): Ember's functions of those names reach the same bindings, which take part already."""
from __future__ import annotations

import inspect
from typing import Any, Callable

from torch._C.arg_parser import Overridable

# PyTorch 2.13's torch.nn.functional functions written in Python (the others are its builtins).
PYTHON_LEVEL = frozenset("""
    adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool1d_with_indices adaptive_max_pool2d
    adaptive_max_pool2d_with_indices adaptive_max_pool3d adaptive_max_pool3d_with_indices affine_grid alpha_dropout
    batch_norm binary_cross_entropy binary_cross_entropy_with_logits celu cosine_embedding_loss cross_entropy ctc_loss
    dropout dropout1d dropout2d dropout3d elu embedding embedding_bag feature_alpha_dropout fold fractional_max_pool2d
    fractional_max_pool2d_with_indices fractional_max_pool3d fractional_max_pool3d_with_indices gaussian_nll_loss glu
    grid_sample group_norm gumbel_softmax hardsigmoid hardswish hardtanh hinge_embedding_loss huber_loss instance_norm
    interpolate kl_div l1_loss layer_norm leaky_relu local_response_norm log_softmax lp_pool1d lp_pool2d lp_pool3d
    margin_ranking_loss max_pool1d max_pool1d_with_indices max_pool2d max_pool2d_with_indices max_pool3d
    max_pool3d_with_indices max_unpool1d max_unpool2d max_unpool3d mish mse_loss multi_head_attention_forward
    multi_margin_loss multilabel_margin_loss multilabel_soft_margin_loss nll_loss normalize pad poisson_nll_loss relu
    relu6 rms_norm rrelu selu sigmoid silu smooth_l1_loss soft_margin_loss softmax softmin softsign tanh tanhshrink
    threshold triplet_margin_loss triplet_margin_with_distance_loss unfold upsample upsample_bilinear upsample_nearest
""".split())


def overridable(fn: Callable[..., Any], name: str) -> Overridable:
    """fn as torch.nn.functional.<name>, handing calls that want __torch_function__ to it."""
    signature = inspect.signature(fn)
    by_position = [p.name for p in signature.parameters.values()
                   if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def split(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...],
                                                                       dict[str, Any]]:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = bound.arguments
        return (tuple(values.values()), tuple(values[n] for n in by_position),
                {k: v for k, v in values.items() if k not in by_position})

    function = Overridable(fn, split)
    function.__dict__.update(__module__="torch.nn.functional", __name__=name, __qualname__=name,
                             __doc__=fn.__doc__)
    return function


def make_overridable(namespace: dict[str, Any]) -> None:
    """Replace each PyTorch-Python-level function of the torch.nn.functional namespace by its overridable form."""
    for name in PYTHON_LEVEL:
        fn = namespace.get(name)
        if inspect.isfunction(fn):
            namespace[name] = overridable(fn, name)
